package org.polyglotsandbox;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The outcome of one run. Everything in it came from untrusted code: treat the value, the streams and
 * the error message as data to validate, never as instructions or trusted text.
 *
 * <p>No polyglot {@code Value} or guest object survives the run: {@link #value()} is built only from
 * {@code null}, {@link Boolean}, {@link Long}, {@link Double}, {@link java.math.BigInteger},
 * {@link String}, unmodifiable {@link List} and unmodifiable {@link java.util.Map} with string keys.
 */
public final class ExecutionResult {
  private final Outcome outcome;
  private final Limit limit;
  private final Object value;
  private final String errorMessage;
  private final List<String> guestStackTrace;
  private final Integer exitStatus;
  private final String stdout;
  private final String stderr;
  private final Usage usage;
  private final List<SandboxEvent> events;
  private final String runId;
  private final int droppedEvents;

  ExecutionResult(Outcome outcome, Limit limit, Object value, String errorMessage, List<String> guestStackTrace,
      Integer exitStatus, String stdout, String stderr, Usage usage, List<SandboxEvent> events, String runId,
      int droppedEvents) {
    this.outcome = outcome;
    this.limit = limit;
    this.value = value;
    this.errorMessage = errorMessage;
    this.guestStackTrace = List.copyOf(guestStackTrace);
    this.exitStatus = exitStatus;
    this.stdout = stdout;
    this.stderr = stderr;
    this.usage = usage;
    this.events = List.copyOf(events);
    this.runId = runId;
    this.droppedEvents = droppedEvents;
  }

  /**
   * The run's id, a random UUID: it names the run in {@link AuditEvent}s, in JDK Flight Recorder events
   * and in {@code bin/sandbox}'s audit log.
   */
  public String runId() {
    return runId;
  }

  /** How the run ended. */
  public Outcome outcome() {
    return outcome;
  }

  /** Whether the run ended {@link Outcome#OK}. */
  public boolean isOk() {
    return outcome == Outcome.OK;
  }

  /** The limit that stopped the run, present exactly when the outcome is {@link Outcome#LIMIT_EXCEEDED}. */
  public Optional<Limit> limit() {
    return Optional.ofNullable(limit);
  }

  /**
   * The value of the program's last expression as plain, immutable Java data (untrusted), or {@code null}
   * when there is none or the run did not end {@link Outcome#OK}. Guest functions are left out.
   */
  public Object value() {
    return value;
  }

  /**
   * The error as guest code would describe it, such as {@code "TypeError: x is not a function"}
   * (untrusted text); empty when the outcome is {@link Outcome#OK}. Never a host stack trace or host
   * class name.
   */
  public Optional<String> errorMessage() {
    return Optional.ofNullable(errorMessage);
  }

  /** The guest frames of the error, innermost first, such as {@code "main.py:3 (f)"}; may be empty. */
  public List<String> guestStackTrace() {
    return guestStackTrace;
  }

  /** The status the guest passed to {@code exit}/{@code sys.exit}, if it exited that way. */
  public OptionalInt exitStatus() {
    return exitStatus == null ? OptionalInt.empty() : OptionalInt.of(exitStatus);
  }

  /** What the guest wrote to stdout, decoded as UTF-8, at most the output limit (untrusted). */
  public String stdout() {
    return stdout;
  }

  /** What the guest wrote to stderr, decoded as UTF-8, at most the output limit (untrusted). */
  public String stderr() {
    return stderr;
  }

  /** What the run consumed. */
  public Usage usage() {
    return usage;
  }

  /**
   * Denied operations, tripped limits and tool calls, in order: at most 1,000, plus the limit that
   * ended the run; see {@link #droppedEvents()}.
   */
  public List<SandboxEvent> events() {
    return events;
  }

  /** {@link #events()} as audit events of this run. */
  public List<AuditEvent> auditEvents() {
    return events.stream().map(e -> new AuditEvent(runId, e)).toList();
  }

  /**
   * Events the run produced beyond the 1,000 it keeps: counted, but in neither {@link #events()}, the
   * audit listener nor JDK Flight Recorder.
   */
  public int droppedEvents() {
    return droppedEvents;
  }

  /** The denied-operation events only. */
  public List<SandboxEvent.DeniedOperation> deniedOperations() {
    return events.stream()
        .filter(SandboxEvent.DeniedOperation.class::isInstance)
        .map(SandboxEvent.DeniedOperation.class::cast)
        .toList();
  }

  @Override
  public String toString() {
    return "ExecutionResult{" + outcome + (limit == null ? "" : "(" + limit.id() + ")")
        + (errorMessage == null ? "" : ", error=" + errorMessage)
        + ", value=" + value + ", events=" + events.size() + ", " + usage + "}";
  }
}
