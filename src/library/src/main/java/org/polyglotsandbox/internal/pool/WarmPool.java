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
 * run took one would compete with that very run for the CPU. An empty key is refilled at once.
 *
 * <p>A taker that tops up itself takes with {@link #pollForTopUp}, which leaves the refill thread asleep
 * unless the key ran empty: waking it for an item the taker is about to make cost every run a futex call
 * and a context switch or two (RESULTS.md, 2026-12-04). The refill thread and the threads waiting for a
 * full pool wait on separate conditions, so neither wakes the other for nothing.
 *
 * @param <K> what an item is made for (a language)
 * @param <T> the item; closed by the pool only if it is never handed out
 */
public final class WarmPool<K, T extends AutoCloseable> implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  private static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(1);

  private final int size;
  private final Function<K, T> factory;
  private final BooleanSupplier busy;
  private final long maxDeferNanos;
  private final Map<K, BlockingQueue<T>> idle = new LinkedHashMap<>();
  /** Items being made now, per key, by the filler or by {@link #topUp}. Guarded by {@link #lock}. */
  private final Map<K, int[]> making = new LinkedHashMap<>();
  private final ReentrantLock lock = new ReentrantLock();
  /** Where the refill thread waits: for {@link #wanted}, out a deferral, or out a pause after a failure. */
  private final Condition fillerWake = lock.newCondition();
  /** Where everyone else waits for a change: an item added, one no longer being made, the pool closed. */
  private final Condition changed = lock.newCondition();
  /** Whether the refill thread is holding a refill back while busy. Guarded by {@link #lock}. */
  private boolean deferring;
  private final AtomicLong made = new AtomicLong();
  private final Thread filler;
  private boolean closed;
  private boolean wanted = true;

  /** A pool that refills as soon as an item is taken. */
  public WarmPool(Collection<K> keys, int size, Function<K, T> factory, String threadName) {
    this(keys, size, factory, threadName, () -> false, Duration.ZERO);
  }

  /**
   * Starts refilling at once.
   *
   * @param size items kept ready per key, at least 1
   * @param factory makes one ready item; may throw
   * @param busy whether to hold back a refill that is not urgent (the key still has an item)
   * @param maxDefer how long a refill is held back at most
   */
  public WarmPool(Collection<K> keys, int size, Function<K, T> factory, String threadName, BooleanSupplier busy,
      Duration maxDefer) {
    if (size < 1) {
      throw new IllegalArgumentException("pool size (" + size + ") must be at least 1");
    }
    this.size = size;
    this.factory = factory;
    this.busy = busy;
    this.maxDeferNanos = maxDefer.toNanos();
    keys.forEach(k -> {
      idle.put(k, new ArrayBlockingQueue<>(size));
      making.put(k, new int[1]);
    });
    this.filler = Thread.ofPlatform().name(threadName).daemon(true).unstarted(this::refill);
    filler.start();
  }

  /**
   * Call when a run ends: a refill held back while busy looks again, and a key left short with nothing
   * being made for it (its taker did not top up: the sandbox closing, the heap over budget) is refilled
   * by the refill thread. Wakes nobody otherwise.
   */
  public void wake() {
    lock.lock();
    try {
      if (deferring) {
        fillerWake.signal();
      } else if (!closed && !wanted && shortWithNothingMaking()) {
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

  /** Whether a key has room and nothing is being made for it. Under {@link #lock}. */
  private boolean shortWithNothingMaking() {
    for (Map.Entry<K, BlockingQueue<T>> e : idle.entrySet()) {
      if (making.get(e.getKey())[0] == 0 && e.getValue().size() < size) {
        return true;
      }
    }
    return false;
  }

  /** A ready item for {@code key}, removed from the pool, or null if none is ready; the refill thread replaces it. */
  public T poll(K key) {
    return poll(key, false);
  }

  /**
   * A ready item for {@code key}, removed from the pool, or null if none is ready, for a taker that will
   * call {@link #topUp} (or {@link #wake}) when done with it: the refill thread is woken only if the key
   * is now empty.
   */
  public T pollForTopUp(K key) {
    return poll(key, true);
  }

  private T poll(K key, boolean takerTopsUp) {
    BlockingQueue<T> queue = idle.get(key);
    T item = queue == null ? null : queue.poll();
    if (item != null && (!takerTopsUp || queue.isEmpty())) {
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
    T item = null;
    try {
      item = factory.apply(key);
      made.incrementAndGet();
    } catch (RuntimeException | Error e) {
      LOG.log(System.Logger.Level.DEBUG, "warm pool could not top up " + key + "; the refill thread retries", e);
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
            while (!closed && !wanted) {
              fillerWake.await();
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
        if (!hasRoom(key)) {
          continue; // topped up meanwhile by a taker
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

  /** A key with room, the one with the fewest items ready or being made first. Under {@link #lock}. */
  private K nextShort() {
    K best = null;
    int bestReady = Integer.MAX_VALUE;
    for (Map.Entry<K, BlockingQueue<T>> e : idle.entrySet()) {
      int ready = e.getValue().size() + making.get(e.getKey())[0];
      if (ready < size && ready < bestReady) {
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
