package org.polyglotsandbox.internal.pool;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads an embedder makes to call a sandbox from, on which that sandbox runs its guests itself, with
 * no hand-off to a run thread. A thread qualifies only for the owner that made it, whose run threads
 * have the same stack size (the stack limit depends on it), and only while it is not already running a
 * guest: a tool handler that calls the sandbox again from inside a run gets a run thread as usual.
 */
public final class CallerThreads implements ThreadFactory {
  private final Object owner;
  private final long stackSize;
  private final String namePrefix;
  private final AtomicLong ids = new AtomicLong();

  /**
   * @param owner what the threads may run guests for (the sandbox's engine room)
   * @param stackSize the owner's run-thread stack size, in bytes
   */
  public CallerThreads(Object owner, long stackSize, String namePrefix) {
    this.owner = Objects.requireNonNull(owner, "owner");
    this.stackSize = stackSize;
    this.namePrefix = namePrefix;
  }

  /** A new, unstarted platform thread with the owner's stack size; not a daemon, like the JDK's default factory's. */
  @Override
  public Thread newThread(Runnable r) {
    return new CallerThread(owner, r, namePrefix + ids.incrementAndGet(), stackSize);
  }

  /**
   * The current thread if {@code owner} may run a guest on it now (one of its own caller threads, not
   * running a guest already), otherwise null.
   */
  public static CallerThread current(Object owner) {
    return Thread.currentThread() instanceof CallerThread t && t.owner == owner && !t.running ? t : null;
  }

  /** A thread made by {@link CallerThreads}. */
  public static final class CallerThread extends Thread {
    private final Object owner;
    /** Whether a guest runs on this thread now. Only this thread reads and writes it. */
    private boolean running;

    private CallerThread(Object owner, Runnable r, String name, long stackSize) {
      super(null, r, name, stackSize);
      this.owner = owner;
    }

    /**
     * Runs {@code run} (a guest's run, start to end) on this thread, which must be the current one; a
     * call to {@link #current} from inside it returns null.
     */
    public void runGuest(Runnable run) {
      if (Thread.currentThread() != this) {
        throw new IllegalStateException("a caller thread runs guests only for itself");
      }
      running = true;
      try {
        run.run();
      } finally {
        running = false;
      }
    }
  }
}
