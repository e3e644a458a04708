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
  private final Object lock = new Object();
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

  /** Tells a refill held back while busy to look again (call when a run ends). */
  public void wake() {
    synchronized (lock) {
      lock.notifyAll();
    }
  }

  /** A ready item for {@code key}, removed from the pool, or null if none is ready. */
  public T poll(K key) {
    BlockingQueue<T> queue = idle.get(key);
    T item = queue == null ? null : queue.poll();
    if (item != null) {
      synchronized (lock) {
        wanted = true;
        lock.notifyAll();
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
    synchronized (lock) {
      if (closed || !hasRoom(key)) {
        return false;
      }
      making.get(key)[0]++;
    }
    T item = null;
    try {
      item = factory.apply(key);
      made.incrementAndGet();
    } catch (RuntimeException | Error e) {
      LOG.log(System.Logger.Level.DEBUG, "warm pool could not top up " + key + "; the refill thread retries", e);
    }
    boolean added;
    synchronized (lock) {
      making.get(key)[0]--;
      added = item != null && !closed && idle.get(key).offer(item);
      if (item == null) {
        wanted = true; // the refill thread makes it instead
      }
      lock.notifyAll();
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
    synchronized (lock) {
      added = !closed && hasRoom(key) && idle.get(key).offer(item);
      lock.notifyAll();
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
    long end = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (!closed && !isFull()) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        lock.wait(Math.max(1, left / 1_000_000));
      }
      return isFull();
    }
  }

  private boolean isFull() {
    return idle.values().stream().allMatch(q -> q.remainingCapacity() == 0);
  }

  private void refill() {
    while (true) {
      K key;
      synchronized (lock) {
        key = null;
        while (!closed && (key = nextShort()) == null) {
          wanted = false;
          lock.notifyAll();
          try {
            while (!closed && !wanted) {
              lock.wait();
            }
          } catch (InterruptedException e) {
            return;
          }
        }
        long deferUntil = System.nanoTime() + maxDeferNanos;
        try {
          long left;
          while (!closed && !idle.get(key).isEmpty() && busy.getAsBoolean()
              && (left = deferUntil - System.nanoTime()) > 0) {
            lock.wait(Math.max(1, left / 1_000_000));
          }
        } catch (InterruptedException e) {
          return;
        }
        if (closed) {
          return;
        }
        if (!hasRoom(key)) {
          continue; // topped up meanwhile by a taker
        }
        making.get(key)[0]++;
      }
      T item;
      try {
        item = factory.apply(key);
        made.incrementAndGet();
      } catch (RuntimeException | Error e) {
        synchronized (lock) {
          making.get(key)[0]--;
          lock.notifyAll();
        }
        LOG.log(System.Logger.Level.WARNING, "warm pool could not prepare an item for " + key
            + "; retrying in " + RETRY_AFTER_FAILURE.toSeconds() + " s", e);
        if (!sleep(RETRY_AFTER_FAILURE)) {
          return;
        }
        continue;
      }
      boolean added;
      synchronized (lock) {
        making.get(key)[0]--;
        added = !closed && idle.get(key).offer(item);
        lock.notifyAll();
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

  private boolean sleep(Duration d) {
    synchronized (lock) {
      long end = System.nanoTime() + d.toNanos();
      try {
        while (!closed) {
          long left = end - System.nanoTime();
          if (left <= 0) {
            return true;
          }
          lock.wait(Math.max(1, left / 1_000_000));
        }
      } catch (InterruptedException e) {
        return false;
      }
      return false;
    }
  }

  /**
   * Stops refilling, waits (up to 30 s) for the items being made, by the refill thread or a
   * {@link #topUp}, and closes every item never handed out. Idempotent.
   */
  @Override
  public void close() {
    List<T> left = new ArrayList<>();
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      lock.notifyAll();
      idle.values().forEach(q -> q.drainTo(left));
    }
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try {
      filler.join(Duration.ofSeconds(30));
      synchronized (lock) {
        long remaining;
        while (making.values().stream().anyMatch(n -> n[0] > 0) && (remaining = end - System.nanoTime()) > 0) {
          lock.wait(Math.max(1, remaining / 1_000_000));
        }
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
