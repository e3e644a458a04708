package org.polyglotsandbox.internal.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Handler threads: answers, failures, timeouts, and a cap on threads a stuck handler can pin. */
class HandlerThreadsTest {
  private static final long POLL = TimeUnit.MILLISECONDS.toNanos(10);
  /**
   * How long a call that must answer may take: on a loaded machine a woken handler thread can wait for a
   * core far longer than the work takes, and a call that answers returns at once.
   */
  private static final long ANSWER = TimeUnit.SECONDS.toNanos(30);

  @Test
  void callsAnswerAndReuseAnIdleWorker() throws Exception {
    try (HandlerThreads threads = new HandlerThreads(1)) {
      for (long i = 0; i < 100; i++) {
        long n = i;
        assertThat(threads.start(() -> n * 2).await(ANSWER, POLL, () -> false)).isEqualTo(i * 2);
      }
    }
  }

  @Test
  void failuresAndTimeouts_reachTheCaller() {
    try (HandlerThreads threads = new HandlerThreads(4)) {
      assertThatThrownBy(() -> threads.start(() -> {
        throw new IllegalStateException("boom");
      }).await(ANSWER, POLL, () -> false)).isInstanceOf(ExecutionException.class).hasRootCauseMessage("boom");
      assertThatThrownBy(() -> threads.start(() -> {
        Thread.sleep(Long.MAX_VALUE);
        return null;
      }).await(TimeUnit.MILLISECONDS.toNanos(50), POLL, () -> false)).isInstanceOf(TimeoutException.class);
    }
  }

  @Test
  void stuckHandlers_cannotPinMoreThanTheCap() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (HandlerThreads threads = new HandlerThreads(2)) {
      for (int i = 0; i < 2; i++) {
        HandlerThreads.Call stuck = threads.start(() -> {
          while (true) {
            try {
              release.await(); // ignores interrupts, as a badly written handler might
              return null;
            } catch (InterruptedException ignored) {
              // keep waiting
            }
          }
        });
        assertThatThrownBy(() -> stuck.await(TimeUnit.MILLISECONDS.toNanos(20), POLL, () -> false))
            .isInstanceOf(TimeoutException.class);
      }
      assertThatThrownBy(() -> threads.start(() -> 1)).isInstanceOf(RejectedExecutionException.class);
      release.countDown();
      long deadline = System.nanoTime() + 2 * ANSWER;
      Object answer = null;
      while (answer == null && System.nanoTime() < deadline) {
        try {
          answer = threads.start(() -> 1).await(ANSWER, POLL, () -> false);
        } catch (RejectedExecutionException stillEnding) {
          Thread.sleep(10);
        }
      }
      assertThat(answer).isEqualTo(1);
    }
  }
}
