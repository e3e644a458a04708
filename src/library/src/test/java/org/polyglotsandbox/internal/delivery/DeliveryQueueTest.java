package org.polyglotsandbox.internal.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The bounded hand-over to embedder code: order, the bound, failures, and close. */
class DeliveryQueueTest {
  private static void await(List<?> list, int n) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (list.size() < n && System.nanoTime() < end) {
      Thread.sleep(5);
    }
  }

  @Test
  void items_arriveInOrder_onTheDeliveryThread() throws Exception {
    List<String> got = new CopyOnWriteArrayList<>();
    try (DeliveryQueue<Integer> q = new DeliveryQueue<>("test", "delivery-test", 100,
        i -> got.add(i + " " + Thread.currentThread().getName()))) {
      IntStream.range(0, 50).forEach(q::offer);
      await(got, 50);
      assertThat(got).containsExactlyElementsOf(IntStream.range(0, 50).mapToObj(i -> i + " delivery-test").toList());
      assertThat(q.dropped()).isZero();
      assertThat(q.thread().isDaemon()).isTrue();
    }
  }

  @Test
  void aStuckConsumer_blocksNoProducer_andTheOverflowIsCounted() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Integer> got = new CopyOnWriteArrayList<>();
    try (DeliveryQueue<Integer> q = new DeliveryQueue<>("test", "delivery-test", 10, i -> {
      got.add(i);
      entered.countDown();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    })) {
      q.offer(0);
      assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
      for (int i = 1; i <= 1000; i++) {
        q.offer(i); // returns at once: this loop would hang otherwise
      }
      assertThat(q.pending()).isEqualTo(10);
      assertThat(q.dropped()).isEqualTo(990);
      release.countDown();
      await(got, 11);
      assertThat(got).containsExactlyElementsOf(IntStream.rangeClosed(0, 10).boxed().toList());
    }
  }

  @Test
  void aConsumerThatThrows_losesThatItemOnly() throws Exception {
    List<Integer> got = new CopyOnWriteArrayList<>();
    try (DeliveryQueue<Integer> q = new DeliveryQueue<>("test", "delivery-test", 10, i -> {
      got.add(i);
      if (i == 0) {
        throw new OutOfMemoryError("consumer ran out");
      }
      if (i % 2 == 0) {
        throw new IllegalStateException("consumer broke");
      }
    })) {
      IntStream.range(0, 6).forEach(q::offer);
      await(got, 6);
      assertThat(got).containsExactly(0, 1, 2, 3, 4, 5);
      assertThat(q.thread().isAlive()).isTrue();
    }
  }

  @Test
  void close_deliversWhatIsQueued_thenTakesNothingMore() throws Exception {
    List<Integer> got = new CopyOnWriteArrayList<>();
    DeliveryQueue<Integer> q = new DeliveryQueue<>("test", "delivery-test", 100, got::add);
    IntStream.range(0, 20).forEach(q::offer);

    assertThat(q.close(Duration.ofSeconds(30))).isZero();
    assertThat(got).hasSize(20);
    assertThat(q.offer(99)).isFalse();
    assertThat(q.dropped()).isEqualTo(1);
    q.thread().join(10_000);
    assertThat(q.thread().isAlive()).isFalse();
  }

  @Test
  void close_withAStuckConsumer_returnsAfterItsWait_andCountsTheRest() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    DeliveryQueue<Integer> q = new DeliveryQueue<>("test", "delivery-test", 100, i -> {
      entered.countDown();
      try {
        new CountDownLatch(1).await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        interrupted.countDown();
      }
    });
    IntStream.range(0, 5).forEach(q::offer);
    assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

    long start = System.nanoTime();
    assertThat(q.close(Duration.ofMillis(200))).isEqualTo(4);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    assertThat(q.dropped()).isEqualTo(4);
    assertThat(interrupted.await(30, TimeUnit.SECONDS)).as("the stuck consumer is interrupted").isTrue();
    assertThat(q.close(Duration.ofSeconds(1))).isZero();
  }

  @Test
  void aCapacityBelowOne_isRefused() {
    assertThatThrownBy(() -> new DeliveryQueue<Integer>("test", "t", 0, i -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("capacity (0) must be at least 1");
  }
}
