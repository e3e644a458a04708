package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.polyglotsandbox.PolyglotSandbox.Isolation;

/**
 * What process isolation stops that the in-process engine room cannot: guests inside builtins that poll
 * no safepoint, workers killed from outside or frozen. Each ends with an answer at once and the next run
 * goes to a healthy worker.
 */
@Tag("slow")
class ProcessHardStopsTest {
  private static final Duration CPU_CAP = Duration.ofSeconds(2);
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(CPU_CAP).maxStatements(Long.MAX_VALUE)
            // Past any worker's heap: the worker's allocation cap never ends a run first, the process tier does.
            .maxAllocatedBytes(16L << 30).build())
        .build();
    sandbox = PolyglotSandbox.builder().policy(policy)
        .startTimeout(Duration.ofMinutes(5)) // a replacement worker may take long to start on a loaded machine
        .isolation(Isolation.processBuilder().workers(1).spareWorkers(1)
            .silenceTimeout(Duration.ofSeconds(3)).build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  /** The deep-recursion bomb that in-process can go seconds past its CPU cap (docs/limits.md). */
  @Test
  void repeatedStackOverflow_endsWithinTheCpuCapPlusOneSecond_twentyTimesInTwenty() {
    String bomb = "function f(n) { return f(n + 1) + 1; } for (;;) { try { f(0); } catch (e) { } }";
    for (int i = 0; i < 20; i++) {
      ExecutionResult r = sandbox.run(Language.JAVASCRIPT, bomb);
      assertThat(r.outcome()).as("run %d: %s", i, r).isEqualTo(Outcome.LIMIT_EXCEEDED);
      assertThat(r.limit()).as("run %d", i).contains(Limit.CPU_TIME);
      assertThat(r.usage().cpuTime()).as("run %d: %s", i, r.usage()).isLessThanOrEqualTo(CPU_CAP.plusSeconds(1));
    }
    assertThat(sandbox.run(Language.JAVASCRIPT, "6 * 7").value()).isEqualTo(42L);
  }

  /** Single operations on huge integers: no safepoint poll inside them, so only the process kill stops them. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "JAVASCRIPT | (3n ** (10n ** 8n)) > 0n",
      "JAVASCRIPT | String(1n << 100000000n).length",
      "PYTHON     | int('f' * 3000000, 16) > 0",
      "PYTHON     | 10 ** 10 ** 8 > 0",
      "PYTHON     | len(list(__import__('itertools').product(range(100), repeat=6)))"})
  void uncancellableBuiltin_isKilledPastItsCap_andTheNextRunSucceeds(Language language, String code) {
    ExecutionResult r = sandbox.run(language, code);
    assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.LIMIT_EXCEEDED);
    // Whichever the worker passes first, its CPU cap or its heap (a huge power's intermediate numbers), the
    // host's kill ends it; in-process, it ran on past the cap until it was done.
    assertThat(r.limit().orElseThrow()).as(r.toString()).isIn(Limit.CPU_TIME, Limit.MEMORY);
    assertThat(r.events()).anySatisfy(e -> assertThat(e.layer()).isEqualTo(Layer.PROCESS_ISOLATION));
    assertThat(r.usage().cpuTime()).isLessThanOrEqualTo(CPU_CAP.plusSeconds(1));
    assertThat(r.errorMessage()).hasValueSatisfying(m -> assertThat(m).contains("worker").doesNotContain("/"));
    ExecutionResult next = sandbox.run(language, "6 * 7");
    assertThat(next.value()).isEqualTo(42L);
  }

  @Test
  void sigkillToTheWorker_answersItsRunWithinTwoSeconds_andTheNextRunSucceeds() throws Exception {
    CompletableFuture<ExecutionResult> running = sandbox.runAsync(Language.PYTHON, "import time\ntime.sleep(50)");
    while (sandbox.runningRuns() == 0) {
      Thread.sleep(10);
    }
    Thread.sleep(500);
    // Every worker, the spare too: whichever has the run, it dies.
    List<ProcessHandle> workers = ProcessHandle.current().descendants()
        .filter(p -> p.info().command().orElse("").endsWith("/java")).toList();
    assertThat(workers).isNotEmpty();
    long killed = System.nanoTime();
    workers.forEach(ProcessHandle::destroyForcibly);
    ExecutionResult r = running.get(10, TimeUnit.SECONDS);
    Duration answered = Duration.ofNanos(System.nanoTime() - killed);
    assertThat(answered).isLessThan(Duration.ofSeconds(2));
    assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(r.errorMessage()).hasValueSatisfying(m -> assertThat(m).contains("worker process ended"));
    assertThat(sandbox.run(Language.PYTHON, "6 * 7").value()).isEqualTo(42L);
  }

  @Test
  void frozenWorker_isHeldDeadAfterItsSilence_andReplaced() throws Exception {
    CompletableFuture<ExecutionResult> running = sandbox.runAsync(Language.JAVASCRIPT, "for (;;) {}");
    ProcessHandle worker = busyWorker();
    new ProcessBuilder("kill", "-STOP", Long.toString(worker.pid())).start().waitFor();
    ExecutionResult r = running.get(20, TimeUnit.SECONDS);
    assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.CANCELLED);
    assertThat(r.errorMessage()).hasValueSatisfying(m -> assertThat(m).contains("sent nothing"));
    assertThat(sandbox.run(Language.JAVASCRIPT, "6 * 7").value()).isEqualTo(42L);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "JAVASCRIPT | let a = []; for (;;) { a.push(new Array(100000).fill(1.5)); }",
      "PYTHON     | a = []@while True:@    a.append(bytearray(1 << 20))"})
  void workerHeapRunningOut_endsTheRunOnMemory(Language language, String code) {
    // The run's allocation cap is far above the worker's heap: the worker's own heap runs out first.
    Policy policy = Policy.computeOnly(language).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxAllocatedBytes(8L << 30).build()).build();
    try (PolyglotSandbox small = PolyglotSandbox.builder().policy(policy)
        .isolation(Isolation.processBuilder().workers(1).spareWorkers(0).workerHeapBytes(256L << 20).build())
        .build()) {
      ExecutionResult r = small.run(language, code.replace('@', '\n'));
      assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.LIMIT_EXCEEDED);
      assertThat(r.limit()).contains(Limit.MEMORY);
      assertThat(small.run(language, "6 * 7").value()).isEqualTo(42L);
    }
  }

  /** The worker JVM that has a run: the one whose thread CPU grows, found among this JVM's children. */
  private static ProcessHandle busyWorker() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      List<ProcessHandle> workers = ProcessHandle.current().descendants()
          .filter(p -> p.info().command().orElse("").endsWith("/java")).toList();
      for (ProcessHandle p : workers) {
        java.util.Optional<Duration> before = p.info().totalCpuDuration();
        Thread.sleep(300);
        java.util.Optional<Duration> after = p.info().totalCpuDuration();
        if (before.isPresent() && after.isPresent() && after.get().minus(before.get()).toMillis() > 200) {
          return p;
        }
      }
    }
    throw new AssertionError("no busy worker process found");
  }
}
