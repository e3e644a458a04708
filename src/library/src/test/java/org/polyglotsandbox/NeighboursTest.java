package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Well-behaved tasks share a sandbox with hostile ones running at the same time, and still finish with
 * the right answers while the hostile ones are stopped by their caps.
 */
@Tag("slow")
class NeighboursTest {
  @Test
  void wellBehavedTasks_finishCorrectly_besideHostileOnes() throws Exception {
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().maxStatements(Long.MAX_VALUE).wallTime(Duration.ofSeconds(30))
            .maxCpuTime(Duration.ofSeconds(3)).maxAllocatedBytes(256L << 20).build())
        .build();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).build();
        ExecutorService pool = Executors.newFixedThreadPool(6)) {
      List<Future<ExecutionResult>> hostile = new ArrayList<>();
      hostile.add(pool.submit(() -> sandbox.run(Language.JAVASCRIPT, "for (;;) {}")));
      hostile.add(pool.submit(() -> sandbox.run(Language.JAVASCRIPT,
          "let keep = []; for (;;) keep.push(new Array(1e5).fill(0.5));")));
      hostile.add(pool.submit(() -> sandbox.run(Language.PYTHON, "x = 0\nwhile True:\n    x += 1")));
      List<Future<ExecutionResult>> wellBehaved = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        int n = i;
        wellBehaved.add(pool.submit(() -> sandbox.run(n % 4 == 0 ? Language.PYTHON : Language.JAVASCRIPT,
            n % 4 == 0 ? "sum(i * i % 7 for i in range(" + (1000 + n) + "))"
                : "let s = 0; for (let i = 0; i < " + (1000 + n) + "; i++) s += i * i % 7; s")));
      }
      for (int i = 0; i < wellBehaved.size(); i++) {
        long expected = 0;
        for (long k = 0; k < 1000 + i; k++) {
          expected += k * k % 7;
        }
        assertThatRun(wellBehaved.get(i).get()).hasValue(expected);
      }
      for (Future<ExecutionResult> h : hostile) {
        ExecutionResult r = h.get();
        assertThatRun(r).hasOutcome(Outcome.LIMIT_EXCEEDED);
        assertThat(r.limit()).get().isIn(Limit.CPU_TIME, Limit.MEMORY);
      }
    }
  }
}
