package org.polyglotsandbox.internal.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The heap sentinel's reserve is given back where the sandbox's own work meets an
 * OutOfMemoryError ({@link Watchdog#heapExhausted()}), so that stopped guests can unwind and their
 * contexts close, and it is taken again once a collection has shown room for it. The heap-bomb tests exercise it under a real
 * full heap; this checks the bookkeeping.
 */
class HeapReserveTest {
  @Test
  void theReserve_isGivenBackWhenTheHeapRunsOut_andTakenAgainAfterACollectionShowsRoom() throws Exception {
    HeapSentinel sentinel = HeapSentinel.get();
    Watchdog.heapExhausted();
    // Not taken again before a collection has shown room: the sentinel's looks meanwhile leave it given back.
    RunMeter meter = new RunMeter(new RunGuard(Runnable::run), Duration.ofHours(1), Long.MAX_VALUE);
    sentinel.add(meter, 0.85);
    sentinel.remove(meter);
    assertThat(sentinel.holdsReserve()).as("held after heapExhausted()").isFalse();

    System.gc(); // a collection that shows room; its notification wakes the sentinel
    long giveUp = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!sentinel.holdsReserve() && System.nanoTime() < giveUp) {
      Thread.sleep(5);
    }
    assertThat(sentinel.holdsReserve()).as("taken again once a collection showed room").isTrue();
  }
}
