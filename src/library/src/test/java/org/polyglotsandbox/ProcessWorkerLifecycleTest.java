package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.PolyglotSandbox.Isolation;

/**
 * Workers from start to end: retired after their runs, shared by concurrent runs, cancelled runs and a
 * closed sandbox answered at once, a sandbox that starts in the background.
 */
@Tag("slow")
class ProcessWorkerLifecycleTest {
  private static final Policy POLICY = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
      .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxStatements(Long.MAX_VALUE).build()).build();

  @Test
  void aWorkerIsRetiredAfterItsRuns_andAnotherTakesTheNext() {
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(POLICY)
        .isolation(Isolation.processBuilder().workers(1).spareWorkers(0).maxRunsPerWorker(2).build()).build()) {
      Set<Long> pids = new HashSet<>();
      for (int i = 0; i < 5; i++) {
        ExecutionResult r = sandbox.run(Language.JAVASCRIPT, "6 * " + i);
        assertThat(r.value()).isEqualTo(6L * i);
        pids.addAll(workerPids());
      }
      assertThat(pids).as("worker JVMs seen over five runs of two per worker").hasSizeGreaterThanOrEqualTo(3);
    }
  }

  @Test
  void runsPerWorker_shareOneWorker() throws Exception {
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(POLICY)
        .isolation(Isolation.processBuilder().workers(1).spareWorkers(0).runsPerWorker(3).build()).build()) {
      List<CompletableFuture<ExecutionResult>> runs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        runs.add(sandbox.runAsync(Language.PYTHON, "import time\ntime.sleep(1)\n" + i));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (sandbox.runningRuns() < 3 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(sandbox.runningRuns()).as("three runs at once on one worker").isEqualTo(3);
      assertThat(workerPids()).hasSize(1);
      for (int i = 0; i < 3; i++) {
        assertThat(runs.get(i).get(60, TimeUnit.SECONDS).value()).isEqualTo((long) i);
      }
    }
  }

  @Test
  void cancellingARunsFuture_endsItsGuest_andTheWorkerServesOn() throws Exception {
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(POLICY)
        .isolation(Isolation.processBuilder().workers(1).spareWorkers(0).build()).build()) {
      CompletableFuture<ExecutionResult> run = sandbox.runAsync(Language.JAVASCRIPT, "for (;;) {}");
      while (sandbox.runningRuns() == 0) {
        Thread.sleep(10);
      }
      List<Long> before = workerPids();
      run.cancel(true);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (sandbox.runningRuns() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(sandbox.runningRuns()).as("the worker answered the cancel").isZero();
      assertThat(sandbox.run(Language.JAVASCRIPT, "6 * 7").value()).isEqualTo(42L);
      assertThat(workerPids()).as("the same worker, not a replacement").isEqualTo(before);
    }
  }

  @Test
  void closingTheSandbox_answersItsRunningRun_andEndsItsWorkers() throws Exception {
    PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(POLICY)
        .isolation(Isolation.processBuilder().workers(1).spareWorkers(1).build()).build();
    CompletableFuture<ExecutionResult> run = sandbox.runAsync(Language.PYTHON, "while True:\n    pass");
    while (sandbox.runningRuns() == 0) {
      Thread.sleep(10);
    }
    sandbox.close();
    ExecutionResult r = run.get(10, TimeUnit.SECONDS);
    assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(r.errorMessage()).contains("the sandbox was closed");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!workerPids().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(workerPids()).isEmpty();
    assertThatThrownBy(() -> sandbox.run(Language.PYTHON, "1")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void startInBackground_returnsAtOnce_andRunsWaitForTheFirstWorker() throws Exception {
    long start = System.nanoTime();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(POLICY).startInBackground()
        .isolation(Isolation.processBuilder().workers(1).spareWorkers(0).build()).build()) {
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      assertThat(sandbox.run(Language.JAVASCRIPT, "6 * 7").value()).isEqualTo(42L);
      assertThat(sandbox.started().toCompletableFuture().isDone()).isTrue();
    }
  }

  /** The worker JVMs below this one. */
  private static List<Long> workerPids() {
    return ProcessHandle.current().descendants().filter(p -> p.info().command().orElse("").endsWith("/java"))
        .map(ProcessHandle::pid).sorted().toList();
  }
}
