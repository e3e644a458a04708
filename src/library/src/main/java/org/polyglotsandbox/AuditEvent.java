package org.polyglotsandbox;

import java.time.Instant;
import java.util.Locale;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of the audit log: a {@link SandboxEvent} of a run, seen as who did what to which target,
 * what the sandbox decided, and which layer decided it.
 *
 * <p>Every denied attempt, tripped limit and tool call of a run becomes one: in
 * {@link ExecutionResult#auditEvents()}, through {@link PolyglotSandbox.Builder#auditListener} shortly
 * after it happens (unless the listener falls 10,000 events behind: see
 * {@link ExecutionResult#undeliveredAuditEvents()}), and as a JDK Flight Recorder event named
 * {@value #JFR_EVENT_NAME}. The same events, and only those, reach all three: a run keeps at most 1,000 events (plus the limit that ended it); attempts
 * beyond that are counted in {@link ExecutionResult#droppedEvents()} and logged nowhere. Repeats of the
 * same denied attempt (same operation, target and layer) in one run are recorded once.
 *
 * @param runId the run's {@link ExecutionResult#runId()}
 * @param label the embedder's label for the run ({@link Script#withLabel}), empty if none
 * @param event what happened
 * @param attributes the run's attributes the embedder marked as audited ({@link Script#withAuditedAttribute}),
 *     unmodifiable, in the order set; empty if none
 * @since 0.1.0
 */
public record AuditEvent(String runId, String label, SandboxEvent event, Map<String, String> attributes) {
  /**
   * The name of the JDK Flight Recorder event emitted for each audit event.
   *
   * @since 0.1.0
   */
  public static final String JFR_EVENT_NAME = "org.polyglotsandbox.Audit";

  /** @since 0.1.0 */
  public AuditEvent {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(event, "event");
    attributes = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(attributes, "attributes")));
  }

  /**
   * An event of a run without audited attributes.
   *
   * @since 0.1.0
   */
  public AuditEvent(String runId, String label, SandboxEvent event) {
    this(runId, label, event, Map.of());
  }

  /**
   * When it happened.
   *
   * @since 0.1.0
   */
  public Instant time() {
    return event.time();
  }

  /**
   * The operation: the denied one; {@link Operation#LIMIT_EXCEED} for a limit; {@link Operation#TOOL_CALL}
   * for a tool call.
   *
   * @since 0.1.0
   */
  public Operation operation() {
    return switch (event) {
      case SandboxEvent.DeniedOperation d -> d.operation();
      case SandboxEvent.LimitExceeded l -> Operation.LIMIT_EXCEED;
      case SandboxEvent.ToolCall t -> Operation.TOOL_CALL;
      case SandboxEvent.OutputRejected o -> Operation.OUTPUT_WRITE;
    };
  }

  /**
   * What it was aimed at, in guest terms: a guest path, a tool name, a {@link Limit#id()}. Untrusted text.
   *
   * @since 0.1.0
   */
  public String target() {
    return switch (event) {
      case SandboxEvent.DeniedOperation d -> d.target();
      case SandboxEvent.LimitExceeded l -> l.limit().id();
      case SandboxEvent.ToolCall t -> t.tool();
      case SandboxEvent.OutputRejected o -> o.path();
    };
  }

  /**
   * What the sandbox decided.
   *
   * @since 0.1.0
   */
  public Verdict verdict() {
    return switch (event) {
      case SandboxEvent.DeniedOperation d -> Verdict.DENIED;
      case SandboxEvent.LimitExceeded l -> Verdict.STOPPED;
      case SandboxEvent.ToolCall t -> Verdict.ALLOWED;
      case SandboxEvent.OutputRejected o -> Verdict.DENIED;
    };
  }

  /**
   * The layer that decided.
   *
   * @since 0.1.0
   */
  public Layer layer() {
    return event.layer();
  }

  /**
   * More about it, for people: a limit's detail, or a tool call's own verdict, duration and argument
   * size (such as {@code "ok in 3 ms, 17 argument bytes"}); empty for a denial.
   *
   * @since 0.1.0
   */
  public String detail() {
    return switch (event) {
      case SandboxEvent.DeniedOperation d -> "";
      case SandboxEvent.LimitExceeded l -> l.detail();
      case SandboxEvent.ToolCall t -> t.status().name().toLowerCase(Locale.ROOT) + " in "
          + t.duration().toMillis() + " ms, " + t.argumentBytes() + " argument bytes";
      case SandboxEvent.OutputRejected o -> o.reason().name().toLowerCase(Locale.ROOT) + ": " + o.detail();
    };
  }
}
