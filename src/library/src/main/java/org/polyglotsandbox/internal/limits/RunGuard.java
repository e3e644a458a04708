package org.polyglotsandbox.internal.limits;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.graalvm.polyglot.Context;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.internal.EnforcementSink;
import org.polyglotsandbox.internal.audit.Auditor;
import org.polyglotsandbox.internal.audit.EventLedger;

/**
 * One run's verdict so far: the first limit that tripped and the first output rejection, which decide
 * its outcome, with its {@link EventLedger} (what happened, and its audit delivery) and its
 * {@link Cancellation} (how the guest is stopped). Thread-safe: the guest thread, the watchdog and the
 * caller all use it.
 *
 * <p>The first tripped limit wins and decides the outcome, whatever exception the engine raises
 * afterwards (GraalPy, for one, surfaces a statement limit as an internal error).
 */
public final class RunGuard implements EnforcementSink {
  /** What tripped first. */
  public record Trip(Limit limit, String detail) {}

  private final String runId = UUID.randomUUID().toString();
  private final EventLedger ledger = new EventLedger(runId);
  private final Cancellation cancellation;
  private final AtomicReference<Trip> trip = new AtomicReference<>();
  private final AtomicReference<SandboxEvent.OutputRejected> rejection = new AtomicReference<>();

  /** @param canceller runs {@code close(true)} off the guest thread */
  public RunGuard(Executor canceller) {
    this.cancellation = new Cancellation(canceller);
  }

  /** The run's meter, once its run has one; see {@link #guestCpuNanos()}. */
  private volatile RunMeter meter;

  /** Links this guard to its run's meter; called by the meter's constructor. */
  void meteredBy(RunMeter meter) {
    this.meter = meter;
  }

  /**
   * The CPU time the run's guest thread has used since the guest program started, in nanoseconds: 0
   * before it starts (while the context is made, or in a pooled context not yet taken) and when anything
   * fails. What a Python guest reads as {@code time.process_time()} and {@code resource.getrusage}.
   */
  public long guestCpuNanos() {
    RunMeter m = meter;
    try {
      return m == null ? 0 : m.cpuTime().toNanos();
    } catch (RuntimeException e) {
      return 0;
    }
  }

  /** This run's id: a random UUID, unique across sandboxes and JVMs. */
  public String runId() {
    return runId;
  }

  /** Sends this run's events, labelled {@code label}, to {@code auditor} from now on. Call before the run starts. */
  public void auditTo(Auditor auditor, String label) {
    ledger.auditTo(auditor, label);
  }

  /** The embedder's label for this run; empty if none. */
  public String label() {
    return ledger.label();
  }

  /** Sets the context to cancel; if a limit already tripped, cancels it at once. */
  public void attach(Context context) {
    cancellation.attach(context);
    if (trip.get() != null) {
      cancel();
    }
  }

  @Override
  public void denied(Operation operation, String target, Layer layer) {
    ledger.denied(new SandboxEvent.DeniedOperation(Instant.now(), operation, target, layer));
  }

  @Override
  public void limitReached(Limit limit, String detail, Layer layer) {
    trip(limit, detail, layer, true);
  }

  /** Records a call through the tool gateway. */
  public void toolCall(SandboxEvent.ToolCall call) {
    ledger.add(call);
  }

  /** What the sandbox's own code in the run's context is doing, for a limit that trips meanwhile; else null. */
  private volatile String setUpStep;

  /**
   * Runs {@code setUp}, the sandbox's own code in the run's context before the program, so that a limit
   * tripping meanwhile says so ({@code step}, such as "importing the sandbox's pythonImports").
   */
  public void duringSetUp(String step, Runnable setUp) {
    setUpStep = step;
    try {
      setUp.run();
    } finally {
      setUpStep = null;
    }
  }

  /**
   * Records that a limit tripped and cancels the guest; later trips are ignored.
   *
   * @return whether this was the first trip
   */
  public boolean trip(Limit limit, String detail, Layer layer, boolean cancelGuest) {
    String step = setUpStep;
    if (step != null) {
      detail = detail + " while " + step + ", before the program's first statement";
    }
    if (!trip.compareAndSet(null, new Trip(limit, detail))) {
      return false;
    }
    ledger.add(new SandboxEvent.LimitExceeded(Instant.now(), limit, detail, layer));
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
    ledger.add(event);
    return trip.get() == null && rejection.compareAndSet(null, event);
  }

  /** The first output rejection made before any limit tripped, or null. */
  public SandboxEvent.OutputRejected rejection() {
    return rejection.get();
  }

  /**
   * Marks the start of a tool handler running on the guest thread (an {@code inline} tool). Past
   * {@code deadlineNanos} ({@link System#nanoTime()}), the watchdog interrupts it, as does a cancel; a
   * handler that ignores interrupts keeps the guest thread until it returns, though the run's result is
   * still delivered by its deadline.
   */
  public void enterInlineCall(long deadlineNanos) {
    cancellation.enterInlineCall(deadlineNanos);
  }

  /**
   * Marks the end of the inline call started by {@link #enterInlineCall}, and clears the interrupt this
   * guard sent, if any, so that it never reaches the guest.
   *
   * @return whether the call was interrupted (past its deadline, or cancelled)
   */
  public boolean exitInlineCall() {
    return cancellation.exitInlineCall();
  }

  /** Interrupts an inline call that is past its deadline; the watchdog calls this periodically. */
  void checkInlineCall(long nowNanos) {
    cancellation.checkInlineCall(nowNanos);
  }

  /** Cancels the guest without a limit (the host gave up on the run or the sandbox is closing). */
  public void cancel() {
    cancellation.cancel();
  }

  /** The first limit that tripped, or null. */
  public Trip tripped() {
    return trip.get();
  }

  /** Whether the run was cancelled by the host or a limit. */
  public boolean isCancelled() {
    return cancellation.isCancelled();
  }

  /** A snapshot of the events, oldest first. */
  public List<SandboxEvent> events() {
    return ledger.events();
  }

  /** Events that were not kept (see {@link EventLedger}). */
  public int droppedEvents() {
    return ledger.droppedEvents();
  }

  /** The events for the run's result; from now on nothing is audited (see {@link EventLedger#seal}). */
  public List<SandboxEvent> seal() {
    return ledger.seal();
  }

  /** Kept events the audit listener will not get (see {@link EventLedger#undeliveredEvents}). */
  public int undeliveredEvents() {
    return ledger.undeliveredEvents();
  }
}
