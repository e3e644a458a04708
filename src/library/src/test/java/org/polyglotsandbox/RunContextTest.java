package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The run context of tools: the embedder's attributes and the run's id and label reach every tool
 * handler of the run (inline on the guest thread and on a handler thread), never the guest; the
 * audited ones reach the run's audit events (result, listener, JFR), the others do not.
 */
class RunContextTest {
  private static final List<AuditEvent> audited = new CopyOnWriteArrayList<>();
  private static final List<String> handlerThreads = new CopyOnWriteArrayList<>();
  private static PolyglotSandbox sandbox;

  private static Object describe(Tool.Call call) {
    handlerThreads.add(Thread.currentThread().getName());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("tool", call.tool());
    out.put("runId", call.runId());
    out.put("label", call.label());
    out.put("attributes", call.attributes());
    return out;
  }

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
            .limits(Limits.builder().wallTime(Duration.ofSeconds(30)).build())
            .allowTools("ctx.inline", "ctx.pooled", "plain").build())
        .tool(Tool.builder("ctx.inline").inline().handler((args, call) -> describe(call)).build())
        .tool(Tool.builder("ctx.pooled").handler((args, call) -> describe(call)).build())
        .tool(Tool.builder("plain").handler(args -> "plain").build())
        .auditListener(audited::add)
        // A prepared context's gateway is made before its script is known: the run must still bring its own.
        .warmContexts(1)
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static String bothTools(Language language) {
    return GuestCode.of(language, "[tools.ctx.inline(), tools.ctx.pooled(), tools.plain()]",
        "[tools.ctx.inline(), tools.ctx.pooled(), tools.plain()]");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void attributes_reachInlineAndHandlerThreadTools_withRunIdAndLabel(Language language) {
    handlerThreads.clear();
    ExecutionResult r = sandbox.run(Script.of(language, bothTools(language))
        .withLabel("conversation-9").withAttribute("tenant", "acme").withAuditedAttribute("user", "ada"));
    assertThatRun(r).isOk();
    Map<String, Object> attributes = Map.of("tenant", "acme", "user", "ada");
    assertThat(r.value()).isEqualTo(List.of(
        Map.of("tool", "ctx.inline", "runId", r.runId(), "label", "conversation-9", "attributes", attributes),
        Map.of("tool", "ctx.pooled", "runId", r.runId(), "label", "conversation-9", "attributes", attributes),
        "plain"));
    assertThat(handlerThreads).hasSize(2);
    assertThat(handlerThreads.get(0)).as("inline: the guest's thread").isNotEqualTo(handlerThreads.get(1));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void attributes_doNotOutliveTheirRun(Language language) {
    assertThatRun(sandbox.run(Script.of(language, bothTools(language)).withAttribute("tenant", "acme"))).isOk();
    ExecutionResult next = sandbox.run(Script.of(language, bothTools(language)));
    assertThatRun(next).isOk();
    assertThat((List<?>) next.value()).first().isEqualTo(
        Map.of("tool", "ctx.inline", "runId", next.runId(), "label", "", "attributes", Map.of()));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void attributes_neverReachTheGuest(Language language) {
    ExecutionResult r = sandbox.run(Script.of(language, GuestCode.of(language,
            "Object.getOwnPropertyNames(globalThis).map(k => { try { return k + '=' + JSON.stringify(globalThis[k]); }"
                + " catch (e) { return k; } }).join(' ') + Object.getOwnPropertyNames(tools).join(',')"
                + " + (typeof process) + (typeof Java)",
            "import os, sys\nrepr(globals()) + repr(dir(tools)) + repr(vars(tools) if hasattr(tools, '__dict__') else '')"
                + " + repr(sys.argv) + repr(dict(os.environ)) + repr(sys.modules.keys())"))
        .withAttribute("tenant", "tenant-secret-4711").withAuditedAttribute("user", "user-secret-0815"));
    assertThatRun(r).isOk();
    assertThat(r.valueAsJson()).as("what the guest saw").contains("tools")
        .doesNotContain("secret-4711").doesNotContain("secret-0815").doesNotContain("tenant");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void auditedAttributes_reachTheAuditEvents_othersDoNot(Language language, @TempDir Path dir) throws Exception {
    Script script = Script.of(language, bothTools(language))
        .withAttribute("tenant", "acme").withAuditedAttribute("user", "ada").withAuditedAttribute("ticket", "T-1");
    ExecutionResult r;
    List<RecordedEvent> recorded = new ArrayList<>();
    try (Recording recording = new Recording()) {
      recording.enable(AuditEvent.JFR_EVENT_NAME);
      recording.start();
      r = sandbox.run(script);
      recording.stop();
      Path file = dir.resolve("attributes.jfr");
      recording.dump(file);
      for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
        if (e.getEventType().getName().equals(AuditEvent.JFR_EVENT_NAME) && r.runId().equals(e.getString("runId"))) {
          recorded.add(e);
        }
      }
    }
    assertThatRun(r).isOk();
    Map<String, String> expected = Map.of("user", "ada", "ticket", "T-1");
    assertThat(r.auditEvents()).hasSize(3).extracting(AuditEvent::attributes).containsOnly(expected);
    assertThat(recorded).hasSize(3).allSatisfy(e ->
        assertThat(e.getString("attributes")).isEqualTo("{\"user\":\"ada\",\"ticket\":\"T-1\"}"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (audited.stream().filter(e -> e.runId().equals(r.runId())).count() < 3 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(audited.stream().filter(e -> e.runId().equals(r.runId())).toList()).hasSize(3)
        .extracting(AuditEvent::attributes).containsOnly(expected);
  }

  @Test
  void runsWithoutAuditedAttributes_haveEmptyAttributesInTheirEvents() {
    ExecutionResult r = sandbox.run(Script.of(Language.JAVASCRIPT, "tools.plain()").withAttribute("tenant", "acme"));
    assertThat(r.auditEvents()).singleElement().satisfies(e -> assertThat(e.attributes()).isEmpty());
  }

  @Test
  void asyncRuns_carryAuditedAttributes_andStillCancel() {
    ExecutionResult r = sandbox.runAsync(Script.of(Language.JAVASCRIPT, "tools.plain()")
        .withAuditedAttribute("user", "ada")).join();
    assertThat(r.auditEvents()).singleElement().satisfies(e -> assertThat(e.attributes()).containsEntry("user", "ada"));
    var endless = sandbox.runAsync(Script.of(Language.JAVASCRIPT, "for (;;) {}").withAuditedAttribute("user", "ada"));
    endless.cancel(true);
    assertThat(endless).isCancelled();
  }

  @Test
  void badAttributes_areRefusedByName() {
    Script s = Script.of(Language.PYTHON, "1");
    assertThatThrownBy(() -> s.withAttribute("bad name", "x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'bad name'");
    assertThatThrownBy(() -> s.withAttribute("tenant", "x".repeat(257))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("attribute tenant is 257 characters long");
    assertThatThrownBy(() -> s.withAuditedAttribute("tenant", "a\nb")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("attribute tenant holds a control character (U+000A)");
    Script full = s;
    for (int i = 0; i < Script.MAX_ATTRIBUTES; i++) {
      full = full.withAttribute("a" + i, "v");
    }
    Script fullScript = full;
    assertThat(fullScript.withAttribute("a0", "replaced").attributes()).hasSize(32).containsEntry("a0", "replaced");
    assertThatThrownBy(() -> fullScript.withAttribute("one-more", "v")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 32 attributes").hasMessageContaining("one-more");
  }

  @Test
  void aContextualHandler_isStillCallableWithoutARun() throws Exception {
    Tool t = Tool.builder("who").handler((args, call) -> call.runId().isEmpty() ? "no run" : call.runId()).build();
    assertThat(t.handler().call(Map.of())).isEqualTo("no run");
    assertThat(t.contextualHandler().call(Map.of(), new Tool.Call("who", "r-1", "", Map.of()))).isEqualTo("r-1");
  }
}
