package org.polyglotsandbox.internal.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Items made in advance, up to {@code size} per key, each handed out at most once: {@link #poll}
 * removes what it returns, and the pool never sees it again. Empty is normal (the caller then makes its
 * own); the pool never blocks a caller and never grows past its bound: items ready and items being made
 * together stay within {@code size} per key.
 *
 * <p>Two kinds of thread refill it. One daemon thread refills, one item at a time, round-robin over the
 * keys. If making an item fails, the failure is logged and the thread waits before trying again, so a
 * broken factory cannot spin. And a thread that has just finished with an item (a run thread, after its
 * run's result was handed over) can make the next one itself with {@link #topUp}: under a steady stream
 * of requests each taker replaces what it took, so the pool keeps up with as many takers as there are,
 * not with what one thread can make.
 *
 * <p>While {@code busy} says so and a key still has an item ready, its refill waits, at most
 * {@code maxDefer}, or until {@link #wake()}: making an item (a context: 2-4 ms of CPU) right after a
 * run took one would compete with that very run for the CPU. An empty key is not held back (but may be
 * left to its takers, below).
 *
 * <p>A taker that tops up itself takes with {@link #pollForTopUp} and ends with {@link #settle}: until
 * then it owes the key one item. The refill thread is for what the takers in flight will not make: a key
 * whose ready items, items being made and items owed come short of its size, or an empty key while
 * {@code saturated} says no (the machine has cores to spare). On a saturated machine every run then
 * makes its own replacement on its own thread, and the refill thread, a third runnable thread beside two
 * clients on two cores, stays asleep: it took 16% of the CPU there, made contexts no cheaper, and cost every run a
 * futex call and a context switch (RESULTS.md, 2026-12-04). Since nothing signals that the machine has
 * cores to spare again, the refill thread looks again every 100 ms while takers owe items. The refill
 * thread and the threads waiting for a full pool wait on separate conditions, so neither wakes the other
 * for nothing.
 *
 * @param <K> what an item is made for (a language)
 * @param <T> the item; closed by the pool only if it is never handed out
 */
public final class WarmPool<K, T extends AutoCloseable> implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  private static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(1);
  /** How often the refill thread looks again at an empty key it left to the takers in flight. */
  private static final long RECHECK_NANOS = Duration.ofMillis(100).toNanos();

  private final int size;
  private final Function<K, T> factory;
  private final BooleanSupplier busy;
  private final BooleanSupplier saturated;
  private final long maxDeferNanos;
  private final Map<K, BlockingQueue<T>> idle = new LinkedHashMap<>();
  /** Items being made now, per key, by the filler or by {@link #topUp}. Guarded by {@link #lock}. */
  private final Map<K, int[]> making = new LinkedHashMap<>();
  /**
   * Takers in flight per key ({@link #pollForTopUp}, not yet {@link #settle settled}), each of which will
   * replace what it took. Guarded by {@link #lock}.
   */
  private final Map<K, int[]> owed = new LinkedHashMap<>();
  private final ReentrantLock lock = new ReentrantLock();
  /** Where the refill thread waits: for {@link #wanted}, out a deferral, or out a pause after a failure. */
  private final Condition fillerWake = lock.newCondition();
  /** Where everyone else waits for a change: an item added, one no longer being made, the pool closed. */
  private final Condition changed = lock.newCondition();
  /** Whether the refill thread is holding a refill back while busy. Guarded by {@link #lock}. */
  private boolean deferring;
  /** Whether the refill thread waits with no time limit: no items are owed. Guarded by {@link #lock}. */
  private boolean fillerIdle;
  private final AtomicLong made = new AtomicLong();
  private final Thread filler;
  private boolean closed;
  private boolean wanted = true;

  /** A pool that refills as soon as an item is taken. */
  public WarmPool(Collection<K> keys, int size, Function<K, T> factory, String threadName) {
    this(keys, size, factory, threadName, () -> false, Duration.ZERO, () -> false);
  }

  /** A pool whose refill waits while {@code busy}, on a machine never saturated. */
  public WarmPool(Collection<K> keys, int size, Function<K, T> factory, String threadName, BooleanSupplier busy,
      Duration maxDefer) {
    this(keys, size, factory, threadName, busy, maxDefer, () -> false);
  }

  /**
   * Starts refilling at once.
   *
   * @param size items kept ready per key, at least 1
   * @param factory makes one ready item; may throw
   * @param busy whether to hold back a refill that is not urgent (the key still has an item)
   * @param maxDefer how long a refill is held back at most
   * @param saturated whether the takers in flight keep every core busy: an empty key is then left to
   *     the takers that owe it items, if they owe enough
   */
  public WarmPool(Collection<K> keys, int size, Function<K, T> factory, String threadName, BooleanSupplier busy,
      Duration maxDefer, BooleanSupplier saturated) {
    if (size < 1) {
      throw new IllegalArgumentException("pool size (" + size + ") must be at least 1");
    }
    this.size = size;
    this.factory = factory;
    this.busy = busy;
    this.saturated = saturated;
    this.maxDeferNanos = maxDefer.toNanos();
    keys.forEach(k -> {
      idle.put(k, new ArrayBlockingQueue<>(size));
      making.put(k, new int[1]);
      owed.put(k, new int[1]);
    });
    this.filler = Thread.ofPlatform().name(threadName).daemon(true).unstarted(this::refill);
    filler.start();
  }

  /**
   * Call when a run ends: a refill held back while busy looks again, and a key left short that the takers
   * in flight will not fill (its taker made nothing: the sandbox closing, the heap over budget, a taker
   * that did not owe) is refilled by the refill thread. Wakes nobody otherwise.
   */
  public void wake() {
    lock.lock();
    try {
      if (deferring) {
        fillerWake.signal();
      } else if (!closed && !wanted && nextShort() != null) {
        wantRefill();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Asks the refill thread to look for a short key. Under {@link #lock}. */
  private void wantRefill() {
    wanted = true;
    fillerWake.signal();
  }

  /** Whether a taker in flight owes any key an item. Under {@link #lock}. */
  private boolean anyOwed() {
    for (int[] debt : owed.values()) {
      if (debt[0] > 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code key} needs the refill thread: it has room, and either the takers in flight owe it
   * fewer items than it lacks, or it is empty while the machine has cores to spare (a taker replaces its
   * item only when its run is over). Under {@link #lock}.
   */
  private boolean leftToRefiller(K key) {
    int coming = idle.get(key).size() + making.get(key)[0];
    return coming < size && (coming + owed.get(key)[0] < size || (coming == 0 && !saturated.getAsBoolean()));
  }

  /** A ready item for {@code key}, removed from the pool, or null if none is ready; the refill thread replaces it. */
  public T poll(K key) {
    BlockingQueue<T> queue = idle.get(key);
    T item = queue == null ? null : queue.poll();
    if (item != null) {
      lock.lock();
      try {
        wantRefill();
      } finally {
        lock.unlock();
      }
    }
    return item;
  }

  /**
   * A ready item for {@code key}, removed from the pool, or null if none is ready, for a taker that owes
   * the key one item from now on, whether it got one or not, and must call {@link #settle} exactly once
   * when done. The refill thread is woken only if the takers in flight will not fill the key
   * ({@link #leftToRefiller}).
   *
   * @throws IllegalArgumentException for a key the pool was not made for
   */
  public T pollForTopUp(K key) {
    BlockingQueue<T> queue = queue(key);
    lock.lock();
    try {
      T item = queue.poll();
      owed.get(key)[0]++;
      if (!closed && !wanted && leftToRefiller(key)) {
        wantRefill();
      } else if (fillerIdle) {
        fillerWake.signal(); // to look again now and then while items are owed (refill)
      }
      return item;
    } finally {
      lock.unlock();
    }
  }

  private BlockingQueue<T> queue(K key) {
    BlockingQueue<T> queue = idle.get(key);
    if (queue == null) {
      throw new IllegalArgumentException("the pool has no items for " + key);
    }
    return queue;
  }

  /**
   * Ends what a {@link #pollForTopUp} taker owes {@code key}: with {@code topUp}, makes its replacement
   * on the calling thread first, as {@link #topUp} does; without (it cannot make one now), the refill
   * thread makes what the key then lacks. Never throws for a failed item.
   *
   * @return whether an item was made and added
   */
  public boolean settle(K key, boolean topUp) {
    queue(key);
    lock.lock();
    try {
      int[] debt = owed.get(key);
      if (debt[0] > 0) {
        debt[0]--;
      }
      if (!topUp || closed || !hasRoom(key)) {
        if (!closed && !wanted && leftToRefiller(key)) {
          wantRefill();
        }
        return false;
      }
      making.get(key)[0]++; // in the same step as the debt ends, so the refill thread never sees a gap
    } finally {
      lock.unlock();
    }
    return makeOne(key);
  }

  /**
   * Makes one item for {@code key} on the calling thread and adds it to the pool, if the pool has room
   * for it (items ready and being made stay within the size); otherwise returns at once. For a thread
   * that has just finished with an item taken from this pool, so that it replaces it while the taker's
   * caller is busy with the result. A failure is logged at debug level and left to the refill thread,
   * which retries with a pause; nothing is thrown.
   *
   * @return whether an item was made and added
   */
  public boolean topUp(K key) {
    lock.lock();
    try {
      if (closed || !hasRoom(key)) {
        return false;
      }
      making.get(key)[0]++;
    } finally {
      lock.unlock();
    }
    return makeOne(key);
  }

  /** Makes the item {@code making} already counts for {@code key} on this thread, and adds it if it may. */
  private boolean makeOne(K key) {
    T item = null;
    try {
      item = factory.apply(key);
      made.incrementAndGet();
    } catch (RuntimeException | Error e) {
      try {
        LOG.log(System.Logger.Level.DEBUG, "warm pool could not top up " + key
            + "; the refill thread or the next taker tries again", e);
      } catch (RuntimeException | OutOfMemoryError logFailed) {
        // The heap may have been the failure: the count below must still be given back, or the key would
        // look busy making an item for good and never be refilled.
      }
    }
    boolean added;
    lock.lock();
    try {
      making.get(key)[0]--;
      added = item != null && !closed && idle.get(key).offer(item);
      if (item == null) {
        wantRefill(); // the refill thread makes it instead
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (item != null && !added) {
      closeQuietly(item);
    }
    return added;
  }

  /**
   * Adds {@code item}, made elsewhere for {@code key} and never handed out, if the pool has room for it;
   * otherwise closes it.
   *
   * @return whether it was added
   */
  public boolean offer(K key, T item) {
    boolean added;
    lock.lock();
    try {
      added = !closed && hasRoom(key) && idle.get(key).offer(item);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (!added) {
      closeQuietly(item);
    }
    return added;
  }

  /** Whether {@code key} has room for one more item beside those ready and being made. Under {@link #lock}. */
  private boolean hasRoom(K key) {
    return idle.get(key).size() + making.get(key)[0] < size;
  }

  /** Items ready for {@code key} now. */
  public int ready(K key) {
    BlockingQueue<T> queue = idle.get(key);
    return queue == null ? 0 : queue.size();
  }

  /** Items made since the pool started, handed out or not. */
  public long made() {
    return made.get();
  }

  /**
   * Waits until every key has {@code size} items ready, or {@code timeout} passes.
   *
   * @return whether the pool is full
   */
  public boolean awaitFull(Duration timeout) throws InterruptedException {
    long left = timeout.toNanos();
    lock.lock();
    try {
      while (!closed && !isFull()) {
        if (left <= 0) {
          return false;
        }
        left = changed.awaitNanos(left);
      }
      return isFull();
    } finally {
      lock.unlock();
    }
  }

  private boolean isFull() {
    return idle.values().stream().allMatch(q -> q.remainingCapacity() == 0);
  }

  private void refill() {
    while (true) {
      K key;
      lock.lock();
      try {
        key = null;
        while (!closed && (key = nextShort()) == null) {
          wanted = false;
          changed.signalAll();
          try {
            // While takers owe items, a key left to them is looked at again now and then: the machine may
            // have cores to spare by then (the runs waiting for tools), and nobody signals that.
            while (!closed && !wanted) {
              if (anyOwed()) {
                if (fillerWake.awaitNanos(RECHECK_NANOS) <= 0) {
                  break;
                }
              } else {
                fillerIdle = true;
                try {
                  fillerWake.await();
                } finally {
                  fillerIdle = false;
                }
              }
            }
          } catch (InterruptedException e) {
            return;
          }
        }
        long left = maxDeferNanos;
        deferring = true;
        try {
          while (!closed && !idle.get(key).isEmpty() && busy.getAsBoolean() && left > 0) {
            left = fillerWake.awaitNanos(left);
          }
        } catch (InterruptedException e) {
          return;
        } finally {
          deferring = false;
        }
        if (closed) {
          return;
        }
        if (!leftToRefiller(key)) {
          continue; // topped up meanwhile by a taker, or owed by more takers than before
        }
        making.get(key)[0]++;
      } finally {
        lock.unlock();
      }
      T item;
      try {
        item = factory.apply(key);
        made.incrementAndGet();
      } catch (RuntimeException | Error e) {
        lock.lock();
        try {
          making.get(key)[0]--;
          changed.signalAll();
        } finally {
          lock.unlock();
        }
        LOG.log(System.Logger.Level.WARNING, "warm pool could not prepare an item for " + key
            + "; retrying in " + RETRY_AFTER_FAILURE.toSeconds() + " s", e);
        if (!sleep(RETRY_AFTER_FAILURE)) {
          return;
        }
        continue;
      }
      boolean added;
      lock.lock();
      try {
        making.get(key)[0]--;
        added = !closed && idle.get(key).offer(item);
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      if (!added) {
        closeQuietly(item);
      }
    }
  }

  /**
   * A key that needs the refill thread ({@link #leftToRefiller}), the one with the fewest items ready or
   * being made first. Under {@link #lock}.
   */
  private K nextShort() {
    K best = null;
    int bestReady = Integer.MAX_VALUE;
    for (Map.Entry<K, BlockingQueue<T>> e : idle.entrySet()) {
      int ready = e.getValue().size() + making.get(e.getKey())[0];
      if (ready < bestReady && leftToRefiller(e.getKey())) {
        best = e.getKey();
        bestReady = ready;
      }
    }
    return best;
  }

  /** The refill thread's pause after a failure; false if the pool closed or the thread was interrupted. */
  private boolean sleep(Duration d) {
    long left = d.toNanos();
    lock.lock();
    try {
      while (!closed) {
        if (left <= 0) {
          return true;
        }
        left = fillerWake.awaitNanos(left);
      }
      return false;
    } catch (InterruptedException e) {
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops refilling, waits (up to 30 s) for the items being made, by the refill thread or a
   * {@link #topUp}, and closes every item never handed out. Idempotent.
   */
  @Override
  public void close() {
    List<T> left = new ArrayList<>();
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      fillerWake.signalAll();
      changed.signalAll();
      idle.values().forEach(q -> q.drainTo(left));
    } finally {
      lock.unlock();
    }
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try {
      filler.join(Duration.ofSeconds(30));
      lock.lock();
      try {
        long remaining;
        while (making.values().stream().anyMatch(n -> n[0] > 0) && (remaining = end - System.nanoTime()) > 0) {
          changed.awaitNanos(remaining);
        }
      } finally {
        lock.unlock();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    left.forEach(WarmPool::closeQuietly);
  }

  private static void closeQuietly(AutoCloseable item) {
    try {
      item.close();
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, "could not close a pooled item", e);
    }
  }
}
