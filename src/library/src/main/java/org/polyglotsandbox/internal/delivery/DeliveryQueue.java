package org.polyglotsandbox.internal.delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Items offered by any thread, handed to one consumer on one daemon thread of their own, in the order
 * offered, each at most once. {@link #offer} never blocks: when {@code capacity} items are waiting, the
 * item is dropped and counted ({@link #dropped()}), so a slow or stuck consumer costs memory for at most
 * {@code capacity} items and holds no producer.
 *
 * <p>A consumer that throws (even an {@link Error}) loses that item only: the failure is logged to the
 * {@code org.polyglotsandbox} logger, the first with its stack trace, then every 1,000th as a count.
 *
 * <p>{@link #close(Duration)} takes no more items and waits, at most the given time, for those queued to
 * be delivered; the rest are dropped and counted, and a consumer still busy is interrupted and left to
 * finish on its own (daemon) thread.
 *
 * @param <T> what is delivered
 */
public final class DeliveryQueue<T> implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  /** Ends the delivery thread once everything before it was delivered. */
  private static final Object END = new Object();

  private final String consumerName;
  private final Consumer<? super T> consumer;
  private final int capacity;
  /** One more place than {@link #capacity}, for {@link #END}, which must always fit. */
  private final BlockingQueue<Object> queue;
  private final Thread thread;
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  /** Guarded by this: once set, nothing more is queued. */
  private boolean closed;
  private volatile boolean abandoned;

  /**
   * Starts the delivery thread.
   *
   * @param consumerName what the consumer is, for the log, such as {@code "the sandbox audit listener"}
   * @param threadName the delivery thread's name
   * @param capacity items that may wait, at least 1
   */
  public DeliveryQueue(String consumerName, String threadName, int capacity, Consumer<? super T> consumer) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity (" + capacity + ") must be at least 1");
    }
    this.consumerName = consumerName;
    this.consumer = consumer;
    this.capacity = capacity;
    this.queue = new ArrayBlockingQueue<>(capacity + 1);
    this.thread = Thread.ofPlatform().name(threadName).daemon(true).unstarted(this::deliverAll);
    thread.start();
  }

  /**
   * Queues {@code item} for the consumer; never blocks.
   *
   * @return whether it was queued; false (and counted in {@link #dropped()}) if the queue was full or closed
   */
  public boolean offer(T item) {
    synchronized (this) {
      // Under the lock so that close() knows exactly what was queued before it.
      if (!closed && queue.size() < capacity && queue.offer(item)) {
        return true;
      }
    }
    dropped.incrementAndGet();
    return false;
  }

  /** Items not delivered: offered to a full or closed queue, or still queued when it closed. */
  public long dropped() {
    return dropped.get();
  }

  /** Items waiting now. */
  public int pending() {
    return (int) queue.stream().filter(o -> o != END).count();
  }

  /** The delivery thread, for tests and diagnostics. */
  public Thread thread() {
    return thread;
  }

  /** Closes with no wait: what is still queued is dropped. */
  @Override
  public void close() {
    close(Duration.ZERO);
  }

  /**
   * Takes no more items and waits at most {@code wait} for the queued ones to be delivered; drops and
   * counts the rest. Idempotent; later calls return at once.
   *
   * @return how many items were dropped because they were still queued
   */
  public long close(Duration wait) {
    synchronized (this) {
      if (closed) {
        return 0;
      }
      closed = true;
      queue.add(END); // fits: offer() keeps one place free
    }
    try {
      thread.join(Math.max(1, wait.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!thread.isAlive()) {
      return 0;
    }
    abandoned = true;
    thread.interrupt();
    List<Object> left = new ArrayList<>();
    queue.drainTo(left);
    long n = left.stream().filter(o -> o != END).count();
    dropped.addAndGet(n);
    LOG.log(System.Logger.Level.WARNING, consumerName + " did not keep up; " + n + " undelivered item"
        + (n == 1 ? "" : "s") + " dropped at close");
    return n;
  }

  private void deliverAll() {
    while (!abandoned) {
      Object next;
      try {
        next = queue.poll(1, TimeUnit.DAYS);
      } catch (InterruptedException e) {
        continue; // only close() interrupts, after setting abandoned
      }
      if (next == END) {
        return;
      }
      if (next != null && !abandoned) {
        deliver(next);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private void deliver(Object item) {
    try {
      consumer.accept((T) item);
    } catch (Throwable t) { // the embedder's code: even an Error must not end delivery
      long n = failures.incrementAndGet();
      if (n == 1) {
        LOG.log(System.Logger.Level.WARNING, consumerName + " threw; the item is dropped for it", t);
      } else if (n % 1000 == 0) {
        LOG.log(System.Logger.Level.WARNING, consumerName + " has thrown " + n + " times: " + t);
      }
    }
    Thread.interrupted(); // an interrupt the consumer left behind must not end the next poll
  }
}
