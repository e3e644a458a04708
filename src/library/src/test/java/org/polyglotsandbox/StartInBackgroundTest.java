package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link PolyglotSandbox.Builder#startInBackground()}: {@code build()} returns before the warm-up, what
 * needs no guest code works at once, runs wait for the warm-up, and closing the sandbox stops it.
 */
class StartInBackgroundTest {
  private static final Policy BOTH = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON);

  @Test
  void build_returnsBeforeTheWarmUp_andARunWaitsForIt() throws Exception {
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(BOTH).startInBackground().build()) {
      CompletableFuture<Void> started = sandbox.started().toCompletableFuture();
      // The Python warm-up alone is several fresh contexts: seconds, never done by the time build() returns.
      assertThat(started).as("warm-up still going when build() returned").isNotDone();
      assertThat(sandbox.describeForModel(Language.PYTHON)).contains("Python");

      ExecutionResult r = sandbox.run(Language.PYTHON, "6*7");

      assertThatRun(r).hasValue(42L);
      assertThat(started).as("the run waited for the warm-up").isCompleted();
      assertThat(r.usage().queueTime()).as("the wait is queue time").isPositive();
    }
  }

  @Test
  void runAsync_beforeTheWarmUpEnds_completesAfterIt() throws Exception {
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(BOTH).startInBackground().build()) {
      CompletableFuture<ExecutionResult> js = sandbox.runAsync(Language.JAVASCRIPT, "6*7");
      CompletableFuture<ExecutionResult> cancelled = sandbox.runAsync(Language.PYTHON, "6*7");
      cancelled.cancel(true);

      assertThatRun(js.get(3, TimeUnit.MINUTES)).hasValue(42L);
      assertThat(sandbox.started().toCompletableFuture()).isCompleted();
      assertThat(cancelled).isCancelled();
      assertThatRun(sandbox.run(Language.PYTHON, "6*7")).hasValue(42L);
    }
  }

  @Test
  void close_duringTheWarmUp_stopsIt_andRunsAreRefused() {
    PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(BOTH).startInBackground()
        .warmUp(Duration.ofMinutes(5)).warmContexts(1).build();
    CompletableFuture<ExecutionResult> waiting = sandbox.runAsync(Language.JAVASCRIPT, "6*7");
    assertThat(sandbox.started().toCompletableFuture()).as("a 5-minute warm-up still going").isNotDone();
    long t0 = System.nanoTime();

    sandbox.close();

    assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("close() did not wait for a 5-minute warm-up")
        .isLessThan(Duration.ofSeconds(30));
    assertThat(Thread.getAllStackTraces().keySet()).as("no start thread left")
        .noneMatch(t -> t.getName().startsWith("polyglot-sandbox-start-") && t.isAlive());
    assertThatThrownBy(() -> sandbox.started().toCompletableFuture().join())
        .isInstanceOf(CompletionException.class).hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("sandbox is closed");
    assertThatThrownBy(waiting::join).hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> sandbox.run(Language.JAVASCRIPT, "6*7")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("sandbox is closed");
  }

  @Test
  void startInBackground_withSingleRun_isRefused() {
    assertThatThrownBy(() -> PolyglotSandbox.builder().policy(BOTH).singleRun().startInBackground().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("singleRun() cannot be combined with startInBackground()");
  }

  @Test
  void withoutStartInBackground_startedIsCompleteWhenBuildReturns() {
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT)).build()) {
      assertThat(sandbox.started().toCompletableFuture()).isCompleted();
    }
  }
}
