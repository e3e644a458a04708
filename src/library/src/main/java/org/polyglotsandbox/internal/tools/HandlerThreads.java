package org.polyglotsandbox.internal.tools;

import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The threads tool handlers run on: never the guest's, so a handler that blocks cannot hold a run past
 * its deadline. A thread pool's handoff (park, unpark, wake) costs tens of microseconds on a busy
 * machine, more than the rest of a tool call; here the guest thread and an idle worker each spin for
 * up to {@value #SPIN_NANOS} ns before parking, so back-to-back calls hand over in about a
 * microsecond. Workers are reused while idle and end after {@value #IDLE_SECONDS} s without work; a
 * worker whose call was abandoned (timeout, cancellation) is interrupted and never reused. At most
 * {@code maxWorkers} exist at once, so a handler that ignores interrupts cannot be made to pile up
 * threads by a guest calling it again and again.
 */
final class HandlerThreads implements AutoCloseable {
  static final long SPIN_NANOS = 50_000;
  static final long IDLE_SECONDS = 2;
  /** Handler threads one sandbox may have at once, running or abandoned. */
  static final int MAX_WORKERS = 256;
  private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(IDLE_SECONDS);
  private static final AtomicInteger NAMES = new AtomicInteger();

  private final Set<Worker> workers = ConcurrentHashMap.newKeySet();
  private final ConcurrentLinkedDeque<Worker> idle = new ConcurrentLinkedDeque<>();
  private final int maxWorkers;
  private volatile boolean closed;

  HandlerThreads() {
    this(MAX_WORKERS);
  }

  HandlerThreads(int maxWorkers) {
    this.maxWorkers = maxWorkers;
  }

  /**
   * Starts {@code task} on a worker.
   *
   * @throws RejectedExecutionException if closed, or {@code maxWorkers} threads are busy
   */
  Call start(Callable<Object> task) {
    if (closed) {
      throw new RejectedExecutionException("closed");
    }
    Worker w;
    while ((w = idle.pollFirst()) != null && !w.claim()) {
      // an idle worker that timed out and ended; try the next
    }
    Call call = new Call(task, Thread.currentThread());
    if (w == null) {
      if (workers.size() >= maxWorkers) {
        throw new RejectedExecutionException("busy");
      }
      w = new Worker();
      workers.add(w);
      w.call = call;
      w.thread.start();
    } else {
      w.call = call;
      if (w.parked) { // a spinning worker sees the call without the cost of an unpark
        LockSupport.unpark(w.thread);
      }
    }
    return call;
  }

  @Override
  public void close() {
    closed = true;
    for (Worker w : workers) {
      w.thread.interrupt();
      LockSupport.unpark(w.thread);
    }
  }

  /** One handler call, from the caller's side. */
  static final class Call {
    private final Callable<Object> task;
    private final Thread caller;
    private volatile boolean done;
    /** Set while the caller parks, so {@link #publish} unparks only a caller that needs it. */
    private volatile boolean waiting;
    private Object result; // published by the write to done
    private Throwable failure;
    private Thread runner; // guarded by this
    private boolean abandoned; // guarded by this

    Call(Callable<Object> task, Thread caller) {
      this.task = task;
      this.caller = caller;
    }

    /**
     * Waits for the answer.
     *
     * @throws TimeoutException after {@code timeoutNanos}
     * @throws CancellationException when {@code cancelled} says so or the waiting thread is interrupted
     * @throws ExecutionException with the handler's exception as cause
     */
    Object await(long timeoutNanos, long pollNanos, BooleanSupplier cancelled)
        throws TimeoutException, ExecutionException {
      long start = System.nanoTime();
      try {
        while (!done && System.nanoTime() - start < SPIN_NANOS) {
          Thread.onSpinWait();
        }
        while (!done) {
          long left = timeoutNanos - (System.nanoTime() - start);
          if (left <= 0) {
            throw new TimeoutException();
          }
          waiting = true;
          if (!done) { // checked after waiting is set: publish either sees waiting or is seen here
            LockSupport.parkNanos(this, Math.min(left, pollNanos));
          }
          waiting = false;
          if (done) {
            break;
          }
          if (Thread.interrupted() || cancelled.getAsBoolean()) {
            throw new CancellationException("the run was cancelled");
          }
        }
      } catch (TimeoutException | RuntimeException e) {
        abandon();
        throw e;
      }
      if (failure != null) {
        throw new ExecutionException(failure);
      }
      return result;
    }

    private synchronized void abandon() {
      abandoned = true;
      if (runner != null) {
        runner.interrupt();
      }
    }

    /**
     * Runs the task on the current worker without telling the caller yet ({@link #publish}); false if
     * the call was abandoned, and then the worker must not be reused.
     */
    private boolean execute() {
      synchronized (this) {
        if (abandoned) {
          return false;
        }
        runner = Thread.currentThread();
      }
      try {
        result = task.call();
      } catch (Throwable t) {
        failure = t;
      }
      synchronized (this) {
        runner = null;
        return !abandoned;
      }
    }

    /** Hands the answer to the caller. */
    private void publish() {
      done = true;
      if (waiting) {
        LockSupport.unpark(caller);
      }
    }
  }

  private final class Worker implements Runnable {
    private static final int BUSY = 0;
    private static final int IDLE = 1;
    private static final int ENDED = 2;

    final Thread thread;
    final AtomicInteger state = new AtomicInteger(BUSY);
    volatile Call call;
    /** Set while the worker parks, so {@link #start} unparks only a worker that needs it. */
    volatile boolean parked;

    Worker() {
      thread = new Thread(this, "polyglot-sandbox-tool-" + NAMES.incrementAndGet());
      thread.setDaemon(true);
    }

    boolean claim() {
      return state.compareAndSet(IDLE, BUSY);
    }

    @Override
    public void run() {
      try {
        while (!closed) {
          Call c = next();
          if (c == null) {
            return;
          }
          call = null;
          // Back in the idle list before the caller learns the answer, so its next call finds this worker.
          boolean reusable = c.execute() & !Thread.interrupted();
          if (reusable) {
            state.set(IDLE);
            idle.addFirst(this);
          }
          c.publish();
          if (!reusable) {
            return; // abandoned: its thread may still carry the interrupt; start afresh next time
          }
        }
      } finally {
        state.set(ENDED);
        workers.remove(this);
      }
    }

    /** The next call: spins briefly, then parks; null when idle too long or closed. */
    private Call next() {
      long start = System.nanoTime();
      while (true) {
        Call c = call;
        if (c != null) {
          return c;
        }
        if (closed) {
          return null;
        }
        long waited = System.nanoTime() - start;
        if (waited < SPIN_NANOS) {
          Thread.onSpinWait();
        } else if (waited > IDLE_NANOS) {
          if (state.compareAndSet(IDLE, ENDED)) {
            return null;
          }
          start = System.nanoTime(); // claimed just now: the call is on its way
        } else {
          parked = true;
          if (call == null && !closed) { // checked after parked is set: start either sees parked or is seen here
            LockSupport.parkNanos(this, IDLE_NANOS - waited);
          }
          parked = false;
        }
      }
    }
  }
}
