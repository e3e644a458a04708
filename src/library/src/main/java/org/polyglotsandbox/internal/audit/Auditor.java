package org.polyglotsandbox.internal.audit;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.polyglotsandbox.AuditEvent;
import org.polyglotsandbox.SandboxEvent;

/**
 * Hands one sandbox's audit events to JDK Flight Recorder and to the embedder's listener. A listener
 * that throws never disturbs the run: the failure is logged (the first one with its stack trace, then
 * every 1,000th) and the event is dropped for that listener only.
 */
public final class Auditor {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");

  private final Consumer<? super AuditEvent> listener;
  private final AtomicLong failures = new AtomicLong();

  /** @param listener the embedder's listener, or null for JFR only */
  public Auditor(Consumer<? super AuditEvent> listener) {
    this.listener = listener;
  }

  /** Emits one event of run {@code runId}; never throws. */
  public void deliver(String runId, SandboxEvent event) {
    AuditEvent audit = new AuditEvent(runId, event);
    try {
      AuditJfrEvent.emit(audit);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "a sandbox audit event could not be emitted to JFR", e);
    }
    if (listener == null) {
      return;
    }
    try {
      listener.accept(audit);
    } catch (Throwable t) { // the embedder's code: even an Error must not reach the guest or the watchdog
      long n = failures.incrementAndGet();
      if (n == 1) {
        LOG.log(System.Logger.Level.WARNING, "the sandbox audit listener threw; its events are dropped", t);
      } else if (n % 1000 == 0) {
        LOG.log(System.Logger.Level.WARNING, "the sandbox audit listener has thrown " + n + " times: " + t);
      }
    }
  }
}
