package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/**
 * GraalPy's {@code python-actions-pool-N-thread-M} threads stay bounded (in one load run they grew from
 * 19 to 63). In GraalPy 25.0.3 (read from its sources) each context owns a scheduled pool of up
 * to {@value #THREADS_PER_CONTEXT} threads for its periodic actions (weak-reference callbacks,
 * finalizers, signal handlers, the GIL), shut down when the context closes. Their number is therefore
 * bounded by the sandbox's live Python contexts (the runs running, the warm pool, and the contexts their
 * run threads are still closing), and they end with them. Neither way to remove them is open: the
 * per-context {@code python.NoAsyncActions} is refused under the CONSTRAINED policy, and the JVM-wide
 * {@code -Dpython.AutomaticAsyncActions=false} makes every context log a SEVERE warning that the embedder
 * must poll for the actions itself, which it cannot without polyglot bindings access. This test holds
 * the sandbox to the bound under bursts that make three times as many contexts, and checks the threads end once the runs and the sandbox are gone.
 */
@Tag("slow")
class PythonActionThreadsTest {
  private static final int RUNS_AT_ONCE = 4;
  private static final int WARM = 1;
  private static final int THREADS_PER_CONTEXT = 6;
  /** This test counts threads, not time: limits loose enough for a loaded machine. */
  private static final Limits SLACK = Limits.builder().wallTime(Duration.ofSeconds(120))
      .maxCpuTime(Duration.ofSeconds(120)).build();

  @Test
  void pythonActionThreads_areBoundedByLiveContexts_andEndWithThem() throws Exception {
    int before = actionThreads();
    AtomicInteger most = new AtomicInteger();
    AtomicBoolean sampling = new AtomicBoolean(true);
    Thread sampler = new Thread(() -> {
      while (sampling.get()) {
        most.accumulateAndGet(actionThreads() - before, Math::max);
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "action-thread-sampler");
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.PYTHON)
        .toBuilder().limits(SLACK).build())
        .maxConcurrentRuns(RUNS_AT_ONCE).maxWaitingRuns(64).warmContexts(WARM)
        // 16 runs, 4 at a time, each making a fresh Python context: the last wait for three rounds of set-ups,
        // past the default 30 s on a loaded machine.
        .startTimeout(Duration.ofMinutes(5)).build()) {
      sampler.start();
      for (int round = 0; round < 3; round++) {
        List<CompletableFuture<ExecutionResult>> runs = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
          // An import, a class, a weak reference and garbage: the work GraalPy's async actions serve.
          runs.add(sandbox.runAsync(Language.PYTHON, "import json, weakref\nclass C: pass\nc = C()\n"
              + "r = weakref.ref(c)\ndel c\njson.dumps([list(range(100)) for _ in range(50)])[:1] + str(" + i + ")"));
        }
        for (int i = 0; i < runs.size(); i++) {
          ExecutionResult r = runs.get(i).join();
          assertThat(r.outcome()).as("run %d: %s", i, r.errorMessage()).isEqualTo(Outcome.OK);
          assertThat(r.value()).isEqualTo("[" + i);
        }
      }
      sampling.set(false);
      sampler.join();
      // 48 contexts were made; a closing context may briefly outlive the next one on its run thread.
      int liveContexts = 2 * RUNS_AT_ONCE + WARM;
      assertThat(most.get()).as("python-actions-pool threads beyond those before the sandbox")
          .isLessThanOrEqualTo(THREADS_PER_CONTEXT * liveContexts);
      int idle = before + THREADS_PER_CONTEXT * (WARM + 1);
      assertThat(awaitAtMost(idle, Duration.ofSeconds(60)))
          .as("python-actions-pool threads once the runs are over").isLessThanOrEqualTo(idle);
    } finally {
      sampling.set(false);
    }
    assertThat(awaitAtMost(before, Duration.ofSeconds(60))).as("python-actions-pool threads after close()")
        .isLessThanOrEqualTo(before);
  }

  private static int awaitAtMost(int count, Duration within) throws InterruptedException {
    long end = System.nanoTime() + within.toNanos();
    int now = actionThreads();
    while (now > count && System.nanoTime() < end) {
      Thread.sleep(100);
      now = actionThreads();
    }
    return now;
  }

  private static int actionThreads() {
    int n = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("python-actions-pool") && t.isAlive()) {
        n++;
      }
    }
    return n;
  }
}
