package org.polyglotsandbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.Script;

/**
 * With process isolation the meters and spans are those of an in-process sandbox: runs by outcome and limit,
 * tool calls by status, denials, handler spans under the run's, and a gauge of the ready workers.
 */
@Tag("slow")
class ProcessIsolationObservabilityTest {
  private static PolyglotSandbox sandbox;
  private static final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private static OtelBridge otel;
  private static SandboxMetrics metrics;
  private static SandboxObservations observations;

  @BeforeAll
  static void build() {
    sandbox = Sandboxes.withTools(PolyglotSandbox.builder())
        .isolation(Isolation.processBuilder().workers(1).spareWorkers(0).build())
        .build();
    otel = new OtelBridge();
    metrics = SandboxMetrics.bind(sandbox, registry);
    observations = SandboxObservations.bind(sandbox, otel.registry);
  }

  @AfterAll
  static void close() {
    observations.close();
    metrics.close();
    sandbox.close();
    otel.close();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void runsToolCallsAndDenials_areCountedAsInProcess(Language language) {
    boolean js = language == Language.JAVASCRIPT;
    ExecutionResult ok = sandbox.run(language, js
        ? "let e; try { tools.refuse({}) } catch (x) { e = x.code } [tools.add({a: 1, b: 2}), e]"
        : "e = None\ntry:\n    tools.refuse({})\nexcept ToolError as x:\n    e = x.code\n[tools.add({'a': 1, 'b': 2}), e]");
    assertThat(ok.outcome()).as(ok.toString()).isEqualTo(Outcome.OK);
    sandbox.run(language, js ? "readText('/etc/passwd')" : "open('/etc/passwd').read()");
    ExecutionResult limited = sandbox.run(Script.of(language, js ? "while (true) {}" : "while True:\n    pass")
        .withLimits(Limits.builder().maxStatements(10_000).build()));
    assertThat(limited.outcome()).isEqualTo(Outcome.LIMIT_EXCEEDED);

    assertThat(runs(language, "ok", "none")).isEqualTo(1);
    assertThat(runs(language, "guest_error", "none")).isEqualTo(1);
    assertThat(runs(language, "limit_exceeded", "statements")).isEqualTo(1);
    assertThat(registry.find(SandboxMetrics.TOOL_CALLS).tags("tool", "add", "status", "ok").timer().count())
        .isEqualTo(language.ordinal() + 1); // the runs of both languages share the registry
    assertThat(registry.find(SandboxMetrics.TOOL_CALLS).tags("tool", "refuse", "status", "failed").timer().count())
        .isEqualTo(language.ordinal() + 1);
    assertThat(registry.find(SandboxMetrics.DENIED_OPERATIONS).tags("operation", "file.read").counters()
        .stream().mapToDouble(c -> c.count()).sum()).isEqualTo(language.ordinal() + 1);
    assertThat(registry.get(SandboxMetrics.READY_WORKERS).gauge().value()).isEqualTo(1);

    List<SpanData> spans = otel.spans.getFinishedSpanItems();
    SpanData run = spans.stream().filter(s -> ok.runId().equals(
        s.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.call.id")))).findFirst().orElseThrow();
    assertThat(run.getName()).isEqualTo(js ? "execute_tool run_javascript" : "execute_tool run_python");
    assertThat(spans).filteredOn(s -> s.getParentSpanId().equals(run.getSpanId())).extracting(SpanData::getName)
        .containsExactly("execute_tool refuse", "execute_tool add");
  }

  private static double runs(Language language, String outcome, String limit) {
    var c = registry.find(SandboxMetrics.RUNS).tags("language", language.id(), "outcome", outcome, "limit", limit)
        .counter();
    return c == null ? 0 : c.count();
  }
}
