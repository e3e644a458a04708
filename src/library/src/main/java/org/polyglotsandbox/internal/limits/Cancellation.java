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
        canceller.execute(() -> {
          try {
            c.close(true);
          } catch (RuntimeException | AssertionError alreadyDeadOrClosing) {
            // A context whose limit tripped rethrows from close() (or, with assertions on, can fail
            // GraalVM's assertion while building that exception, as RunEnvironment.close says); it is
            // stopped either way.
          }
        });
      } catch (RejectedExecutionException sandboxClosed) {
        // The sandbox is closing: its engine is closed with cancellation, which stops this context too.
      }
    }
  }

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
