package org.polyglotsandbox.internal.limits;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.graalvm.polyglot.Context;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.internal.EnforcementSink;
import org.polyglotsandbox.internal.audit.Auditor;

/**
 * One run's enforcement state: the events so far, the first limit that tripped, and the means to
 * cancel the guest. Thread-safe: the guest thread, the watchdog and the caller all use it.
 *
 * <p>The first tripped limit wins and decides the outcome, whatever exception the engine raises
 * afterwards (GraalPy, for one, surfaces a statement limit as an internal error).
 *
 * <p>Audit: once {@linkplain #auditTo audited}, every kept event goes to the {@link Auditor} exactly
 * once and in order. Events the guest thread causes are delivered on it at once; events recorded on
 * other threads (the watchdog's deadline, CPU and memory checks, the caller giving up) wait for the
 * guest thread's next event or for {@link #finishAudit}, so the embedder's listener never runs on the
 * shared watchdog thread, where a slow listener would delay every other run's limits.
 */
public final class RunGuard implements EnforcementSink {
  /** What tripped first. */
  public record Trip(Limit limit, String detail) {}

  private static final int MAX_EVENTS = 1000;
  /** How long {@link #finishAudit} waits for a guest thread still inside the listener. */
  private static final long FINISH_WAIT_SECONDS = 5;

  private final String runId = UUID.randomUUID().toString();
  private final Executor canceller;
  private final AtomicReference<Trip> trip = new AtomicReference<>();
  private final AtomicReference<SandboxEvent.OutputRejected> rejection = new AtomicReference<>();
  private final List<SandboxEvent> events = new ArrayList<>();
  private final Set<String> seenDenials = new HashSet<>();
  private int droppedEvents;
  private volatile Context context;
  private volatile boolean cancelled;
  private volatile Auditor auditor;
  private volatile Thread guestThread;
  /** Held while delivering; guards {@link #delivered} and {@link #auditFinished}. */
  private final ReentrantLock delivery = new ReentrantLock();
  private int delivered;
  private boolean auditFinished;
  /** The guest thread while it runs a tool handler itself (an inline tool), or null; guarded by this. */
  private Thread inlineCaller;
  private long inlineDeadline;
  private boolean inlineInterrupted;

  /** @param canceller runs {@code close(true)} off the guest thread */
  public RunGuard(Executor canceller) {
    this.canceller = canceller;
  }

  /** This run's id: a random UUID, unique across sandboxes and JVMs. */
  public String runId() {
    return runId;
  }

  /** Sends this run's events to {@code auditor} from now on. Call before the run starts. */
  public void auditTo(Auditor auditor) {
    this.auditor = auditor;
  }

  /**
   * Marks the calling thread as the run's guest thread, which from then on delivers the audit events it
   * causes. Called when the run starts on its thread (the context may have been made earlier, elsewhere,
   * by the warm pool).
   */
  public void runsOnThisThread() {
    this.guestThread = Thread.currentThread();
  }

  /** Sets the context to cancel; if a limit already tripped, cancels it at once. */
  public void attach(Context context) {
    this.context = context;
    if (trip.get() != null || cancelled) {
      cancel();
    }
  }

  @Override
  public void denied(Operation operation, String target, Layer layer) {
    synchronized (this) {
      if (events.size() >= MAX_EVENTS) {
        // The log is full: count the attempt, and keep no per-target state a guest could grow at will.
        droppedEvents++;
        return;
      }
      // Interpreters retry the same lookup several times; one event per distinct attempt is enough.
      if (!seenDenials.add(operation.id() + "\0" + target + "\0" + layer.id())) {
        return;
      }
    }
    add(new SandboxEvent.DeniedOperation(Instant.now(), operation, target, layer)); // outside the lock: it audits
  }

  @Override
  public void limitReached(Limit limit, String detail, Layer layer) {
    trip(limit, detail, layer, true);
  }

  /** Records a call through the tool gateway. */
  public void toolCall(SandboxEvent.ToolCall call) {
    add(call);
  }

  /**
   * Records that a limit tripped and cancels the guest; later trips are ignored.
   *
   * @return whether this was the first trip
   */
  public boolean trip(Limit limit, String detail, Layer layer, boolean cancelGuest) {
    if (!trip.compareAndSet(null, new Trip(limit, detail))) {
      return false;
    }
    add(new SandboxEvent.LimitExceeded(Instant.now(), limit, detail, layer));
    if (cancelGuest) {
      cancel();
    }
    return true;
  }

  /**
   * Records that the output boundary refused part of the run's output. The first refusal made while no
   * limit had tripped is kept as {@link #rejection()}; every one is recorded as an event.
   *
   * @return whether this became the run's rejection
   */
  public boolean outputRejected(SandboxEvent.OutputRejected event) {
    add(event);
    return trip.get() == null && rejection.compareAndSet(null, event);
  }

  /** The first output rejection made before any limit tripped, or null. */
  public SandboxEvent.OutputRejected rejection() {
    return rejection.get();
  }

  /**
   * Marks the start of a tool handler running on the guest thread (an {@code inline} tool). Past
   * {@code deadlineNanos} ({@link System#nanoTime()}), the resource monitor interrupts it, as does a
   * cancel; a handler that ignores interrupts keeps the guest thread until it returns, though the run's
   * result is still delivered by its deadline.
   */
  public synchronized void enterInlineCall(long deadlineNanos) {
    inlineCaller = Thread.currentThread();
    inlineDeadline = deadlineNanos;
    inlineInterrupted = false;
  }

  /**
   * Marks the end of the inline call started by {@link #enterInlineCall}, and clears the interrupt this
   * guard sent, if any, so that it never reaches the guest.
   *
   * @return whether the call was interrupted (past its deadline, or cancelled)
   */
  public synchronized boolean exitInlineCall() {
    inlineCaller = null;
    boolean interrupted = inlineInterrupted;
    inlineInterrupted = false;
    if (interrupted) {
      Thread.interrupted();
    }
    return interrupted;
  }

  /** Interrupts an inline call that is past its deadline; the resource monitor calls this periodically. */
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

  /** Cancels the guest without a limit (the host gave up on the run or the sandbox is closing). */
  public void cancel() {
    cancelled = true;
    interruptInlineCall();
    Context c = context;
    if (c != null) {
      canceller.execute(() -> {
        try {
          c.close(true);
        } catch (RuntimeException alreadyDeadOrClosing) {
          // A context whose limit tripped rethrows from close(); it is stopped either way.
        }
      });
    }
  }

  /** The first limit that tripped, or null. */
  public Trip tripped() {
    return trip.get();
  }

  /** Whether the run was cancelled by the host or a limit. */
  public boolean isCancelled() {
    return cancelled;
  }

  /** A snapshot of the events, oldest first. */
  public synchronized List<SandboxEvent> events() {
    return List.copyOf(events);
  }

  /** Events that were not kept because the run produced more than {@value #MAX_EVENTS}. */
  public synchronized int droppedEvents() {
    return droppedEvents;
  }

  private void add(SandboxEvent event) {
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
      Thread.currentThread().interrupt();
      locked = false;
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
