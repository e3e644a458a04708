package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The audit log: every denied attempt, tripped limit and tool call of a run is an {@link AuditEvent}
 * with the run's id, in the result, to the listener (on the sandbox's audit thread, never disturbing
 * the run) and in JDK Flight Recorder, and a guest cannot flood any of them past the per-run cap.
 * The listener gets its events shortly after they happen, so the tests wait for them.
 */
class AuditEventsTest {
  private record Seen(AuditEvent event, String thread) {}

  private static final List<Seen> seen = new CopyOnWriteArrayList<>();
  /** What the listener does besides recording; tests swap in a failing one. */
  private static volatile Consumer<AuditEvent> also = e -> {};
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        // Generous: a Python run with tools takes seconds on a busy machine, and no test here times anything.
        .limits(Limits.builder().wallTime(Duration.ofMinutes(2)).build())
        .allowTools("echo")
        .build();
    sandbox = PolyglotSandbox.builder().policy(policy)
        .tool(Tool.builder("echo").parameters("{\"type\": \"object\"}").handler(args -> args).build())
        .auditListener(e -> {
          seen.add(new Seen(e, Thread.currentThread().getName()));
          also.accept(e);
        })
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @BeforeEach
  void reset() {
    seen.clear();
    also = e -> {};
  }

  /**
   * What the listener saw of run {@code runId}, once it has seen {@code n} such events or 30 s passed
   * (it is called on the audit thread, a little after the run).
   */
  private static List<Seen> seenOf(String runId, int n) {
    return awaitSize(seen, n, s -> s.event().runId().equals(runId));
  }

  static <T> List<T> awaitSize(List<T> list, int n, java.util.function.Predicate<T> which) {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (list.stream().filter(which).count() < n && System.nanoTime() < end) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
    return list.stream().filter(which).toList();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void deniedAttemptsAndToolCalls_areAuditEventsOfTheRun(Language language) {
    ExecutionResult r = sandbox.run(language, GuestCode.of(language,
        GuestCode.jsAttempts("readText('/etc/passwd')", "tools.echo({a: 1})", "tools['kv.put']({})"),
        GuestCode.pythonAttempts("Exception", "open('/etc/passwd')", "tools.echo(a=1)", "getattr(tools, 'kv.put')()")));

    assertThatRun(r).isOk();
    assertThat(UUID.fromString(r.runId()).toString()).isEqualTo(r.runId());
    List<AuditEvent> audit = r.auditEvents();
    assertThat(audit).extracting(AuditEvent::runId).containsOnly(r.runId());
    assertThat(audit).extracting(e -> e.operation().id() + " " + e.target() + " " + e.verdict().id() + " " + e.layer().id())
        .contains("file.read /etc/passwd denied virtual-file-system",
            "tool.call echo allowed tool-gateway",
            "tool.call kv.put denied tool-gateway");
    assertThat(audit).filteredOn(e -> e.operation() == Operation.TOOL_CALL && e.verdict() == Verdict.ALLOWED)
        .singleElement().satisfies(e -> assertThat(e.detail()).startsWith("ok in ").endsWith(" argument bytes"));
    assertThat(audit).allSatisfy(e -> assertThat(e.time()).isNotNull());

    assertThat(seenOf(r.runId(), audit.size())).extracting(Seen::event)
        .as("the listener saw exactly the result's events, in order").isEqualTo(audit);
    assertThat(seenOf(r.runId(), audit.size())).as("the listener is called on the sandbox's audit thread, never the guest's")
        .allSatisfy(s -> assertThat(s.thread()).startsWith("polyglot-sandbox-audit-"));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aScriptsLabel_isCarriedByItsResultItsListenerEventsAndJfr_andHiddenFromTheGuest(Language language,
      @TempDir Path dir) throws Exception {
    // One denied read to audit, then all the guest can see of its globals, arguments and environment.
    Script script = Script.of(language, GuestCode.of(language,
        "try { readText('/etc/passwd'); } catch (e) {}\n"
            + "Object.getOwnPropertyNames(globalThis).map(k => { try { return k + '=' + String(globalThis[k]); }"
            + " catch (e) { return k; } }).join(' ')",
        "import os, sys\ntry:\n    open('/etc/passwd')\nexcept Exception:\n    pass\n"
            + "repr(globals()) + repr(sys.argv) + repr(getattr(sys, 'orig_argv', '')) + repr(dict(os.environ))"))
        .withLabel("memory:agent-7/conversation 42");
    ExecutionResult r;
    List<RecordedEvent> recorded = new ArrayList<>();
    try (Recording recording = new Recording()) {
      recording.enable(AuditEvent.JFR_EVENT_NAME);
      recording.start();
      r = sandbox.run(script);
      recording.stop();
      Path file = dir.resolve("label.jfr");
      recording.dump(file);
      for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
        if (e.getEventType().getName().equals(AuditEvent.JFR_EVENT_NAME) && r.runId().equals(e.getString("runId"))) {
          recorded.add(e);
        }
      }
    }

    assertThatRun(r).isOk();
    assertThat(r.label()).isEqualTo("memory:agent-7/conversation 42");
    assertThat(r.auditEvents()).isNotEmpty().extracting(AuditEvent::label).containsOnly(r.label());
    assertThat(seenOf(r.runId(), r.auditEvents().size())).extracting(s -> s.event().label()).containsOnly(r.label());
    assertThat(recorded).isNotEmpty().allSatisfy(e -> assertThat(e.getString("label")).isEqualTo(r.label()));
    assertThat(r.valueAsJson()).as("what the guest saw").contains("tools").doesNotContain("agent-7");
    assertThat(sandbox.run(language, "1").label()).isEmpty();
  }

  @Test
  void aLabel_thatIsTooLongOrHoldsAControlCharacter_isRefusedByName() {
    Script script = Script.of(Language.JAVASCRIPT, "1");
    assertThatThrownBy(() -> script.withLabel("x".repeat(129)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("129 characters").hasMessageContaining("128");
    assertThatThrownBy(() -> script.withLabel("a\nb"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U+000A").hasMessageContaining("index 1");
    assertThat(script.withLabel("x".repeat(128)).withInputs(Map.of("a", 1)).named("x.js").label()).hasSize(128);
  }

  @Test
  void labelFrom_makesAnyTextALabel_thatWithLabelTakes() {
    Script script = Script.of(Language.JAVASCRIPT, "1");
    assertThat(Script.labelFrom("conversation:a\nb\u0000c")).isEqualTo("conversation:a?b?c");
    assertThat(script.withLabel(Script.labelFrom("y".repeat(500))).label()).isEqualTo("y".repeat(128));
    assertThat(Script.labelFrom("")).isEmpty();
  }

  @Test
  void eachRun_hasItsOwnId() {
    ExecutionResult a = sandbox.run(Language.JAVASCRIPT, "1");
    ExecutionResult b = sandbox.run(Language.JAVASCRIPT, "1");
    assertThat(a.runId()).isNotEqualTo(b.runId());
  }

  @Test
  void aLimitTheWatchdogDetects_isDeliveredOnTheAuditThread() {
    Policy tight = Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofMillis(300)).maxStatements(Long.MAX_VALUE).build()).build();
    List<Seen> events = new CopyOnWriteArrayList<>();
    try (PolyglotSandbox s = PolyglotSandbox.builder().policy(tight)
        .auditListener(e -> events.add(new Seen(e, Thread.currentThread().getName()))).build()) {
      ExecutionResult r = s.run(Language.JAVASCRIPT, "while (true) {}");

      assertThatRun(r).wasStoppedBy(Limit.WALL_TIME);
      assertThat(awaitSize(events, 1, e -> true)).singleElement().satisfies(seenEvent -> {
        assertThat(seenEvent.event()).isEqualTo(r.auditEvents().get(0));
        assertThat(seenEvent.event().operation()).isEqualTo(Operation.LIMIT_EXCEED);
        assertThat(seenEvent.event().target()).isEqualTo("wall_time");
        assertThat(seenEvent.event().verdict()).isEqualTo(Verdict.STOPPED);
        assertThat(seenEvent.event().layer()).isEqualTo(Layer.WATCHDOG);
        assertThat(seenEvent.thread()).as("never the shared watchdog thread")
            .startsWith("polyglot-sandbox-audit-");
      });
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aThrowingListener_doesNotDisturbTheRun(Language language) {
    also = e -> {
      throw new IllegalStateException("listener broke");
    };
    ExecutionResult r = sandbox.run(language, GuestCode.of(language,
        "let out = []; try { readText('/etc/passwd'); } catch (e) { out.push('denied'); } out.push(tools.echo({a: 2}).a); out",
        "out = []\ntry:\n    open('/etc/passwd')\nexcept OSError:\n    out.append('denied')\nout.append(tools.echo(a=2)['a'])\nout"));
    assertThatRun(r).hasValue(List.of("denied", 2L));
    assertThat(seenOf(r.runId(), 2)).hasSizeGreaterThanOrEqualTo(2);

    also = e -> {
      throw new OutOfMemoryError("listener ran out");
    };
    assertThatRun(sandbox.run(language, GuestCode.of(language, "tools.echo({a: 3}).a", "tools.echo(a=3)['a']")))
        .hasValue(3L);
  }

  @Test
  void aFloodOfDenials_isCappedAndCounted_forTheResultTheListenerAndJfr(@TempDir Path dir) throws Exception {
    ExecutionResult r;
    List<RecordedEvent> recorded;
    try (Recording recording = new Recording()) {
      recording.enable(AuditEvent.JFR_EVENT_NAME);
      recording.start();
      r = sandbox.run(Language.JAVASCRIPT,
          "let n = 0; for (let i = 0; i < 1500; i++) { try { readText('/flood/' + i); } catch (e) { n++; } } n");
      recording.stop();
      Path file = dir.resolve("audit.jfr");
      recording.dump(file);
      recorded = RecordingFile.readAllEvents(file).stream()
          .filter(e -> e.getEventType().getName().equals(AuditEvent.JFR_EVENT_NAME))
          .filter(e -> r.runId().equals(e.getString("runId")))
          .toList();
    }

    assertThatRun(r).hasValue(1500L);
    assertThat(r.events()).hasSize(1000);
    assertThat(r.droppedEvents()).isEqualTo(500);
    assertThat(seenOf(r.runId(), 1000)).extracting(Seen::event).isEqualTo(r.auditEvents());
    assertThat(r.undeliveredAuditEvents()).isZero();
    assertThat(recorded).hasSize(1000);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void eachAuditEvent_isAFlightRecorderEvent(Language language, @TempDir Path dir) throws Exception {
    ExecutionResult r;
    List<RecordedEvent> recorded = new ArrayList<>();
    try (Recording recording = new Recording()) {
      recording.enable(AuditEvent.JFR_EVENT_NAME);
      recording.start();
      r = sandbox.run(language, GuestCode.of(language,
          GuestCode.jsAttempts("readText('/etc/shadow')", "tools.echo({})"),
          GuestCode.pythonAttempts("Exception", "open('/etc/shadow')", "tools.echo()")));
      recording.stop();
      Path file = dir.resolve("audit.jfr");
      recording.dump(file);
      for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
        if (e.getEventType().getName().equals(AuditEvent.JFR_EVENT_NAME) && r.runId().equals(e.getString("runId"))) {
          recorded.add(e);
        }
      }
    }

    assertThat(recorded).hasSameSizeAs(r.events());
    assertThat(recorded).anySatisfy(e -> {
      assertThat(e.getString("operation")).isEqualTo("file.read");
      assertThat(e.getString("target")).isEqualTo("/etc/shadow");
      assertThat(e.getString("verdict")).isEqualTo("denied");
      assertThat(e.getString("layer")).isEqualTo("virtual-file-system");
      assertThat(e.getLong("eventTime")).isPositive();
    });
    assertThat(recorded).anySatisfy(e -> {
      assertThat(e.getString("operation")).isEqualTo("tool.call");
      assertThat(e.getString("target")).isEqualTo("echo");
      assertThat(e.getString("verdict")).isEqualTo("allowed");
    });
    assertThat(recorded.get(0).getStackTrace()).as("no host stack traces").isNull();
  }
}
