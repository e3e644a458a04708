package org.polyglotsandbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.observation.Observation;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;

/**
 * Through Micrometer Tracing's OpenTelemetry bridge, a run is an {@code execute_tool} span named and attributed
 * by the GenAI conventions, its host tool calls are its children, and it continues the caller's trace: the
 * observation current on the calling thread, or a {@code traceparent} the script carries.
 */
class SandboxObservationsTest {
  private static PolyglotSandbox sandbox;
  private OtelBridge otel;
  private SandboxObservations observations;

  @BeforeAll
  static void build() {
    sandbox = Sandboxes.withTools(PolyglotSandbox.builder()).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @BeforeEach
  void bind() {
    otel = new OtelBridge();
    observations = SandboxObservations.bind(sandbox, otel.registry);
  }

  @AfterEach
  void unbind() {
    observations.close();
    otel.close();
    Sandboxes.TRACE = () -> null;
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void run_isAnExecuteToolSpan_withTheGenAiAttributes(Language language) {
    ExecutionResult r = sandbox.run(language, "6 * 7");
    assertThat(r.outcome()).isEqualTo(Outcome.OK);

    SpanData run = single(language == Language.JAVASCRIPT ? "execute_tool run_javascript" : "execute_tool run_python");
    assertThat(attribute(run, "gen_ai.operation.name")).isEqualTo("execute_tool");
    assertThat(attribute(run, "gen_ai.tool.name")).isEqualTo(language == Language.JAVASCRIPT ? "run_javascript"
        : "run_python");
    assertThat(attribute(run, "gen_ai.tool.call.id")).isEqualTo(r.runId());
    assertThat(attribute(run, "sandbox.language")).isEqualTo(language.id());
    assertThat(attribute(run, "sandbox.outcome")).isEqualTo("ok");
    assertThat(run.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
    assertThat(run.getParentSpanContext().isValid()).isFalse();
    assertThat(run.getKind()).isEqualTo(SpanKind.INTERNAL);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void hostToolCalls_areChildSpans_currentWhileTheirHandlerRuns(Language language) {
    Sandboxes.TRACE = () -> otel.tracer.currentSpan() == null ? "none" : otel.tracer.currentSpan().context().spanId();
    ExecutionResult r = sandbox.run(language, language == Language.JAVASCRIPT
        ? "let e; try { tools.refuse({}) } catch (x) { e = x.code } [tools.add({a: 1, b: 2}), tools.trace({}), e]"
        : "e = None\ntry:\n    tools.refuse({})\nexcept ToolError as x:\n    e = x.code\n"
            + "[tools.add({'a': 1, 'b': 2}), tools.trace({}), e]");
    assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.OK);

    SpanData run = single("execute_tool " + SandboxObservations.toolName(Script.of(language, "")));
    SpanData refuse = single("execute_tool refuse");
    SpanData add = single("execute_tool add");
    SpanData trace = single("execute_tool trace");
    for (SpanData child : List.of(refuse, add, trace)) {
      assertThat(child.getTraceId()).isEqualTo(run.getTraceId());
      assertThat(child.getParentSpanId()).isEqualTo(run.getSpanId());
      assertThat(attribute(child, "gen_ai.operation.name")).isEqualTo("execute_tool");
      assertThat(attribute(child, "sandbox.run.id")).isEqualTo(r.runId());
    }
    assertThat(attribute(refuse, "gen_ai.tool.call.id")).isEqualTo(r.runId() + "/1");
    assertThat(attribute(add, "gen_ai.tool.call.id")).isEqualTo(r.runId() + "/2");
    assertThat(attribute(add, "gen_ai.tool.name")).isEqualTo("add");
    assertThat(attribute(add, "sandbox.outcome")).isEqualTo("ok");
    assertThat(refuse.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(attribute(refuse, "sandbox.outcome")).isEqualTo("failed");
    // The handler ran inside its own span.
    assertThat(((List<?>) r.value()).get(1)).isEqualTo(trace.getSpanId());
    // Arguments are in no attribute.
    assertThat(add.getAttributes().asMap().values()).noneMatch(v -> String.valueOf(v).contains("\"a\""));
  }

  @Test
  void traceparentAttribute_continuesTheCallersTrace() {
    String traceId = "0af7651916cd43dd8448eb211c80319c";
    String parentId = "b7ad6b7169203331";
    sandbox.run(Script.of(Language.JAVASCRIPT, "tools.add({a: 1, b: 1})")
        .withAttribute(SandboxObservations.TRACEPARENT_ATTRIBUTE, "00-" + traceId + "-" + parentId + "-01"));

    SpanData run = single("execute_tool run_javascript");
    assertThat(run.getTraceId()).isEqualTo(traceId);
    assertThat(run.getParentSpanId()).isEqualTo(parentId);
    assertThat(run.getParentSpanContext().isRemote()).isTrue();
    assertThat(run.getKind()).isEqualTo(SpanKind.SERVER);
    SpanData add = single("execute_tool add");
    assertThat(add.getTraceId()).isEqualTo(traceId);
    assertThat(add.getParentSpanId()).isEqualTo(run.getSpanId());
  }

  @Test
  void observationCurrentOnTheCallingThread_isTheRunsParent() {
    Observation request = Observation.start("http.server.requests", otel.registry);
    try (Observation.Scope scope = request.openScope()) {
      sandbox.run(Script.of(Language.PYTHON, "1")
          .withAttribute(SandboxObservations.TRACEPARENT_ATTRIBUTE, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
    } finally {
      request.stop();
    }
    SpanData outer = single("http.server.requests");
    SpanData run = single("execute_tool run_python");
    assertThat(run.getTraceId()).isEqualTo(outer.getTraceId());
    assertThat(run.getParentSpanId()).isEqualTo(outer.getSpanId());
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void failedRun_isAnErrorSpan_namingItsOutcome_notTheGuestsMessage(Language language) {
    sandbox.run(Script.of(language, language == Language.JAVASCRIPT ? "throw new Error('secret-text')"
        : "raise ValueError('secret-text')").withAttribute(SandboxObservations.TOOL_NAME_ATTRIBUTE, "execute_code"));

    SpanData run = single("execute_tool execute_code");
    assertThat(attribute(run, "gen_ai.tool.name")).isEqualTo("execute_code");
    assertThat(attribute(run, "sandbox.outcome")).isEqualTo("guest_error");
    assertThat(run.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(run.toString()).doesNotContain("secret-text");
  }

  @Test
  void close_stopsObserving() {
    observations.close();
    sandbox.run(Language.JAVASCRIPT, "tools.add({a: 1, b: 1})");
    assertThat(otel.spans.getFinishedSpanItems()).isEmpty();
  }

  private SpanData single(String name) {
    List<SpanData> named = otel.spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
    assertThat(named).as("spans named %s among %s", name, otel.spans.getFinishedSpanItems().stream()
        .map(SpanData::getName).toList()).hasSize(1);
    return named.get(0);
  }

  private static String attribute(SpanData span, String key) {
    return span.getAttributes().get(AttributeKey.stringKey(key));
  }
}
