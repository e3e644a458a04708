package org.polyglotsandbox.internal.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WarmPoolTest {
  /** An item that knows whether it was closed. */
  static final class Item implements AutoCloseable {
    final int id;
    final String key;
    volatile boolean closed;

    Item(int id, String key) {
      this.id = id;
      this.key = key;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  private final AtomicInteger ids = new AtomicInteger();
  private final Set<Item> made = ConcurrentHashMap.newKeySet();

  private Item make(String key) {
    Item item = new Item(ids.incrementAndGet(), key);
    made.add(item);
    return item;
  }

  @Test
  void fillsEachKeyToItsSize_andNoFurther() throws Exception {
    try (WarmPool<String, Item> pool = new WarmPool<>(List.of("js", "py"), 3, this::make, "test-pool")) {
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      Thread.sleep(50); // a filler that overshoots would show here
      assertThat(pool.ready("js")).isEqualTo(3);
      assertThat(pool.ready("py")).isEqualTo(3);
      assertThat(pool.made()).isEqualTo(6);
    }
  }

  @Test
  void whileBusy_aRefillWaitsUnlessTheKeyRanEmpty_andResumesWhenWoken() throws Exception {
    AtomicBoolean busy = new AtomicBoolean();
    try (WarmPool<String, Item> pool = new WarmPool<>(List.of("js"), 2, this::make, "test-pool-busy", busy::get,
        Duration.ofMinutes(5))) {
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      busy.set(true);
      assertThat(pool.poll("js")).isNotNull();
      // One item is still ready, so the refill is held back while busy.
      assertThat(pool.awaitFull(Duration.ofMillis(300))).isFalse();
      assertThat(pool.made()).isEqualTo(2);
      // Empty: refilled at once, busy or not, up to the item held back as well.
      assertThat(pool.poll("js")).isNotNull();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (pool.ready("js") == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(pool.ready("js")).isEqualTo(1);
      assertThat(pool.awaitFull(Duration.ofMillis(300))).isFalse();
      busy.set(false);
      pool.wake();
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      assertThat(pool.made()).isEqualTo(4);
    }
  }

  /** A pool of {@code size} for "js" whose items remember the thread that made them. */
  private WarmPool<String, Item> pool(String name, int size, AtomicBoolean saturated, Set<String> makers) {
    return new WarmPool<>(List.of("js"), size, key -> {
      makers.add(Thread.currentThread().getName());
      return make(key);
    }, name, () -> false, Duration.ZERO, saturated::get);
  }

  @Test
  void pollForTopUp_leavesTheRefillToTheTaker_whileTheKeyHasAnItem() throws Exception {
    Set<String> makers = ConcurrentHashMap.newKeySet();
    try (WarmPool<String, Item> pool = pool("test-pool-taker", 2, new AtomicBoolean(), makers)) {
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      awaitWaiting("test-pool-taker"); // else it may still see the pool short, awake after its last item
      assertThat(pool.pollForTopUp("js")).isNotNull();
      // One item is still ready and the taker owes one: the refill thread stays asleep.
      assertThat(pool.awaitFull(Duration.ofMillis(300))).isFalse();
      assertThat(pool.made()).isEqualTo(2);
      makers.clear();
      assertThat(pool.settle("js", true)).isTrue();
      assertThat(makers).containsExactly(Thread.currentThread().getName());
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      assertThat(pool.made()).isEqualTo(3);
    }
  }

  @Test
  void aTakerThatSettlesWithoutAnItem_leavesItsGapToTheRefillThread() throws Exception {
    Set<String> makers = ConcurrentHashMap.newKeySet();
    try (WarmPool<String, Item> pool = pool("test-pool-no-topup", 2, new AtomicBoolean(true), makers)) {
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      awaitWaiting("test-pool-no-topup");
      assertThat(pool.pollForTopUp("js")).isNotNull();
      assertThat(pool.awaitFull(Duration.ofMillis(300))).isFalse();
      makers.clear();
      // The sandbox closing, the heap over budget: the run's thread makes nothing, the refill thread does.
      assertThat(pool.settle("js", false)).isFalse();
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      assertThat(makers).containsExactly("test-pool-no-topup");
      assertThat(pool.made()).isEqualTo(3);
    }
  }

  @Test
  void onASaturatedMachine_anEmptyKeyIsLeftToTheTakersThatOweIt() throws Exception {
    Set<String> makers = ConcurrentHashMap.newKeySet();
    try (WarmPool<String, Item> pool = pool("test-pool-saturated", 2, new AtomicBoolean(true), makers)) {
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      awaitWaiting("test-pool-saturated");
      assertThat(pool.pollForTopUp("js")).isNotNull();
      assertThat(pool.pollForTopUp("js")).isNotNull();
      // A third taker finds the pool empty and makes its own item; it owes one all the same.
      assertThat(pool.pollForTopUp("js")).isNull();
      assertThat(pool.awaitFull(Duration.ofMillis(300))).isFalse();
      assertThat(pool.ready("js")).as("the refill thread stayed asleep").isZero();
      assertThat(pool.made()).isEqualTo(2);
      makers.clear();
      assertThat(pool.settle("js", true)).isTrue();
      assertThat(pool.settle("js", true)).isTrue();
      assertThat(pool.settle("js", true)).as("full: nothing more to make").isFalse();
      assertThat(makers).containsExactly(Thread.currentThread().getName());
      assertThat(pool.ready("js")).isEqualTo(2);
      assertThat(pool.made()).isEqualTo(4);
      assertThat(made).filteredOn(i -> i.closed).as("no item made in vain").isEmpty();
    }
  }

  @Test
  void withCoresToSpare_anEmptyKeyIsRefilledAtOnce_whateverTheTakersOwe() throws Exception {
    Set<String> makers = ConcurrentHashMap.newKeySet();
    try (WarmPool<String, Item> pool = pool("test-pool-idle-cores", 2, new AtomicBoolean(false), makers)) {
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      awaitWaiting("test-pool-idle-cores");
      makers.clear();
      assertThat(pool.pollForTopUp("js")).isNotNull();
      assertThat(pool.pollForTopUp("js")).isNotNull();
      // The next run finds an item without waiting for either taker's run to end.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (pool.ready("js") == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(pool.ready("js")).isPositive();
      assertThat(makers).containsExactly("test-pool-idle-cores");
      // The takers then replace what they took, up to the size and no further.
      pool.settle("js", true);
      pool.settle("js", true);
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      Thread.sleep(50); // a refill that overshoots would show here
      assertThat(pool.made()).isEqualTo(4);
      assertThat(made).filteredOn(i -> i.closed).as("no item made in vain").isEmpty();
    }
  }

  @Test
  void anEmptyKeyLeftToItsTakers_isRefilledOnceTheMachineHasCoresToSpare() throws Exception {
    AtomicBoolean saturated = new AtomicBoolean(true);
    Set<String> makers = ConcurrentHashMap.newKeySet();
    try (WarmPool<String, Item> pool = pool("test-pool-recheck", 1, saturated, makers)) {
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      awaitWaiting("test-pool-recheck");
      assertThat(pool.pollForTopUp("js")).isNotNull();
      assertThat(pool.awaitFull(Duration.ofMillis(300))).isFalse();
      makers.clear();
      // The runs in flight now wait for their tools: nobody signals it, the refill thread looks again.
      saturated.set(false);
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      assertThat(makers).containsExactly("test-pool-recheck");
      assertThat(pool.settle("js", true)).as("full: the taker makes nothing").isFalse();
      assertThat(pool.made()).isEqualTo(2);
    }
  }

  @Test
  void pollForTopUp_refusesAKeyThePoolWasNotMadeFor() {
    try (WarmPool<String, Item> pool = new WarmPool<>(List.of("js"), 1, this::make, "test-pool-unknown")) {
      assertThatThrownBy(() -> pool.pollForTopUp("py")).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("the pool has no items for py");
      assertThatThrownBy(() -> pool.settle("py", true)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  /** Waits until the thread named {@code name} waits (parked), at most 30 s. */
  private static void awaitWaiting(String name) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.getName().equals(name) && t.getState() == Thread.State.WAITING) {
          return;
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError(name + " never waited");
  }

  @Test
  void eachItemIsHandedOutOnce_andReplaced() throws Exception {
    try (WarmPool<String, Item> pool = new WarmPool<>(List.of("js"), 2, this::make, "test-pool")) {
      Set<Integer> seen = new HashSet<>();
      for (int i = 0; i < 20; i++) {
        assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
        Item item = pool.poll("js");
        assertThat(item).isNotNull();
        assertThat(item.key).isEqualTo("js");
        assertThat(seen.add(item.id)).as("item %d handed out twice", item.id).isTrue();
      }
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      assertThat(pool.made()).isEqualTo(22);
    }
  }

  @Test
  void pollOnAnEmptyPool_returnsNullAtOnce() {
    try (WarmPool<String, Item> pool = new WarmPool<>(List.of("js"), 1, key -> {
      throw new IllegalStateException("cannot make items");
    }, "test-pool")) {
      assertThat(pool.poll("js")).isNull();
      assertThat(pool.poll("unknown")).isNull();
      assertThat(pool.ready("js")).isZero();
    }
  }

  @Test
  void offer_addsAnItemMadeElsewhere_whileThereIsRoom_andClosesItOtherwise() throws Exception {
    java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch making = new java.util.concurrent.CountDownLatch(1);
    WarmPool<String, Item> pool = new WarmPool<>(List.of("py"), 2, key -> {
      making.countDown();
      try {
        never.await(); // the refill thread makes nothing of its own here
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("stopped");
    }, "test-pool-offer");
    try {
      assertThat(making.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      Item first = new Item(-1, "py");
      Item second = new Item(-2, "py");
      assertThat(pool.offer("py", first)).as("room beside the one being made").isTrue();
      assertThat(pool.ready("py")).isEqualTo(1);
      assertThat(pool.offer("py", second)).as("ready and being made fill the size").isFalse();
      assertThat(second.closed).isTrue();
      assertThat(pool.poll("py")).isSameAs(first);
      assertThat(first.closed).isFalse();
    } finally {
      never.countDown();
      pool.close();
    }
    Item late = new Item(-3, "py");
    assertThat(pool.offer("py", late)).as("after close").isFalse();
    assertThat(late.closed).isTrue();
  }

  @Test
  void aFailingFactory_isRetried() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    try (WarmPool<String, Item> pool = new WarmPool<>(List.of("js"), 1, key -> {
      if (calls.incrementAndGet() == 1) {
        throw new IllegalStateException("first attempt fails");
      }
      return make(key);
    }, "test-pool")) {
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      assertThat(calls.get()).isEqualTo(2);
    }
  }

  @Test
  void close_closesItemsNeverHandedOut_andStopsTheThread() throws Exception {
    WarmPool<String, Item> pool = new WarmPool<>(List.of("js"), 2, this::make, "test-pool-closing");
    assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
    Item taken = pool.poll("js");
    pool.awaitFull(Duration.ofSeconds(30));
    pool.close();
    pool.close(); // idempotent
    assertThat(made).filteredOn(i -> i != taken).allMatch(i -> i.closed);
    assertThat(taken.closed).as("an item handed out belongs to its taker").isFalse();
    assertThat(pool.poll("js")).isNull();
    assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("test-pool-closing"));
  }

  @Test
  void topUp_makesTheItemOnTheCallingThread_onlyWhileThereIsRoom() throws Exception {
    AtomicBoolean busy = new AtomicBoolean();
    Set<String> makers = ConcurrentHashMap.newKeySet();
    try (WarmPool<String, Item> pool = new WarmPool<>(List.of("js"), 2, key -> {
      makers.add(Thread.currentThread().getName());
      return make(key);
    }, "test-pool-topup", busy::get, Duration.ofMinutes(5))) {
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      assertThat(pool.topUp("js")).as("full: nothing to make").isFalse();
      assertThat(pool.made()).isEqualTo(2);
      busy.set(true); // the refill thread holds back while one item is still ready
      Item taken = pool.poll("js");
      assertThat(pool.topUp("js")).isTrue();
      assertThat(makers).contains(Thread.currentThread().getName());
      assertThat(pool.ready("js")).isEqualTo(2);
      assertThat(pool.topUp("js")).isFalse();
      assertThat(pool.made()).isEqualTo(3);
      assertThat(made).filteredOn(i -> i.closed).as("no item made in vain").isEmpty();
      assertThat(pool.poll("js")).isNotSameAs(taken);
    }
  }

  @Test
  void manyTakersToppingUpAtOnce_neverMakeMoreThanTheSize_andWasteNothing() throws Exception {
    AtomicInteger beingMade = new AtomicInteger();
    AtomicInteger most = new AtomicInteger(); // items ready and being made, as seen by each new one
    AtomicInteger handedOut = new AtomicInteger();
    AtomicReference<WarmPool<String, Item>> self = new AtomicReference<>();
    try (WarmPool<String, Item> pool = new WarmPool<>(List.of("js"), 2, key -> {
      int now = beingMade.incrementAndGet() + (self.get() == null ? 0 : self.get().ready(key));
      most.accumulateAndGet(now, Math::max);
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      beingMade.decrementAndGet();
      return make(key);
    }, "test-pool-takers")) {
      self.set(pool);
      List<Thread> takers = new java.util.ArrayList<>();
      for (int t = 0; t < 6; t++) {
        takers.add(Thread.ofPlatform().start(() -> {
          for (int i = 0; i < 40; i++) {
            if (pool.poll("js") != null) {
              handedOut.incrementAndGet();
            }
            pool.topUp("js");
          }
        }));
      }
      for (Thread t : takers) {
        t.join();
      }
      assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
      assertThat(most.get()).as("items ready and being made at once").isLessThanOrEqualTo(2);
      assertThat(handedOut.get()).isPositive();
      assertThat(pool.made()).isEqualTo(handedOut.get() + 2);
      assertThat(made).filteredOn(i -> i.closed).as("no item made in vain").isEmpty();
    }
  }

  @Test
  void close_waitsForATopUpInProgress_andClosesWhatItMade() throws Exception {
    java.util.concurrent.CountDownLatch making = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    AtomicBoolean busy = new AtomicBoolean();
    WarmPool<String, Item> pool = new WarmPool<>(List.of("js"), 1, key -> {
      if (Thread.currentThread().getName().equals("taker")) {
        making.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return make(key);
    }, "test-pool-close-topup", busy::get, Duration.ofMinutes(5));
    assertThat(pool.awaitFull(Duration.ofSeconds(30))).isTrue();
    pool.poll("js");
    busy.set(true);
    Thread taker = Thread.ofPlatform().name("taker").start(() -> pool.topUp("js"));
    // The refill thread may have started on the empty pool first; then the taker has no room and returns.
    boolean toppingUp = making.await(2, java.util.concurrent.TimeUnit.SECONDS);
    Thread closer = Thread.ofPlatform().start(pool::close);
    if (toppingUp) {
      closer.join(300);
      assertThat(closer.isAlive()).as("close waits for the item being made").isTrue();
    }
    release.countDown();
    closer.join(30_000);
    taker.join(30_000);
    assertThat(closer.isAlive()).isFalse();
    assertThat(made).filteredOn(i -> i.id != 1).allMatch(i -> i.closed);
    assertThat(pool.ready("js")).isZero();
  }

  @Test
  void aBadSize_isRefused() {
    assertThatThrownBy(() -> new WarmPool<>(List.of("js"), 0, this::make, "test-pool"))
        .hasMessage("pool size (0) must be at least 1");
  }
}
