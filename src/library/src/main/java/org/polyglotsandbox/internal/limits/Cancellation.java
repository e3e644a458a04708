package org.polyglotsandbox.internal.limits;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.graalvm.polyglot.Context;

/**
 * How one run's guest is stopped: its context closed with {@code close(true)} off the guest thread, and
 * an inline tool handler running on the guest thread interrupted. Thread-safe.
 */
final class Cancellation {
  private final Executor canceller;
  private volatile Context context;
  private volatile boolean cancelled;
  /** The guest thread while it runs a tool handler itself (an inline tool), or null; guarded by this. */
  private Thread inlineCaller;
  private long inlineDeadline;
  private boolean inlineInterrupted;

  /** @param canceller runs {@code close(true)} off the guest thread */
  Cancellation(Executor canceller) {
    this.canceller = canceller;
  }

  /** Sets the context to cancel; if the run was already cancelled, cancels it at once. */
  void attach(Context c) {
    this.context = c;
    if (cancelled) {
      cancel();
    }
  }

  boolean isCancelled() {
    return cancelled;
  }

  void cancel() {
    cancelled = true;
    interruptInlineCall();
    Context c = context;
    if (c != null) {
      try {
        canceller.execute(() -> closeWithCancellation(c));
      } catch (RejectedExecutionException sandboxClosed) {
        // The sandbox is closing: its engine is closed with cancellation, which stops this context too.
      }
    }
  }

  /**
   * Closes {@code c} with cancellation, again if the heap ran out meanwhile: a context left open holds
   * all its guest allocated, for good, and under an allocation bomb the close itself can meet an
   * {@link OutOfMemoryError} (seen: eight bombs in a 384 MiB heap, the heap full for a minute after).
   * Each failure gives the heap guard's reserve back; the tries stop after {@value #CLOSE_TRIES}.
   *
   * @return what close threw, or null: a context whose limit tripped rethrows the limit from close() (or,
   *     with assertions on, can fail GraalVM's assertion "The TruffleContext must be entered" while it builds
   *     that exception's stack trace); it is closed either way
   */
  static Throwable closeWithCancellation(Context c) {
    for (int attempt = 1; ; attempt++) {
      try {
        c.close(true);
        return null;
      } catch (RuntimeException | AssertionError closedAnyway) {
        return closedAnyway;
      } catch (OutOfMemoryError e) {
        Watchdog.heapExhausted();
        if (attempt >= CLOSE_TRIES) {
          throw e;
        }
        try {
          Thread.sleep(Math.min(200, 10L * attempt));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return null;
        }
      }
    }
  }

  /** How often a close that ran out of heap is tried: about 10 s of pauses in all. */
  static final int CLOSE_TRIES = 60;

  synchronized void enterInlineCall(long deadlineNanos) {
    inlineCaller = Thread.currentThread();
    inlineDeadline = deadlineNanos;
    inlineInterrupted = false;
  }

  synchronized boolean exitInlineCall() {
    inlineCaller = null;
    boolean interrupted = inlineInterrupted;
    inlineInterrupted = false;
    if (interrupted) {
      Thread.interrupted();
    }
    return interrupted;
  }

  synchronized void checkInlineCall(long nowNanos) {
    if (inlineCaller != null && nowNanos - inlineDeadline > 0) {
      interruptInlineCall();
    }
  }

  private synchronized void interruptInlineCall() {
    if (inlineCaller != null && !inlineInterrupted) {
      inlineInterrupted = true;
      inlineCaller.interrupt();
    }
  }
}
