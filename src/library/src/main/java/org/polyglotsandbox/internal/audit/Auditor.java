package org.polyglotsandbox.internal.audit;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import org.polyglotsandbox.AuditEvent;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.internal.delivery.DeliveryQueue;

/**
 * Hands one sandbox's audit events to JDK Flight Recorder, at once, and to the embedder's listener, on
 * the sandbox's audit thread through a bounded queue ({@link DeliveryQueue}), so that a slow or stuck
 * listener never holds a guest, the watchdog or a caller. Events reach the listener in the order they
 * were recorded. When {@value #QUEUE_CAPACITY} events wait for the listener, more are not delivered to
 * it and are counted ({@link #undelivered()}). A listener that throws loses that event only; the failure
 * is logged.
 */
public final class Auditor implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  /** Events that may wait for the listener: a few hundred bytes each, plus guest text they quote. */
  static final int QUEUE_CAPACITY = 10_000;

  private final DeliveryQueue<AuditEvent> toListener;
  /** The audited attributes of the run this view publishes for; empty for the sandbox's own auditor. */
  private final Map<String, String> attributes;

  /**
   * @param listener the embedder's listener, or null for JFR only (then no thread is started)
   * @param threadName the name of the thread that calls the listener
   */
  public Auditor(Consumer<? super AuditEvent> listener, String threadName) {
    this.toListener = listener == null ? null
        : new DeliveryQueue<>("the sandbox audit listener", threadName, QUEUE_CAPACITY, listener);
    this.attributes = Map.of();
    prepare();
  }

  /**
   * Initialises what publishing an event needs, the JFR event class above all, without recording
   * anything: its first use would otherwise fall on the heap sentinel stopping an allocation bomb, and a
   * class whose initialiser fails for want of heap fails for good ("Could not initialize class
   * AuditJfrEvent" on every later stop; CI, eight bombs in a 384 MiB heap).
   */
  private static void prepare() {
    AuditEvent sample = new AuditEvent("prepare", "", new SandboxEvent.LimitExceeded(java.time.Instant.EPOCH,
        org.polyglotsandbox.Limit.MEMORY, "prepare", org.polyglotsandbox.Layer.WATCHDOG), Map.of("k", "v"));
    AuditJfrEvent.prepare(sample);
  }

  private Auditor(DeliveryQueue<AuditEvent> toListener, Map<String, String> attributes) {
    this.toListener = toListener;
    this.attributes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(attributes));
  }

  /**
   * This auditor for one run whose events carry {@code attributes} (the embedder's audited ones): same
   * JFR stream, same listener queue. Closing it is closing this one.
   */
  public Auditor forRun(Map<String, String> attributes) {
    return attributes.isEmpty() ? this : new Auditor(toListener, new java.util.LinkedHashMap<>(attributes));
  }

  /**
   * Emits one event of run {@code runId} (labelled {@code label} by the embedder) to JFR and queues it for the listener; never blocks, never
   * throws, never runs embedder code on the calling thread.
   *
   * @return false if the listener will not get it (its queue was full, or the sandbox is closed)
   */
  public boolean publish(String runId, String label, SandboxEvent event) {
    AuditEvent audit = new AuditEvent(runId, label, event, attributes);
    try {
      AuditJfrEvent.emit(audit);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "a sandbox audit event could not be emitted to JFR", e);
    }
    return toListener == null || toListener.offer(audit);
  }

  /** Events the listener did not get: its queue was full, or they were still queued at {@link #close}. */
  public long undelivered() {
    return toListener == null ? 0 : toListener.dropped();
  }

  /**
   * Takes no more events and waits at most {@code wait} for the listener to take those queued; the
   * rest are dropped, counted in {@link #undelivered()} and logged as a count.
   */
  public void close(Duration wait) {
    if (toListener != null) {
      toListener.close(wait);
    }
  }

  /** Closes without waiting. */
  @Override
  public void close() {
    close(Duration.ZERO);
  }
}
