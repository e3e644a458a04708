package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An inline tool handler that ignores interrupts must not hold the shared watchdog thread in
 * {@code Context.close(true)}, where it would keep an unrelated run's deadline from firing: contexts are
 * closed on threads of their own, and the watchdog keeps every other run's limits.
 */
@Tag("slow")
class StuckInlineHandlerTest {
  @Test
  void aHandlerThatIgnoresInterrupts_delaysNoOtherRunsDeadline() throws Exception {
    CountDownLatch inHandler = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    // The tool's own timeout far away: the only interrupt the handler gets is its run's deadline.
    Tool stuck = stuckTool(inHandler, release, Duration.ofMinutes(10), interrupted);
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(1)).maxStatements(Long.MAX_VALUE)
            .maxCpuTime(Duration.ofMinutes(5)).build()) // only the deadline may stop the loop
        .allowTools("blk").build();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).tool(stuck).build()) {
      CompletableFuture<ExecutionResult> blocked = sandbox.runAsync(Language.JAVASCRIPT, "tools.blk()");
      try {
        assertThat(inHandler.await(60, TimeUnit.SECONDS)).isTrue();
        // The blocked run's deadline fired and its cancellation reached the handler, which swallowed it: the
        // cancellation now waits on the handler (the old code waited on the watchdog's thread).
        assertThat(interrupted.await(60, TimeUnit.SECONDS)).as("the blocked run was cancelled at its deadline")
            .isTrue();

        CompletableFuture<ExecutionResult> loop = sandbox.runAsync(Language.JAVASCRIPT, "while (true) {}");

        // Its 1 s deadline; with the watchdog held, it was never stopped at all (its CPU cap is 5 minutes).
        assertThat(loop).succeedsWithin(Duration.ofSeconds(60)).satisfies(r -> {
          assertThat(r.outcome()).isEqualTo(Outcome.LIMIT_EXCEEDED);
          assertThat(r.limit()).hasValue(Limit.WALL_TIME);
        });
      } finally {
        release.countDown(); // so that a failure above does not also hang the sandbox's close
      }
      assertThat(blocked.get(30, TimeUnit.SECONDS).limit()).hasValue(Limit.WALL_TIME);
    }
  }

  /** The same handler must not hold the sandbox's {@code close()}: the stuck run is abandoned, reported. */
  @Test
  void aHandlerThatIgnoresInterrupts_doesNotHoldClose() throws Exception {
    CountDownLatch inHandler = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Tool stuck = stuckTool(inHandler, release, Duration.ofMillis(200), new CountDownLatch(1));
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofMinutes(5)).maxCpuTime(Duration.ofMinutes(5)).build())
        .allowTools("blk").build();
    PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).tool(stuck).build();
    CompletableFuture<ExecutionResult> blocked = sandbox.runAsync(Language.JAVASCRIPT, "tools.blk()");
    try {
      assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Void> closing = CompletableFuture.runAsync(sandbox::close);
      // The run's own grace after a cancel is 5 s; close() may wait for it, never for the handler.
      assertThat(closing).succeedsWithin(Duration.ofSeconds(30));
      assertThat(blocked).succeedsWithin(Duration.ofSeconds(10))
          .satisfies(r -> assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED));
    } finally {
      release.countDown();
    }
  }

  /**
   * A guest stopped by its CPU cap that does not stop (here: held in an inline handler that spins and
   * ignores interrupts) is abandoned 5 s after the cap stopped it, not 5 s after its deadline: under a
   * 60 s wall time its caller waits for a 1 s cap and the 5 s grace, never 65 s. Both languages at once.
   */
  @Tag("slow")
  @Test
  void aGuestThatIgnoresItsCpuCap_isAbandonedTheGraceAfterTheCap_notAfterItsDeadline() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Tool spin = Tool.builder("spin").inline().timeout(Duration.ofMinutes(5)).handler(args -> {
      while (release.getCount() > 0) {
        Thread.onSpinWait(); // burns CPU, never looks at its interrupt
      }
      return "released";
    }).build();
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(1)).build())
        .allowTools("spin").build();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).tool(spin).build()) {
      long start = System.nanoTime();
      CompletableFuture<ExecutionResult> js = sandbox.runAsync(Language.JAVASCRIPT, "tools.spin()");
      CompletableFuture<ExecutionResult> py = sandbox.runAsync(Language.PYTHON, "tools.spin()");
      try {
        for (CompletableFuture<ExecutionResult> run : List.of(js, py)) {
          // 1 s of CPU (a few seconds of wall time on a busy machine), then the 5 s grace; never 65 s.
          assertThat(run).succeedsWithin(Duration.ofSeconds(30)).satisfies(r -> {
            assertThat(r.outcome()).isEqualTo(Outcome.LIMIT_EXCEEDED);
            assertThat(r.limit()).hasValue(Limit.CPU_TIME);
          });
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
      } finally {
        release.countDown();
      }
    }
  }

  /**
   * An inline tool whose handler ignores every interrupt until {@code release} opens; {@code interrupted}
   * is counted down at the first one.
   */
  private static Tool stuckTool(CountDownLatch inHandler, CountDownLatch release, Duration timeout,
      CountDownLatch interrupted) {
    return Tool.builder("blk").inline().timeout(timeout).handler(args -> {
      inHandler.countDown();
      while (true) {
        try {
          if (release.await(10, TimeUnit.SECONDS)) {
            return "released";
          }
        } catch (InterruptedException ignored) {
          interrupted.countDown(); // a handler that swallows every interrupt
        }
      }
    }).build();
  }
}
