package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The warm pool's refill thread leaves an empty pool to the runs in flight only while they keep the
 * cores busy: runs that wait for a tool, as many as the machine has processors, own the pool's
 * replacements but use no CPU, so the refill thread makes the next run's context meanwhile.
 */
class WarmPoolRefillTest {
  @Test
  void runsWaitingForATool_asManyAsTheCores_doNotKeepThePoolEmpty() throws Exception {
    int cores = Runtime.getRuntime().availableProcessors();
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger waiting = new AtomicInteger();
    Tool slow = Tool.builder("slow").timeout(Duration.ofMinutes(2)).handler(args -> {
      waiting.incrementAndGet();
      release.await();
      return "done";
    }).build();
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT).toBuilder().allowTools("slow")
        .limits(Limits.builder().wallTime(Duration.ofMinutes(2)).build()).build();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).tool(slow).warmContexts(1).build()) {
      awaitPool(sandbox, 1);
      List<CompletableFuture<ExecutionResult>> runs = new ArrayList<>();
      try {
        for (int i = 1; i <= cores; i++) {
          // Each run takes the pool's context (refilled meanwhile while fewer runs than cores are running).
          awaitPool(sandbox, 1);
          runs.add(sandbox.runAsync(Script.of(Language.JAVASCRIPT, "tools.slow()")));
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
          while (waiting.get() < i && System.nanoTime() < deadline) {
            Thread.sleep(10);
          }
          assertThat(waiting.get()).as("runs waiting in the tool").isEqualTo(i);
        }
        assertThat(sandbox.runningRuns()).isEqualTo(cores);
        // Every run owes the pool a context, and as many run as there are cores; but none uses one.
        awaitPool(sandbox, 1);
      } finally {
        release.countDown();
      }
      for (CompletableFuture<ExecutionResult> run : runs) {
        ExecutionResult r = run.get(60, TimeUnit.SECONDS);
        assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.OK);
        assertThat(r.value()).isEqualTo("done");
      }
    }
  }

  private static void awaitPool(PolyglotSandbox sandbox, int contexts) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (sandbox.warmContexts(Language.JAVASCRIPT) < contexts && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(sandbox.warmContexts(Language.JAVASCRIPT)).as("contexts ready in the pool").isEqualTo(contexts);
  }
}
