package org.polyglotsandbox.internal.pool;

import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The threads guest code runs on: platform threads with the policy's stack size (the stack limit
 * depends on it), kept for a while after a run so that the next run does not pay for a new thread and
 * an 8 MiB stack. A thread carries no guest state from one run to the next: each run has its own
 * context, entered and closed on the thread, and the interrupt status is cleared before each run.
 * There is no queue: a run that finds no idle thread gets a new one (runs are bounded by the sandbox's
 * admission, not here).
 */
public final class RunThreads implements Executor, AutoCloseable {
  private static final long KEEP_ALIVE_SECONDS = 30;

  private final ThreadPoolExecutor threads;

  public RunThreads(long stackSize, String namePrefix) {
    AtomicLong ids = new AtomicLong();
    this.threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
        new SynchronousQueue<>(),
        r -> Thread.ofPlatform().name(namePrefix + ids.incrementAndGet()).daemon(true).stackSize(stackSize)
            .unstarted(r));
  }

  /**
   * Runs {@code run} on an idle thread or a new one.
   *
   * @throws java.util.concurrent.RejectedExecutionException if closed, or no thread could be started
   */
  @Override
  public void execute(Runnable run) {
    threads.execute(() -> {
      Thread.interrupted();
      run.run();
    });
  }

  /** Lets running guests finish (they are cancelled separately) and ends idle threads. */
  @Override
  public void close() {
    threads.shutdown();
  }
}
