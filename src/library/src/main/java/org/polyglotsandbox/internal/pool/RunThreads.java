package org.polyglotsandbox.internal.pool;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The threads guest code runs on: platform threads with the policy's stack size (the stack limit
 * depends on it), kept for a while after a run so that the next run does not pay for a new thread and
 * an 8 MiB stack. A thread carries no guest state from one run to the next: each run has its own
 * context, entered and closed on the thread, and the interrupt status is cleared before each run.
 * There is no queue: a run that finds no idle thread gets a new one (runs are bounded by the sandbox's
 * admission, not here).
 *
 * <p>With a CPU threshold ({@code lowerPriorityAfter}), a run that has used that much CPU time has its
 * thread's nice value raised to {@value #LOWERED_NICE} ({@link Demotion}) for the rest of the run, so that
 * on a busy machine shorter runs go first. An unprivileged process cannot undo that, so the thread ends
 * after the run instead of taking another; so does a thread that a lowered thread started (a run called
 * from a tool handler inside such a run), which inherited its priority.
 */
public final class RunThreads implements Executor, AutoCloseable {
  private static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(30);
  /** The lowest priority there is: a thread at nice 19 gets about 1.5% of a core beside one at nice 0. */
  static final int LOWERED_NICE = 19;

  private final long stackSize;
  private final String namePrefix;
  private final long keepAliveNanos;
  /** CPU nanoseconds after which a run's thread is lowered; negative: never. */
  private final long lowerAfterNanos;
  private final NativePriority nativePriority;
  private final AtomicLong ids = new AtomicLong();
  private final ReentrantLock lock = new ReentrantLock();
  /** Threads waiting for a run, the most recently used first. Guarded by {@link #lock}. */
  private final ArrayDeque<Worker> idle = new ArrayDeque<>();
  private boolean closed;

  public RunThreads(long stackSize, String namePrefix) {
    this(stackSize, namePrefix, null);
  }

  /**
   * @param lowerPriorityAfter the CPU time after which a run's thread is lowered; null: never, and then the
   *     Foreign Function API is not touched (its first use costs start-up time)
   */
  public RunThreads(long stackSize, String namePrefix, Duration lowerPriorityAfter) {
    this(stackSize, namePrefix, lowerPriorityAfter, KEEP_ALIVE_NANOS,
        lowerPriorityAfter == null ? null : NativePriority.get());
  }

  RunThreads(long stackSize, String namePrefix, Duration lowerPriorityAfter, long keepAliveNanos,
      NativePriority nativePriority) {
    this.stackSize = stackSize;
    this.namePrefix = namePrefix;
    this.keepAliveNanos = keepAliveNanos;
    this.nativePriority = nativePriority;
    this.lowerAfterNanos = lowerPriorityAfter == null || nativePriority.whyUnavailable() != null
        ? -1 : lowerPriorityAfter.toNanos();
  }

  /** Why runs' threads cannot be lowered on this platform (see {@link NativePriority}), or null if they can. */
  public static String whyPriorityCannotBeLowered() {
    return NativePriority.get().whyUnavailable();
  }

  /**
   * Runs {@code run} on an idle thread or a new one.
   *
   * @throws RejectedExecutionException if closed, or no thread could be started
   */
  @Override
  public void execute(Runnable run) {
    Objects.requireNonNull(run, "run");
    lock.lock();
    try {
      if (closed) {
        throw new RejectedExecutionException("the sandbox's run threads are closed");
      }
      Worker w = idle.pollFirst();
      if (w != null) {
        w.next = run;
        w.wake.signal();
        return;
      }
    } finally {
      lock.unlock();
    }
    // Started from this thread, a new thread inherits its nice value; from a lowered run thread, it is
    // lowered too, and must not be kept.
    boolean inheritsLowered = Thread.currentThread() instanceof Worker parent && parent.lowered;
    Worker w = new Worker(run, inheritsLowered);
    try {
      w.start();
    } catch (OutOfMemoryError e) {
      throw new RejectedExecutionException("no thread could be started for the run: " + e.getMessage(), e);
    }
  }

  /** Lets running guests finish (they are cancelled separately) and ends idle threads. */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      for (Worker w : idle) {
        w.wake.signal();
      }
      idle.clear();
    } finally {
      lock.unlock();
    }
  }

  /** Threads waiting for a run now. */
  int idleThreads() {
    lock.lock();
    try {
      return idle.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * What lowers the current run's thread once the run has used enough CPU time, or null where nothing
   * does: the current thread is not a run thread (a caller thread, whose priority the sandbox never
   * touches), or its sandbox has no threshold, or this platform cannot lower priorities. Call on the
   * guest thread when the run starts; use from any thread until the run ends.
   */
  public static Demotion demotionOfCurrentRun() {
    return Thread.currentThread() instanceof Worker w && w.pool().lowerAfterNanos >= 0 && w.tid > 0
        ? new Demotion(w, w.pool().lowerAfterNanos) : null;
  }

  /** Lowers one run's thread once that run has used its threshold of CPU time. */
  public static final class Demotion {
    private final Worker worker;
    private final long afterNanos;
    private final long runNumber;
    private volatile boolean done;

    private Demotion(Worker worker, long afterNanos) {
      this.worker = worker;
      this.afterNanos = afterNanos;
      this.runNumber = worker.runNumber;
    }

    /**
     * Lowers the run's thread if {@code cpuNanos}, the run's CPU time so far, is past the threshold and the
     * run has not ended; does nothing after the first time it has.
     */
    public void check(long cpuNanos) {
      if (!done && cpuNanos >= afterNanos) {
        done = true;
        worker.lower(runNumber);
      }
    }

    /** Whether this run's thread was lowered. */
    public boolean lowered() {
      return worker.loweredInRun(runNumber);
    }
  }

  private final class Worker extends Thread {
    private final Condition wake = lock.newCondition();
    private Runnable first;
    /** The run handed to this idle thread. Guarded by {@link #lock}. */
    private Runnable next;
    /** This thread's kernel id, or -1: known only where runs may be lowered. */
    private volatile int tid = -1;
    /** Which of this thread's runs is running (counted from 1), or 0 between runs. Guarded by this. */
    private long runNumber;
    private long lastRun;
    /**
     * Set with the nice value, before the run ends, or from the start for a thread that a lowered one
     * started (it inherited the nice value); the thread then ends after the run. Guarded by this.
     */
    private volatile boolean lowered;
    /** The run that was lowered: the first one for a thread that inherited its priority. Guarded by this. */
    private long loweredRun;

    Worker(Runnable first, boolean inheritedLowered) {
      super(null, null, namePrefix + ids.incrementAndGet(), stackSize);
      setDaemon(true);
      this.first = first;
      this.lowered = inheritedLowered;
      this.loweredRun = inheritedLowered ? 1 : 0;
    }

    RunThreads pool() {
      return RunThreads.this;
    }

    @Override
    public void run() {
      if (lowerAfterNanos >= 0) {
        tid = nativePriority.currentThreadId();
      }
      Runnable task = first;
      first = null;
      while (task != null) {
        Thread.interrupted();
        synchronized (this) {
          runNumber = ++lastRun;
        }
        try {
          task.run();
        } finally {
          synchronized (this) {
            runNumber = 0;
          }
        }
        // Not held while idle: a run's task reaches its context and everything its guest allocated.
        task = null;
        if (lowered) {
          return; // for good: the next run would start at this run's priority
        }
        task = awaitNext();
      }
    }

    /** Lowers this thread if run {@code run} is still running on it; the thread then ends after it. */
    synchronized void lower(long run) {
      // Under the monitor the run cannot end meanwhile, so the thread lowered is this run's, alive.
      if (run != runNumber || lowered) {
        return;
      }
      if (nativePriority.setNice(tid, LOWERED_NICE)) {
        lowered = true;
        loweredRun = run;
      }
    }

    synchronized boolean loweredInRun(long run) {
      return lowered && loweredRun == run;
    }

    /** The next run for this thread, or null once it has waited long enough or the pool is closed. */
    private Runnable awaitNext() {
      lock.lock();
      try {
        if (closed) {
          return null;
        }
        idle.addFirst(this);
        long nanos = keepAliveNanos;
        while (next == null && !closed && nanos > 0) {
          try {
            nanos = wake.awaitNanos(nanos);
          } catch (InterruptedException e) {
            // not ours to keep: the next run's interrupt status is cleared anyway
          }
        }
        Runnable task = next;
        next = null;
        if (task == null) {
          idle.remove(this);
        }
        return task;
      } finally {
        lock.unlock();
      }
    }
  }
}
