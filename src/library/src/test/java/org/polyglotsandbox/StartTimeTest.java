package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guest's limits count from its first statement, not from before the sandbox has made its context
 * (where, under load, trivial Python runs would end {@code LIMIT_EXCEEDED wall_time} with no guest CPU
 * at all). The sandbox's own time before that statement is reported as {@code queueTime} and
 * {@code setupTime} and bounded by the start timeout, past which the run fails with
 * {@link RejectedExecutionException} and its guest never runs.
 */
@Tag("slow")
class StartTimeTest {
  /**
   * The guest's wall time: long enough for its own work (a tool call) on a loaded machine, shorter than
   * {@link #SET_UP}.
   */
  private static final Duration WALL_TIME = Duration.ofSeconds(3);
  /**
   * What the sandbox's set-up takes at least, whatever the machine's speed or load: a module it imports
   * into the run's fresh context before the guest starts sleeps this long.
   */
  private static final Duration SET_UP = Duration.ofSeconds(4);
  /**
   * Binding this input in a fresh Python context (with the context itself) takes about a second on
   * two busy cores: far longer than the start timeout of 50 ms below.
   */
  private static final List<Long> ROWS = LongStream.range(0, 50_000).boxed().toList();

  private static Policy python(Duration wallTime) {
    return Policy.computeOnly(Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(wallTime).build()).allowTools("mark").build();
  }

  /** A tool the guest calls first thing: whether it was called says whether the guest ran. */
  private static Tool mark(AtomicInteger calls) {
    return Tool.builder("mark").handler(args -> calls.incrementAndGet()).build();
  }

  @Test
  void aSetUpLongerThanTheWallTime_doesNotCountAgainstTheGuest(@TempDir Path lib) throws IOException {
    // A set-up longer than the guest's wall time by construction, not by the machine's load: before the
    // fix the guest's deadline ran during it, and the run ended LIMIT_EXCEEDED before its first statement.
    Files.writeString(lib.resolve("slow_start.py"), "import time\ntime.sleep(" + SET_UP.toMillis() / 1000.0 + ")\n");
    Policy policy = python(WALL_TIME).toBuilder().mount(Mount.readOnly(lib, "/lib")).build();
    AtomicInteger calls = new AtomicInteger();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).tool(mark(calls))
        .warmContexts(0).pythonPath("/lib").pythonImports("slow_start").build()) {
      ExecutionResult r = sandbox.run(Script.of(Language.PYTHON, "tools.mark()\nlen(rows)")
          .withInputs(Map.of("rows", ROWS)));

      assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.OK);
      assertThat(r.value()).isEqualTo((long) ROWS.size());
      assertThat(r.usage().setupTime()).as("premise: the set-up alone took longer than the guest may run")
          .isGreaterThanOrEqualTo(SET_UP);
      assertThat(r.usage().wallTime()).isLessThan(WALL_TIME);
      assertThat(r.usage().queueTime()).isLessThan(r.usage().setupTime());
      assertThat(calls).hasValue(1);
    }
  }

  @Test
  void aSetUpPastTheStartTimeout_isRejected_notTheGuestsLimit_andTheGuestNeverRuns() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(python(Duration.ofMinutes(1)))
        .tool(mark(calls)).startTimeout(Duration.ofMillis(50)).build()) {
      Script script = Script.of(Language.PYTHON, "tools.mark()\nlen(rows)").withInputs(Map.of("rows", ROWS));
      long start = System.nanoTime();

      assertThatThrownBy(() -> sandbox.run(script))
          .isInstanceOf(RejectedExecutionException.class)
          .hasMessageStartingWith("the run did not start within its start timeout of 50 ms")
          .hasMessageContaining("the sandbox is overloaded")
          .hasMessageContaining("the guest did not run");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the caller is not held by the set-up")
          .isLessThan(Duration.ofSeconds(10));
      assertThat(sandbox.runningRuns()).as("its turn is free again").isZero();

      CompletableFuture<ExecutionResult> async = sandbox.runAsync(script);
      assertThatThrownBy(() -> async.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(RejectedExecutionException.class).hasMessageContaining("start timeout");

      awaitIdleRunThreads();
      assertThat(calls).as("the guests never started").hasValue(0);
    }
  }

  @Test
  void waitingForATurnPastTheStartTimeout_isRejected() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch holding = new CountDownLatch(1);
    Tool hold = Tool.builder("hold").timeout(Duration.ofMinutes(1)).handler(args -> {
      holding.countDown();
      release.await(60, TimeUnit.SECONDS);
      return null;
    }).build();
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT).toBuilder().allowTools("hold")
        .limits(Limits.builder().wallTime(Duration.ofMinutes(1)).build()).build();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).tool(hold)
        .maxConcurrentRuns(1).maxWaitingRuns(2).startTimeout(Duration.ofSeconds(2)).build()) {
      CompletableFuture<ExecutionResult> holder = sandbox.runAsync(Language.JAVASCRIPT, "tools.hold(); 1");
      try {
        assertThat(holding.await(30, TimeUnit.SECONDS)).as("%s", holder).isTrue();

        assertThatThrownBy(() -> sandbox.run(Language.JAVASCRIPT, "2"))
            .isInstanceOf(RejectedExecutionException.class)
            .hasMessageStartingWith("the run did not start within its start timeout of 2 s (it waited all of it"
                + " for a turn: 1 running, ")
            .hasMessageContaining("the sandbox is overloaded; the guest did not run");
        CompletableFuture<ExecutionResult> waiting = sandbox.runAsync(Language.JAVASCRIPT, "3");
        assertThatThrownBy(() -> waiting.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(RejectedExecutionException.class).hasMessageContaining("for a turn");
        assertThat(sandbox.waitingRuns()).as("the places in the queue are free again").isZero();
      } finally {
        release.countDown();
      }
      ExecutionResult held = holder.get(30, TimeUnit.SECONDS);
      assertThat(held.value()).isEqualTo(1L);
      assertThat(held.usage().wallTime()).as("the guest's own time includes its tool call")
          .isGreaterThan(Duration.ofSeconds(2));
      assertThat(sandbox.run(Language.JAVASCRIPT, "4").value()).isEqualTo(4L);
    }
  }

  /** Waits until no run thread is busy (each is back in its pool's queue), at most a minute. */
  private static void awaitIdleRunThreads() throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < end) {
      boolean busy = Thread.getAllStackTraces().entrySet().stream()
          .filter(e -> e.getKey().getName().startsWith("polyglot-sandbox-run-"))
          .anyMatch(e -> java.util.Arrays.stream(e.getValue()).noneMatch(f -> f.getMethodName().equals("getTask")));
      if (!busy) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("a run thread is still busy after a minute");
  }
}
