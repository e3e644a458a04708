package org.polyglotsandbox.internal.audit;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timestamp;
import java.util.Map;
import org.polyglotsandbox.AuditEvent;
import org.polyglotsandbox.internal.boundary.PlainData;

/**
 * The JDK Flight Recorder form of an {@link AuditEvent}, so that standard JVM tooling ({@code jcmd
 * JFR.start}, {@code -XX:StartFlightRecording}, JDK Mission Control) can record what sandboxes refused.
 * Recorded only while a recording enables it; otherwise emitting it costs a flag check.
 */
@Name(AuditEvent.JFR_EVENT_NAME)
@Label("Sandbox Audit")
@Category({"Polyglot Sandbox"})
@Description("A denied operation, a tripped limit or a tool call of a sandboxed guest run")
@StackTrace(false) // the host frames of the enforcing layer say nothing about the guest
public final class AuditJfrEvent extends Event {
  @Label("Run ID")
  String runId;

  @Label("Label")
  @Description("The embedder's label for the run (Script.withLabel), empty if none")
  String label;

  @Label("Attributes")
  @Description("The run's audited attributes (Script.withAuditedAttribute) as a JSON object, {} if none")
  String attributes;

  @Label("Operation")
  String operation;

  @Label("Target")
  @Description("What the guest aimed at, in guest terms (untrusted text)")
  String target;

  @Label("Verdict")
  String verdict;

  @Label("Layer")
  String layer;

  @Label("Detail")
  String detail;

  @Label("Event Time")
  @Description("When the sandbox recorded it")
  @Timestamp(Timestamp.MILLISECONDS_SINCE_EPOCH)
  long eventTime;

  /** The attributes as a JSON object of strings, in their order. */
  static String json(Map<String, String> attributes) {
    return attributes.isEmpty() ? "{}" : PlainData.toJson(attributes, PlainData.Format.textSafe());
  }

  /** Initialises this class and the text its fields take from {@code e}, recording nothing. */
  static void prepare(AuditEvent e) {
    new AuditJfrEvent().isEnabled();
    json(e.attributes());
    e.operation().id();
    e.verdict().id();
    e.layer().id();
    e.time().toEpochMilli();
  }

  /** Commits the event if a recording has it enabled. */
  static void emit(AuditEvent e) {
    AuditJfrEvent jfr = new AuditJfrEvent();
    if (!jfr.isEnabled()) {
      return;
    }
    jfr.runId = e.runId();
    jfr.label = e.label();
    jfr.attributes = json(e.attributes());
    jfr.operation = e.operation().id();
    jfr.target = e.target();
    jfr.verdict = e.verdict().id();
    jfr.layer = e.layer().id();
    jfr.detail = e.detail();
    jfr.eventTime = e.time().toEpochMilli();
    jfr.commit();
  }
}
