package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Many callers, a bounded number of runs at once, a bounded queue, and the warm pool. */
class ConcurrencyTest {
  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  /** A sandbox whose {@code block} tool holds its run until the test releases it. */
  private PolyglotSandbox blockingSandbox(int maxRunning, int maxWaiting) {
    return PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder().allowTools("block")
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).build()).build())
        .tool(Tool.builder("block").timeout(Duration.ofSeconds(60)).handler(args -> {
          entered.countDown();
          release.await();
          return "released";
        }).build())
        .maxConcurrentRuns(maxRunning)
        .maxWaitingRuns(maxWaiting)
        .build();
  }

  private static final Script BLOCKS = Script.of(Language.JAVASCRIPT, "tools.block({})");
  private static final Script QUICK = Script.of(Language.JAVASCRIPT, "6 * 7");

  @Test
  void maxConcurrentRuns_isBounded_becauseEachRunHoldsAPlatformThread() {
    assertThatThrownBy(() -> PolyglotSandbox.builder().maxConcurrentRuns(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxConcurrentRuns (0) must be in [1, 1024]");
    assertThatThrownBy(() -> PolyglotSandbox.builder().maxConcurrentRuns(1025))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxConcurrentRuns (1025) must be in [1, 1024]");
    assertThat(PolyglotSandbox.builder().maxConcurrentRuns(1024)).isNotNull();
  }

  @Test
  void pastTheRunningAndWaitingBounds_aRunIsRefusedAtOnce() throws Exception {
    try (PolyglotSandbox sandbox = blockingSandbox(1, 1)) {
      CompletableFuture<ExecutionResult> running = sandbox.runAsync(BLOCKS);
      assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<ExecutionResult> waiting = sandbox.runAsync(QUICK);
      assertThat(sandbox.runningRuns()).isEqualTo(1);
      assertThat(sandbox.waitingRuns()).isEqualTo(1);
      assertThat(waiting).isNotDone();

      CompletableFuture<ExecutionResult> refused = sandbox.runAsync(QUICK);
      assertThatThrownBy(refused::get).hasCauseInstanceOf(RejectedExecutionException.class)
          .cause().hasMessageContaining("maxConcurrentRuns 1, maxWaitingRuns 1");
      assertThatThrownBy(() -> sandbox.run(QUICK)).isInstanceOf(RejectedExecutionException.class)
          .hasMessageStartingWith("sandbox is busy: 1 runs are running and 1 waiting");

      release.countDown();
      assertThatRun(running.get(60, TimeUnit.SECONDS)).hasValue("released");
      assertThatRun(waiting.get(60, TimeUnit.SECONDS)).hasValue(42L);
      awaitTrue(() -> sandbox.runningRuns() == 0);
      assertThatRun(sandbox.run(QUICK)).hasValue(42L);
    }
  }

  @Test
  void cancellingAQueuedRun_freesItsPlace_andCancellingARunningOne_stopsIt() throws Exception {
    try (PolyglotSandbox sandbox = blockingSandbox(1, 1)) {
      CompletableFuture<ExecutionResult> running = sandbox.runAsync(BLOCKS);
      assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<ExecutionResult> queued = sandbox.runAsync(QUICK);
      assertThat(queued.cancel(true)).isTrue();
      // The place it held is free again.
      CompletableFuture<ExecutionResult> next = sandbox.runAsync(QUICK);
      assertThat(next).isNotDone();

      assertThat(running.cancel(true)).isTrue();
      assertThatThrownBy(running::get).isInstanceOf(CancellationException.class);
      // The guest was stopped (its tool call abandoned), so the queued run gets its turn.
      assertThatRun(next.get(60, TimeUnit.SECONDS)).hasValue(42L);
      release.countDown();
    }
  }

  @Test
  void close_failsWaitingRuns_andStopsRunningOnes() throws Exception {
    PolyglotSandbox sandbox = blockingSandbox(1, 4);
    CompletableFuture<ExecutionResult> running = sandbox.runAsync(BLOCKS);
    assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<ExecutionResult> waiting = sandbox.runAsync(QUICK);
    sandbox.close();
    assertThatThrownBy(() -> waiting.get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
    ExecutionResult stopped = running.get(60, TimeUnit.SECONDS);
    assertThat(stopped.isOk()).isFalse();
    assertThatThrownBy(() -> sandbox.runAsync(QUICK)).isInstanceOf(IllegalStateException.class)
        .hasMessage("sandbox is closed");
    release.countDown();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void manyCallers_eachGetTheirOwnAnswer(Language language) throws Exception {
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(language).toBuilder()
            .limits(Limits.builder().wallTime(Duration.ofSeconds(120)).build()).build())
        .warmContexts(2)
        .maxConcurrentRuns(3)
        .maxWaitingRuns(100)
        .startTimeout(Duration.ofMinutes(2)) // 24 runs, 3 at a time: the last wait long on a busy machine
        .build()) {
      List<CompletableFuture<ExecutionResult>> futures = new ArrayList<>();
      List<Thread> callers = new ArrayList<>();
      List<ExecutionResult> syncResults = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int i = 0; i < 12; i++) {
        Script script = Script.of(language, GuestCode.of(language, "n * 2", "n * 2")).withInputs(Map.of("n", i));
        futures.add(sandbox.runAsync(script));
        int n = 100 + i;
        Thread caller = Thread.ofPlatform().start(() -> syncResults.add(
            sandbox.run(Script.of(language, "n + 0").withInputs(Map.of("n", n)))));
        callers.add(caller);
      }
      for (int i = 0; i < futures.size(); i++) {
        assertThatRun(futures.get(i).get(120, TimeUnit.SECONDS)).hasValue((long) i * 2);
      }
      for (Thread caller : callers) {
        caller.join(Duration.ofSeconds(120));
      }
      assertThat(syncResults).hasSize(12).allMatch(ExecutionResult::isOk);
      assertThat(syncResults.stream().map(ExecutionResult::value).toList())
          .containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.range(100, 112).boxed().toList());
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void warmPool_refillsAfterEachRun_andShutsDownWithTheSandbox(Language language) throws Exception {
    long poolThreadsBefore = poolThreads();
    PolyglotSandbox sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(language))
        .warmContexts(2)
        .warmUp(Duration.ofMillis(1))
        .build();
    try {
      // warmUp(...) makes build() wait for the pool to be full.
      assertThat(sandbox.warmContexts(language)).isEqualTo(2);
      assertThat(poolThreads()).isEqualTo(poolThreadsBefore + 1);
      assertThatRun(sandbox.run(language, "6 * 7")).hasValue(42L);
      awaitTrue(() -> sandbox.warmContexts(language) == 2);
    } finally {
      sandbox.close();
    }
    assertThat(sandbox.warmContexts(language)).isZero();
    assertThat(poolThreads()).isEqualTo(poolThreadsBefore);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aPooledContext_seesMountedFilesAsTheyAreWhenItsRunStarts(Language language, @TempDir Path dir)
      throws Exception {
    Path data = dir.resolve("data.txt");
    Files.writeString(data, "before");
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder()
        .policy(Policy.builder().allowLanguages(language).mount(Mount.readOnly(data, "/data/data.txt")).build())
        .warmContexts(1)
        .warmUp(Duration.ofMillis(1))
        .build()) {
      assertThat(sandbox.warmContexts(language)).isEqualTo(1);
      Files.writeString(data, "after");
      ExecutionResult r = sandbox.run(language,
          GuestCode.of(language, "readText('/data/data.txt')", "open('/data/data.txt').read()"));
      assertThatRun(r).hasValue("after");
    }
  }

  private static long poolThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().equals("polyglot-sandbox-warm-pool")).count();
  }

  private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not reached in 120 s");
      }
      Thread.sleep(10);
    }
  }
}
