package org.polyglotsandbox.internal.audit;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.SandboxEvent;

/**
 * One run's events, in order, bounded, and their delivery to the {@link Auditor}. Thread-safe: the guest
 * thread, the watchdog and the caller all record into it.
 *
 * <p>At most {@value #MAX_EVENTS} events are kept (a limit or output rejection always is); repeats of
 * one denied attempt are kept once; the rest are counted in {@link #droppedEvents()}, so a guest cannot
 * flood the log.
 *
 * <p>Delivery: once {@linkplain #auditTo audited}, every kept event goes to the auditor exactly once
 * and in order. Events the guest thread causes are delivered on it at once; events recorded on other
 * threads (the watchdog's deadline, CPU and memory checks, the caller giving up) wait for the guest
 * thread's next event or for {@link #finishAudit}, so the embedder's listener never runs on the shared
 * watchdog thread, where a slow listener would delay every other run's limits.
 */
public final class EventLedger {
  private static final int MAX_EVENTS = 1000;
  /** How long {@link #finishAudit} waits for a guest thread still inside the listener. */
  private static final long FINISH_WAIT_SECONDS = 5;

  private final String runId;
  private final List<SandboxEvent> events = new ArrayList<>();
  private final Set<String> seenDenials = new HashSet<>();
  private int droppedEvents;
  private volatile Auditor auditor;
  private volatile Thread guestThread;
  /** Held while delivering; guards {@link #delivered} and {@link #auditFinished}. */
  private final ReentrantLock delivery = new ReentrantLock();
  private int delivered;
  private boolean auditFinished;

  /** @param runId the run's id, which every delivered event carries */
  public EventLedger(String runId) {
    this.runId = runId;
  }

  /** Sends this run's events to {@code auditor} from now on. Call before the run starts. */
  public void auditTo(Auditor auditor) {
    this.auditor = auditor;
  }

  /** Marks the calling thread as the guest thread, which from then on delivers the events it causes. */
  public void runsOnThisThread() {
    this.guestThread = Thread.currentThread();
  }

  /**
   * Records a denial, once per distinct attempt (interpreters retry the same lookup several times).
   *
   * @return whether it was kept
   */
  public boolean denied(SandboxEvent.DeniedOperation event) {
    synchronized (this) {
      if (events.size() >= MAX_EVENTS) {
        // The log is full: count the attempt, and keep no per-target state a guest could grow at will.
        droppedEvents++;
        return false;
      }
      Operation op = event.operation();
      Layer layer = event.layer();
      if (!seenDenials.add(op.id() + "\0" + event.target() + "\0" + layer.id())) {
        return false;
      }
    }
    add(event); // outside the lock: it may deliver
    return true;
  }

  /** Records an event; a limit or an output rejection is kept even when the log is full. */
  public void add(SandboxEvent event) {
    synchronized (this) {
      if (events.size() < MAX_EVENTS || event instanceof SandboxEvent.LimitExceeded
          || event instanceof SandboxEvent.OutputRejected) {
        events.add(event);
      } else {
        droppedEvents++;
        return;
      }
    }
    if (auditor != null && Thread.currentThread() == guestThread && delivery.tryLock()) {
      // If another thread holds the lock, it is delivering and will take this event along.
      try {
        deliver(Integer.MAX_VALUE);
      } finally {
        delivery.unlock();
      }
    }
  }

  /** A snapshot of the events, oldest first. */
  public synchronized List<SandboxEvent> events() {
    return List.copyOf(events);
  }

  /** Events that were not kept because the run produced more than {@value #MAX_EVENTS}. */
  public synchronized int droppedEvents() {
    return droppedEvents;
  }

  /**
   * Delivers the first {@code eventsInResult} events not delivered yet, then stops auditing: later
   * events (of a guest thread that outlived its run) are in no result and go nowhere. Called once,
   * after the result is built. Waits at most a few seconds for a guest thread still inside the
   * listener, then gives up on the rest.
   */
  public void finishAudit(int eventsInResult) {
    if (auditor == null) {
      return;
    }
    boolean locked;
    try {
      locked = delivery.tryLock(FINISH_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      // The caller was interrupted (its run is cancelled): deliver if nobody is delivering, never wait.
      Thread.currentThread().interrupt();
      locked = delivery.tryLock();
    }
    if (!locked) {
      System.getLogger("org.polyglotsandbox").log(System.Logger.Level.WARNING,
          "run " + runId + ": the audit listener did not return; the run's remaining audit events are dropped");
      return;
    }
    try {
      deliver(eventsInResult);
      auditFinished = true;
    } finally {
      delivery.unlock();
    }
  }

  /** Delivers events in order up to index {@code upTo}; the caller holds {@link #delivery}. */
  private void deliver(int upTo) {
    Auditor a = auditor;
    while (!auditFinished) {
      SandboxEvent next;
      synchronized (this) {
        if (delivered >= Math.min(upTo, events.size())) {
          return;
        }
        next = events.get(delivered++);
      }
      a.deliver(runId, next);
    }
  }
}
