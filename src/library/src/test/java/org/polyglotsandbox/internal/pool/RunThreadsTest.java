package org.polyglotsandbox.internal.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The run threads: reused while idle, ended after their keep-alive or when closed, and, with a CPU
 * threshold, lowered for the rest of a run and then never reused (nor the thread a lowered one started).
 * Priorities are real: each task reads its own thread's nice value from {@code /proc}.
 */
class RunThreadsTest {
  private static final long STACK = 1 << 20;

  /** What a task saw of its thread. */
  record Seen(Thread thread, int nice) {}

  private static int nice() {
    try {
      String stat = Files.readString(Path.of("/proc/thread-self/stat"));
      return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs {@code body} on one of {@code threads}, waits for it, and returns its thread and nice value after it. */
  private static Seen runOn(RunThreads threads, Runnable body) throws Exception {
    CompletableFuture<Seen> seen = new CompletableFuture<>();
    threads.execute(() -> {
      try {
        body.run();
        seen.complete(new Seen(Thread.currentThread(), nice()));
      } catch (Throwable e) {
        seen.completeExceptionally(e);
      }
    });
    return seen.get(60, TimeUnit.SECONDS);
  }

  private static RunThreads lowering(long keepAliveNanos) {
    return new RunThreads(STACK, "test-run-", Duration.ofMillis(5), keepAliveNanos, NativePriority.get());
  }

  @Test
  void anIdleThreadTakesTheNextRun() throws Exception {
    try (RunThreads threads = new RunThreads(STACK, "test-run-")) {
      Seen first = runOn(threads, () -> {});
      awaitIdle(threads, 1);
      Seen second = runOn(threads, () -> {});
      assertThat(second.thread()).isSameAs(first.thread());
      assertThat(first.thread().getName()).startsWith("test-run-");
      assertThat(first.thread().isDaemon()).isTrue();
    }
  }

  @Test
  void anIdleThreadHoldsNothingOfItsLastRun() throws Exception {
    // A run's task reaches its context and all its guest allocated: an idle thread must let go of it, or a
    // stopped allocation bomb's heap stays reachable until the thread's next run.
    try (RunThreads threads = new RunThreads(STACK, "test-run-")) {
      WeakReference<byte[]> payload = runHolding(threads);
      awaitIdle(threads, 1);
      for (int i = 0; i < 100 && payload.get() != null; i++) {
        System.gc();
        Thread.sleep(10);
      }
      assertThat(payload.get()).as("the idle thread's last task is unreachable").isNull();
    }
  }

  /** Runs a task that holds 1 MiB on one of {@code threads}, waits for it, and returns a weak reference to the MiB. */
  private static WeakReference<byte[]> runHolding(RunThreads threads) throws InterruptedException {
    byte[] held = new byte[1 << 20];
    CountDownLatch ran = new CountDownLatch(1);
    threads.execute(() -> {
      held[0] = 1;
      ran.countDown();
    });
    ran.await();
    return new WeakReference<>(held);
  }

  @Test
  void anIdleThreadEndsAfterItsKeepAlive() throws Exception {
    try (RunThreads threads = new RunThreads(STACK, "test-run-", null, TimeUnit.MILLISECONDS.toNanos(50),
        NativePriority.get())) {
      Seen first = runOn(threads, () -> {});
      first.thread().join(60_000);
      assertThat(first.thread().isAlive()).isFalse();
      assertThat(threads.idleThreads()).isZero();
      assertThat(runOn(threads, () -> {}).thread()).isNotSameAs(first.thread());
    }
  }

  @Test
  void closingEndsIdleThreadsLetsARunningOneFinishAndRefusesNewRuns() throws Exception {
    RunThreads threads = new RunThreads(STACK, "test-run-");
    Seen idle = runOn(threads, () -> {});
    awaitIdle(threads, 1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    AtomicReference<Thread> busy = new AtomicReference<>();
    CompletableFuture<Void> finished = new CompletableFuture<>();
    threads.execute(() -> { // takes the idle thread
      busy.set(Thread.currentThread());
      started.countDown();
      try {
        release.await();
        finished.complete(null);
      } catch (InterruptedException e) {
        finished.completeExceptionally(e);
      }
    });
    started.await();
    Seen other = runOn(threads, () -> {}); // a second thread, idle once done
    awaitIdle(threads, 1);
    threads.close();
    other.thread().join(60_000);
    assertThat(other.thread().isAlive()).isFalse();
    assertThat(busy.get()).isSameAs(idle.thread()).matches(Thread::isAlive);
    assertThatThrownBy(() -> threads.execute(() -> {})).isInstanceOf(RejectedExecutionException.class)
        .hasMessage("the sandbox's run threads are closed");
    release.countDown();
    finished.get(60, TimeUnit.SECONDS); // not interrupted by the close
    busy.get().join(60_000);
    assertThat(busy.get().isAlive()).isFalse();
  }

  @Test
  void aLoweredThreadRunsAtNiceNineteenAndEndsAfterItsRun() throws Exception {
    assertThat(NativePriority.get().whyUnavailable()).isNull();
    try (RunThreads threads = lowering(TimeUnit.SECONDS.toNanos(30))) {
      AtomicReference<RunThreads.Demotion> demotion = new AtomicReference<>();
      Seen hog = runOn(threads, () -> {
        RunThreads.Demotion d = RunThreads.demotionOfCurrentRun();
        demotion.set(d);
        d.check(TimeUnit.MILLISECONDS.toNanos(4)); // under the threshold: nothing
        assertThat(nice()).isZero();
        d.check(TimeUnit.MILLISECONDS.toNanos(5));
      });
      assertThat(hog.nice()).isEqualTo(RunThreads.LOWERED_NICE);
      assertThat(demotion.get().lowered()).isTrue();
      hog.thread().join(60_000); // at nice 19 on a busy machine, even ending takes a while to get a core
      assertThat(hog.thread().isAlive()).as("a lowered thread is not kept").isFalse();
      Seen next = runOn(threads, () -> {});
      assertThat(next.nice()).isZero();
      assertThat(next.thread()).isNotSameAs(hog.thread());
    }
  }

  @Test
  void aDemotionAfterItsRunEndedLowersNothing() throws Exception {
    try (RunThreads threads = lowering(TimeUnit.SECONDS.toNanos(30))) {
      AtomicReference<RunThreads.Demotion> demotion = new AtomicReference<>();
      Seen first = runOn(threads, () -> demotion.set(RunThreads.demotionOfCurrentRun()));
      awaitIdle(threads, 1);
      demotion.get().check(Long.MAX_VALUE); // the watchdog's late check: the run is over
      assertThat(demotion.get().lowered()).isFalse();
      Seen second = runOn(threads, () -> {});
      assertThat(second.thread()).isSameAs(first.thread());
      assertThat(second.nice()).isZero();
    }
  }

  @Test
  void aThreadStartedByALoweredOneInheritsItsPriorityAndIsNotKept() throws Exception {
    try (RunThreads threads = lowering(TimeUnit.SECONDS.toNanos(30))) {
      AtomicReference<Seen> nested = new AtomicReference<>();
      runOn(threads, () -> {
        RunThreads.demotionOfCurrentRun().check(Long.MAX_VALUE);
        try {
          nested.set(runOn(threads, () -> {})); // no idle thread: a new one, started by this lowered thread
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      assertThat(nested.get().nice()).isEqualTo(RunThreads.LOWERED_NICE);
      nested.get().thread().join(60_000);
      assertThat(nested.get().thread().isAlive()).isFalse();
      assertThat(runOn(threads, () -> {}).nice()).isZero();
    }
  }

  @Test
  void withoutAThresholdNoRunHasADemotion() throws Exception {
    try (RunThreads threads = new RunThreads(STACK, "test-run-")) {
      AtomicReference<Object> demotion = new AtomicReference<>("unset");
      runOn(threads, () -> demotion.set(RunThreads.demotionOfCurrentRun()));
      assertThat(demotion.get()).isNull();
    }
    assertThat(RunThreads.demotionOfCurrentRun()).as("not a run thread").isNull();
  }

  private static void awaitIdle(RunThreads threads, int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (threads.idleThreads() < count && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertThat(threads.idleThreads()).isEqualTo(count);
  }
}
