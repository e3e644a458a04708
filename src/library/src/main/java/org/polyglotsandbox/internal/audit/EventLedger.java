package org.polyglotsandbox.internal.audit;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.SandboxEvent;

/**
 * One run's events, in order, bounded, and their hand-over to the {@link Auditor}. Thread-safe: the
 * guest thread, the watchdog and the caller all record into it.
 *
 * <p>At most {@value #MAX_EVENTS} events are kept (a limit or output rejection always is); repeats of
 * one denied attempt are kept once; the rest are counted in {@link #droppedEvents()}, so a guest cannot
 * flood the log.
 *
 * <p>Audit: once {@linkplain #auditTo audited}, every kept event is handed to the auditor as it is
 * recorded, in order, on the recording thread; the auditor never blocks it (it queues for the
 * listener). {@link #seal()} ends that: its snapshot is the run's result, and later events (of a guest
 * thread that outlived its run) are in no result and audited nowhere.
 */
public final class EventLedger {
  private static final int MAX_EVENTS = 1000;

  private final String runId;
  private final List<SandboxEvent> events = new ArrayList<>();
  private final Set<String> seenDenials = new HashSet<>();
  private int droppedEvents;
  private int undeliveredEvents;
  private boolean sealed;
  private Auditor auditor;
  private String label = "";

  /** @param runId the run's id, which every audited event carries */
  public EventLedger(String runId) {
    this.runId = runId;
  }

  /**
   * Sends this run's events to {@code auditor} from now on, each with the embedder's {@code label} for
   * the run. Call before the run starts.
   */
  public synchronized void auditTo(Auditor auditor, String label) {
    this.auditor = auditor;
    this.label = label;
  }

  /** The embedder's label for the run, which every audited event carries; empty if none. */
  public synchronized String label() {
    return label;
  }

  /**
   * Records a denial, once per distinct attempt (interpreters retry the same lookup several times).
   *
   * @return whether it was kept
   */
  public synchronized boolean denied(SandboxEvent.DeniedOperation event) {
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
    add(event);
    return true;
  }

  /** Records an event; a limit or an output rejection is kept even when the log is full. */
  public synchronized void add(SandboxEvent event) {
    if (events.size() >= MAX_EVENTS && !(event instanceof SandboxEvent.LimitExceeded)
        && !(event instanceof SandboxEvent.OutputRejected)) {
      droppedEvents++;
      return;
    }
    events.add(event);
    // Under the lock, so that the auditor gets the events in the order of the list. It never blocks.
    if (auditor != null && !sealed && !auditor.publish(runId, label, event)) {
      undeliveredEvents++;
    }
  }

  /** A snapshot of the events, oldest first. */
  public synchronized List<SandboxEvent> events() {
    return List.copyOf(events);
  }

  /**
   * The events for the run's result, oldest first; from now on no event is audited. Called once, when
   * the result is built.
   */
  public synchronized List<SandboxEvent> seal() {
    sealed = true;
    return List.copyOf(events);
  }

  /** Events that were not kept because the run produced more than {@value #MAX_EVENTS}. */
  public synchronized int droppedEvents() {
    return droppedEvents;
  }

  /** Kept events the listener will not get: its queue was full when they were recorded. */
  public synchronized int undeliveredEvents() {
    return undeliveredEvents;
  }
}
