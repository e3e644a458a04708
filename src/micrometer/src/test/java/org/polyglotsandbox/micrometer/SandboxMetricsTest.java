package org.polyglotsandbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.Script;

/**
 * The meters count every run by language, outcome and limit, time it, and count its tool calls and denials,
 * with tags from fixed sets only; in JavaScript and Python alike.
 */
class SandboxMetricsTest {
  private static PolyglotSandbox sandbox;
  private SimpleMeterRegistry registry;
  private SandboxMetrics metrics;

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
    registry = new SimpleMeterRegistry();
    metrics = SandboxMetrics.bind(sandbox, registry);
  }

  @AfterEach
  void unbind() {
    metrics.close();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void okRun_isCountedAndTimed_byLanguage(Language language) {
    ExecutionResult r = sandbox.run(language, "6 * 7");
    assertThat(r.outcome()).isEqualTo(Outcome.OK);

    assertThat(runs(language, "ok", "none")).isEqualTo(1);
    Timer duration = registry.get(SandboxMetrics.RUN_DURATION).tags("language", language.id(), "outcome", "ok").timer();
    assertThat(duration.count()).isEqualTo(1);
    assertThat(duration.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(r.usage().wallTime().toNanos());
    Timer queue = registry.get(SandboxMetrics.QUEUE_DURATION).tags("language", language.id()).timer();
    assertThat(queue.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(r.usage().queueTime().toNanos());
    Timer setup = registry.get(SandboxMetrics.SETUP_DURATION).tags("language", language.id()).timer();
    assertThat(setup.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(r.usage().setupTime().toNanos());
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void guestErrorAndSyntaxError_areCountedByOutcome(Language language) {
    sandbox.run(language, language == Language.JAVASCRIPT ? "throw new Error('no')" : "raise ValueError('no')");
    sandbox.run(language, language == Language.JAVASCRIPT ? "let = ;" : "def (:");

    assertThat(runs(language, "guest_error", "none")).isEqualTo(1);
    assertThat(runs(language, "syntax_error", "none")).isEqualTo(1);
    assertThat(runs(language, "ok", "none")).isZero();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void limitExceeded_isCountedWithItsLimit(Language language) {
    ExecutionResult r = sandbox.run(Script.of(language, language == Language.JAVASCRIPT ? "while (true) {}"
        : "while True:\n    pass").withLimits(Limits.builder().maxStatements(10_000).build()));
    assertThat(r.outcome()).isEqualTo(Outcome.LIMIT_EXCEEDED);

    assertThat(runs(language, "limit_exceeded", "statements")).isEqualTo(1);
    assertThat(registry.get(SandboxMetrics.RUN_DURATION).tags("outcome", "limit_exceeded").timer().count())
        .isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void deniedOperation_isCountedByOperationAndLayer(Language language) {
    ExecutionResult r = sandbox.run(language, language == Language.JAVASCRIPT
        ? "readText('/etc/passwd')" : "open('/etc/passwd').read()");
    SandboxEvent.DeniedOperation denied = r.deniedOperations().get(0);

    assertThat(registry.get(SandboxMetrics.DENIED_OPERATIONS)
        .tags("operation", "file.read", "layer", denied.layer().id()).counter().count()).isEqualTo(1);
    // The target is in no tag.
    assertThat(registry.getMeters()).allSatisfy(m -> assertThat(m.getId().getTags())
        .noneMatch(t -> t.getValue().contains("passwd")));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void toolCalls_areTimedByToolAndStatus_withoutTheirArguments(Language language) {
    ExecutionResult r = sandbox.run(language, language == Language.JAVASCRIPT
        ? "const attempt = (f) => { try { return f() } catch (x) { return x.code } };\n"
            + "[attempt(() => tools.add({a: 2, b: 3})), attempt(() => tools.add({a: 'secret-arg'})),"
            + " attempt(() => tools.refuse({}))]"
        : "def attempt(f):\n    try:\n        return f()\n    except ToolError as x:\n        return x.code\n"
            + "[attempt(lambda: tools.add({'a': 2, 'b': 3})), attempt(lambda: tools.add({'a': 'secret-arg'})),"
            + " attempt(lambda: tools.refuse({}))]");
    assertThat(r.value()).isEqualTo(List.of(5L, "invalid_arguments", "failed"));
    assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.OK);

    Timer ok = registry.get(SandboxMetrics.TOOL_CALLS).tags("tool", "add", "status", "ok").timer();
    assertThat(ok.count()).isEqualTo(1);
    assertThat(ok.totalTime(TimeUnit.NANOSECONDS)).isPositive();
    assertThat(registry.get(SandboxMetrics.TOOL_CALLS).tags("tool", "add", "status", "invalid_arguments").timer()
        .count()).isEqualTo(1);
    assertThat(registry.get(SandboxMetrics.TOOL_CALLS).tags("tool", "refuse", "status", "failed").timer().count())
        .isEqualTo(1);
    assertThat(registry.getMeters()).allSatisfy(m -> assertThat(m.getId().getTags())
        .noneMatch(t -> t.getValue().contains("secret")));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void outputRejected_isCountedByOutcome_andAsADenialAtTheOutputBoundary(Language language) {
    ExecutionResult r = sandbox.run(Script.of(language, language == Language.JAVASCRIPT ? "'x'.repeat(100)" : "'x' * 100")
        .withLimits(Limits.builder().maxResultStringLength(10).build()));
    assertThat(r.outcome()).isEqualTo(Outcome.OUTPUT_REJECTED);

    assertThat(runs(language, "output_rejected", "none")).isEqualTo(1);
    assertThat(registry.get(SandboxMetrics.DENIED_OPERATIONS).tags("operation", "output.write", "layer", "output-boundary")
        .counter().count()).isEqualTo(1);
  }

  @Test
  void runCancelledWhileItRuns_isCountedAsCancelled() throws Exception {
    Sandboxes.HELD.set(new CountDownLatch(1));
    try {
      CompletableFuture<ExecutionResult> held = sandbox.runAsync(Language.JAVASCRIPT, "tools.hold({})");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (sandbox.runningRuns() < 1 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(held.cancel(true)).isTrue();
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (runs(Language.JAVASCRIPT, "cancelled", "none") < 1 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(runs(Language.JAVASCRIPT, "cancelled", "none")).isEqualTo(1);
    } finally {
      Sandboxes.HELD.get().countDown();
    }
  }

  @Test
  void gauges_readRunningWaitingAndWarmContexts_andNoWorkersInProcess() throws Exception {
    assertThat(registry.get(SandboxMetrics.RUNNING).gauge().value()).isZero();
    assertThat(registry.get(SandboxMetrics.WAITING).gauge().value()).isZero();
    assertThat(registry.find(SandboxMetrics.WARM_CONTEXTS).gauges()).extracting(g -> g.getId().getTag("language"))
        .containsExactlyInAnyOrder("js", "python");
    assertThat(registry.find(SandboxMetrics.READY_WORKERS).gauge()).isNull();

    Sandboxes.HELD.set(new CountDownLatch(1));
    CompletableFuture<ExecutionResult> held = sandbox.runAsync(Language.JAVASCRIPT, "tools.hold({})");
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (registry.get(SandboxMetrics.RUNNING).gauge().value() < 1 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(registry.get(SandboxMetrics.RUNNING).gauge().value()).isEqualTo(1);
    } finally {
      Sandboxes.HELD.get().countDown();
    }
    assertThat(held.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.OK);
  }

  @Test
  void runRefusedForWantOfRoom_isCountedAsRejected() throws Exception {
    try (PolyglotSandbox small = Sandboxes.withTools(PolyglotSandbox.builder().maxConcurrentRuns(1).maxWaitingRuns(0))
        .build(); SandboxMetrics m = SandboxMetrics.bind(small, registry)) {
      Sandboxes.HELD.set(new CountDownLatch(1));
      CompletableFuture<ExecutionResult> held = small.runAsync(Language.JAVASCRIPT, "tools.hold({})");
      try {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (small.runningRuns() < 1 && System.nanoTime() < deadline) {
          Thread.sleep(5);
        }
        assertThatThrownBy(() -> small.run(Language.JAVASCRIPT, "1")).isInstanceOf(RejectedExecutionException.class);
      } finally {
        Sandboxes.HELD.get().countDown();
      }
      held.get(30, TimeUnit.SECONDS);
      // Both sandboxes count into the same meters here; the test's shared sandbox ran nothing.
      assertThat(runs(Language.JAVASCRIPT, "rejected", "none")).isEqualTo(1);
      assertThat(runs(Language.JAVASCRIPT, "ok", "none")).isEqualTo(1);
    }
  }

  @Test
  void close_stopsCounting_andRemovesTheMeters() {
    sandbox.run(Language.JAVASCRIPT, "1");
    assertThat(registry.getMeters()).isNotEmpty();
    metrics.close();
    assertThat(registry.getMeters()).isEmpty();
    sandbox.run(Language.JAVASCRIPT, "1");
    assertThat(registry.getMeters()).isEmpty();
  }

  @Test
  void everyTagValue_comesFromAFixedSet() {
    for (Language language : Language.values()) {
      sandbox.run(language, "1");
      sandbox.run(language, language == Language.JAVASCRIPT ? "readText('/etc/shadow')" : "open('/etc/shadow').read()");
      sandbox.run(language, language == Language.JAVASCRIPT ? "tools.add({a: 'secret'})" : "tools.add({'a': 'secret'})");
    }
    Set<String> allowed = new HashSet<>(List.of("rejected", "cancelled", "failed", "none", "add", "refuse", "hold", "trace"));
    Arrays.stream(Language.values()).map(Language::id).forEach(allowed::add);
    Arrays.stream(Outcome.values()).map(o -> o.name().toLowerCase(Locale.ROOT)).forEach(allowed::add);
    Arrays.stream(Limit.values()).map(Limit::id).forEach(allowed::add);
    Arrays.stream(Layer.values()).map(Layer::id).forEach(allowed::add);
    Arrays.stream(Operation.values()).map(Operation::id).forEach(allowed::add);
    Arrays.stream(SandboxEvent.ToolCall.Status.values()).map(o -> o.name().toLowerCase(Locale.ROOT))
        .forEach(allowed::add);
    for (Meter meter : registry.getMeters()) {
      meter.getId().getTags().forEach(t -> assertThat(t.getValue()).as(meter.getId().toString()).isIn(allowed));
    }
  }

  @Test
  void percentiles_canBeConfigured_andWrongOnesAreRefusedByValue() {
    metrics.close();
    try (SandboxMetrics m = SandboxMetrics.builder().publishPercentiles(0.5, 0.99).tag("sandbox", "plugins")
        .bind(sandbox, registry)) {
      sandbox.run(Language.JAVASCRIPT, "1");
      Timer t = registry.get(SandboxMetrics.RUN_DURATION).tags("sandbox", "plugins").timer();
      assertThat(t.takeSnapshot().percentileValues()).hasSize(2);
    }
    assertThatThrownBy(() -> SandboxMetrics.builder().publishPercentiles(1.5))
        .hasMessageContaining("1.5");
    assertThatThrownBy(() -> SandboxMetrics.builder().tag("outcome", "x")).hasMessageContaining("outcome");
  }

  private double runs(Language language, String outcome, String limit) {
    var c = registry.find(SandboxMetrics.RUNS).tags("language", language.id(), "outcome", outcome, "limit", limit)
        .counter();
    return c == null ? 0 : c.count();
  }

}
