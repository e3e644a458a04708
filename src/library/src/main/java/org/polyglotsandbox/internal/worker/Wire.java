package org.polyglotsandbox.internal.worker;

import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.internal.boundary.TextSanitizer;
import org.polyglotsandbox.internal.spi.ApiAccess;
import org.polyglotsandbox.internal.spi.RunRecord;
import org.polyglotsandbox.internal.worker.Frames.ProtocolException;

/**
 * The sandbox's values as the channel carries them: plain JSON maps, written by one side and read back by
 * the other. The host reads what a worker sends as hostile: every field is checked for its kind and range,
 * text is sanitised again, a result's value is held to the policy's result limits, and anything else is a
 * {@link ProtocolException} that gets the worker killed.
 */
final class Wire {
  private Wire() {}

  // ---- policy and tools: host to worker (the worker trusts the host) ----

  static Map<String, Object> policy(Policy p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("languages", p.languages().stream().map(Enum::name).toList());
    List<Object> mounts = new ArrayList<>();
    for (Mount mount : p.mounts()) {
      Map<String, Object> mm = new LinkedHashMap<>();
      mm.put("host", mount.hostPath().map(Path::toString).orElse(null));
      mm.put("guest", mount.guestPath());
      mm.put("operations", mount.operations().stream().map(Enum::name).toList());
      mounts.add(mm);
    }
    m.put("mounts", mounts);
    m.put("limits", limits(p.limits()));
    m.put("workingDirectory", p.workingDirectory());
    m.put("tools", List.copyOf(p.tools()));
    return m;
  }

  static Policy policy(Map<String, Object> m) {
    Policy.Builder b = Policy.builder();
    for (Object l : list(m, "languages")) {
      b.allowLanguages(Language.valueOf((String) l));
    }
    for (Object o : list(m, "mounts")) {
      Map<String, Object> mm = map(o);
      String host = (String) mm.get("host");
      String guest = (String) mm.get("guest");
      Set<Operation> ops = EnumSet.noneOf(Operation.class);
      for (Object op : list(mm, "operations")) {
        ops.add(Operation.valueOf((String) op));
      }
      b.mount(host == null ? Mount.scratch(guest) : Mount.of(Path.of(host), guest, ops));
    }
    b.limits(limits(map(m.get("limits"))));
    b.workingDirectory((String) m.get("workingDirectory"));
    b.allowTools(list(m, "tools").stream().map(String.class::cast).toArray(String[]::new));
    return b.build();
  }

  static Map<String, Object> limits(Limits l) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("maxStatements", l.maxStatements());
    m.put("wallTime", l.wallTime().toNanos());
    m.put("maxCpuTime", l.maxCpuTime().toNanos());
    m.put("maxAllocatedBytes", l.maxAllocatedBytes());
    m.put("maxFileBytes", l.maxFileBytes());
    m.put("maxFiles", (long) l.maxFiles());
    m.put("maxOutputBytes", l.maxOutputBytes());
    m.put("stackSize", l.stackSize());
    m.put("maxResultNodes", (long) l.maxResultNodes());
    m.put("maxResultDepth", (long) l.maxResultDepth());
    m.put("maxResultStringLength", (long) l.maxResultStringLength());
    m.put("maxResultChars", l.maxResultChars());
    m.put("maxOutputFileBytes", l.maxOutputFileBytes());
    m.put("maxTotalOutputFileBytes", l.maxTotalOutputFileBytes());
    return m;
  }

  static Limits limits(Map<String, Object> m) {
    return Limits.builder()
        .maxStatements(num(m, "maxStatements"))
        .wallTime(Duration.ofNanos(num(m, "wallTime")))
        .maxCpuTime(Duration.ofNanos(num(m, "maxCpuTime")))
        .maxAllocatedBytes(num(m, "maxAllocatedBytes"))
        .maxFileBytes(num(m, "maxFileBytes"))
        .maxFiles((int) num(m, "maxFiles"))
        .maxOutputBytes(num(m, "maxOutputBytes"))
        .stackSize(num(m, "stackSize"))
        .maxResultNodes((int) num(m, "maxResultNodes"))
        .maxResultDepth((int) num(m, "maxResultDepth"))
        .maxResultStringLength((int) num(m, "maxResultStringLength"))
        .maxResultChars(num(m, "maxResultChars"))
        .maxOutputFileBytes(num(m, "maxOutputFileBytes"))
        .maxTotalOutputFileBytes(num(m, "maxTotalOutputFileBytes"))
        .build();
  }

  /** A tool as the worker rebuilds it: everything but the handler, which the worker forwards to the host. */
  static Map<String, Object> tool(Tool t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", t.name());
    m.put("description", t.description());
    m.put("parameters", t.parameters());
    m.put("result", t.result().orElse(null));
    m.put("maxCallsPerRun", (long) t.maxCallsPerRun());
    m.put("timeout", t.timeout().toNanos());
    m.put("maxArgumentBytes", (long) t.maxArgumentBytes());
    return m;
  }

  static Tool tool(Map<String, Object> m, Tool.ContextualHandler handler) {
    Tool.Builder b = Tool.builder((String) m.get("name"))
        .description((String) m.get("description"))
        .parameters((String) m.get("parameters"))
        .maxCallsPerRun((int) num(m, "maxCallsPerRun"))
        .timeout(Duration.ofNanos(num(m, "timeout")))
        .maxArgumentBytes((int) num(m, "maxArgumentBytes"))
        .handler(handler);
    if (m.get("result") instanceof String r) {
      b.result(r);
    }
    return b.build();
  }

  // ---- results: worker to host (the host trusts nothing) ----

  static Map<String, Object> result(ExecutionResult r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("outcome", r.outcome().name());
    m.put("limit", r.limit().map(Enum::name).orElse(null));
    List<Object> nonFinite = new ArrayList<>();
    m.put("value", withoutNonFinite(r.value(), new ArrayList<>(), nonFinite));
    m.put("nonFinite", nonFinite);
    m.put("errorMessage", r.errorMessage().orElse(null));
    m.put("stack", r.guestStackTrace());
    m.put("exitStatus", r.exitStatus().isPresent() ? (Object) (long) r.exitStatus().getAsInt() : null);
    m.put("stdout", r.stdout());
    m.put("stderr", r.stderr());
    ExecutionResult.Usage u = r.usage();
    Map<String, Object> usage = new LinkedHashMap<>();
    usage.put("wallTime", u.wallTime().toNanos());
    usage.put("cpuTime", u.cpuTime().toNanos());
    usage.put("allocatedBytes", u.allocatedBytes());
    usage.put("statements", u.statements().isPresent() ? (Object) u.statements().getAsLong() : null);
    usage.put("outputBytes", u.outputBytes());
    usage.put("fileBytes", u.fileBytes());
    usage.put("files", u.files());
    usage.put("queueTime", u.queueTime().toNanos());
    usage.put("setupTime", u.setupTime().toNanos());
    m.put("usage", usage);
    m.put("events", r.events().stream().map(Wire::event).toList());
    m.put("rejection", r.outputRejection().map(Wire::event).orElse(null));
    ExecutionResult.OutputNotes n = r.outputNotes();
    m.put("notes", List.of(changes(n.stdout()), changes(n.stderr()), changes(n.errorMessage())));
    Map<String, Object> files = new LinkedHashMap<>();
    r.outputFiles().forEach((p, f) -> files.put(p, Base64.getEncoder().encodeToString(f.bytes())));
    m.put("outputFiles", files);
    m.put("missingOutputFiles", r.missingOutputFiles());
    m.put("runId", r.runId());
    m.put("label", r.label());
    m.put("undeliveredOutputChunks", r.undeliveredOutputChunks());
    m.put("droppedEvents", (long) r.droppedEvents());
    return m;
  }

  /**
   * The record of a result a worker sent, checked: the value within the policy's result limits, text
   * sanitised, every field of its kind.
   */
  static RunRecord result(Map<String, Object> m, Limits limits, ApiAccess api, long queueNanos, int undeliveredAudit)
      throws ProtocolException {
    try {
      Outcome outcome = Outcome.valueOf(str(m, "outcome"));
      Limit limit = m.get("limit") == null ? null : Limit.valueOf(str(m, "limit"));
      if ((outcome == Outcome.LIMIT_EXCEEDED) != (limit != null)) {
        throw new ProtocolException("a result whose outcome and limit disagree");
      }
      Object value = m.get("value");
      new ValueCheck(limits).check(value, 0);
      value = freeze(withNonFinite(value, list(m, "nonFinite")));
      if (value != null && outcome != Outcome.OK) {
        throw new ProtocolException("a value on a result that is not OK");
      }
      String error = m.get("errorMessage") == null ? null : clean(str(m, "errorMessage"));
      List<String> stack = new ArrayList<>();
      for (Object f : list(m, "stack")) {
        stack.add(clean((String) f));
      }
      Integer exit = m.get("exitStatus") == null ? null : Math.toIntExact(num(m, "exitStatus"));
      String stdout = clean(str(m, "stdout"));
      String stderr = clean(str(m, "stderr"));
      // UTF-8 bytes are never fewer than UTF-16 chars; the 1,024 leave room for the boundary's own notices.
      if ((long) stdout.length() + stderr.length() > limits.maxOutputBytes() + 1024) {
        throw new ProtocolException("more output than the run's limit");
      }
      Map<String, Object> u = map(m.get("usage"));
      ExecutionResult.Usage usage = new ExecutionResult.Usage(nanos(u, "wallTime"), nanos(u, "cpuTime"),
          nonNegative(u, "allocatedBytes"),
          u.get("statements") == null ? OptionalLong.empty() : OptionalLong.of(nonNegative(u, "statements")),
          nonNegative(u, "outputBytes"), nonNegative(u, "fileBytes"), nonNegative(u, "files"),
          Duration.ofNanos(queueNanos).plus(nanos(u, "queueTime")), nanos(u, "setupTime"));
      List<SandboxEvent> events = new ArrayList<>();
      for (Object e : list(m, "events")) {
        events.add(event(map(e)));
      }
      SandboxEvent.OutputRejected rejection = null;
      if (m.get("rejection") != null && !(event(map(m.get("rejection"))) instanceof SandboxEvent.OutputRejected o)) {
        throw new ProtocolException("a rejection that is not an output rejection");
      } else if (m.get("rejection") != null) {
        rejection = (SandboxEvent.OutputRejected) event(map(m.get("rejection")));
      }
      List<Object> notes = list(m, "notes");
      if (notes.size() != 3) {
        throw new ProtocolException("output notes that are not three");
      }
      ExecutionResult.OutputNotes outputNotes = new ExecutionResult.OutputNotes(changes(map(notes.get(0))),
          changes(map(notes.get(1))), changes(map(notes.get(2))));
      Map<String, ExecutionResult.OutputFile> files = new LinkedHashMap<>();
      long total = 0;
      for (Map.Entry<String, Object> f : map(m.get("outputFiles")).entrySet()) {
        byte[] bytes = Base64.getDecoder().decode((String) f.getValue());
        total += bytes.length;
        if (bytes.length > limits.maxOutputFileBytes() || total > limits.maxTotalOutputFileBytes()) {
          throw new ProtocolException("output files over the run's limits");
        }
        files.put(f.getKey(), api.outputFile(f.getKey(), bytes));
      }
      List<String> missing = new ArrayList<>();
      for (Object p : list(m, "missingOutputFiles")) {
        missing.add((String) p);
      }
      return new RunRecord(outcome, limit, value, error, List.copyOf(stack), exit, stdout, stderr, usage,
          List.copyOf(events), rejection, outputNotes, Collections.unmodifiableMap(files), List.copyOf(missing),
          TextSanitizer.oneLine(str(m, "runId"), 64), TextSanitizer.oneLine(str(m, "label"), 256),
          nonNegative(m, "undeliveredOutputChunks"), Math.toIntExact(nonNegative(m, "droppedEvents")),
          undeliveredAudit);
    } catch (ProtocolException e) {
      throw e;
    } catch (RuntimeException e) { // a missing field, a wrong kind, a value no constructor takes
      throw new ProtocolException("a result that does not parse: " + TextSanitizer.oneLine(String.valueOf(
          e.getMessage()), 200), e);
    }
  }

  static Map<String, Object> event(SandboxEvent e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("time", e.time().toString());
    switch (e) {
      case SandboxEvent.DeniedOperation d -> {
        m.put("kind", "denied");
        m.put("operation", d.operation().name());
        m.put("target", d.target());
        m.put("layer", d.layer().name());
      }
      case SandboxEvent.LimitExceeded l -> {
        m.put("kind", "limit");
        m.put("limit", l.limit().name());
        m.put("detail", l.detail());
        m.put("layer", l.layer().name());
      }
      case SandboxEvent.OutputRejected o -> {
        m.put("kind", "rejected");
        m.put("reason", o.reason().name());
        m.put("path", o.path());
        m.put("detail", o.detail());
      }
      case SandboxEvent.ToolCall t -> {
        m.put("kind", "tool");
        m.put("tool", t.tool());
        m.put("argumentBytes", t.argumentBytes());
        m.put("duration", t.duration().toNanos());
        m.put("status", t.status().name());
      }
    }
    return m;
  }

  static SandboxEvent event(Map<String, Object> m) throws ProtocolException {
    try {
      Instant time = Instant.parse(str(m, "time"));
      return switch (str(m, "kind")) {
        case "denied" -> new SandboxEvent.DeniedOperation(time, Operation.valueOf(str(m, "operation")),
            TextSanitizer.oneLine(str(m, "target"), 1024), Layer.valueOf(str(m, "layer")));
        case "limit" -> new SandboxEvent.LimitExceeded(time, Limit.valueOf(str(m, "limit")), clean(str(m, "detail")),
            Layer.valueOf(str(m, "layer")));
        case "rejected" -> new SandboxEvent.OutputRejected(time,
            SandboxEvent.OutputRejected.Reason.valueOf(str(m, "reason")), TextSanitizer.oneLine(str(m, "path"), 1024),
            clean(str(m, "detail")));
        case "tool" -> new SandboxEvent.ToolCall(time, TextSanitizer.oneLine(str(m, "tool"), 64),
            nonNegative(m, "argumentBytes"), nanos(m, "duration"),
            SandboxEvent.ToolCall.Status.valueOf(str(m, "status")));
        default -> throw new ProtocolException("an event of an unknown kind");
      };
    } catch (ProtocolException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new ProtocolException("an event that does not parse", e);
    }
  }

  private static Map<String, Object> changes(ExecutionResult.OutputNotes.Changes c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("bytesDropped", c.bytesDropped());
    m.put("escapes", (long) c.escapeSequencesRemoved());
    m.put("controls", (long) c.controlCharactersReplaced());
    m.put("invalid", (long) c.invalidSequencesReplaced());
    m.put("invisible", (long) c.invisibleCharactersRemoved());
    return m;
  }

  private static ExecutionResult.OutputNotes.Changes changes(Map<String, Object> m) {
    return new ExecutionResult.OutputNotes.Changes(nonNegative(m, "bytesDropped"),
        Math.toIntExact(nonNegative(m, "escapes")), Math.toIntExact(nonNegative(m, "controls")),
        Math.toIntExact(nonNegative(m, "invalid")), Math.toIntExact(nonNegative(m, "invisible")));
  }

  // ---- values ----

  /** JSON has no NaN or infinities: they travel as null, with their paths beside the value. */
  private static Object withoutNonFinite(Object v, List<Object> path, List<Object> found) {
    if (v instanceof Double d && !Double.isFinite(d)) {
      List<Object> entry = new ArrayList<>(path);
      entry.add(d.isNaN() ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
      found.add(entry);
      return null;
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      for (int i = 0; i < l.size(); i++) {
        path.add((long) i);
        out.add(withoutNonFinite(l.get(i), path, found));
        path.remove(path.size() - 1);
      }
      return out;
    }
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        path.add(e.getKey());
        out.put((String) e.getKey(), withoutNonFinite(e.getValue(), path, found));
        path.remove(path.size() - 1);
      }
      return out;
    }
    return v;
  }

  @SuppressWarnings("unchecked")
  private static Object withNonFinite(Object value, List<Object> patches) throws ProtocolException {
    for (Object p : patches) {
      List<Object> path = (List<Object>) p;
      if (path.isEmpty()) {
        throw new ProtocolException("an empty non-finite path");
      }
      double d = switch ((String) path.get(path.size() - 1)) {
        case "NaN" -> Double.NaN;
        case "Infinity" -> Double.POSITIVE_INFINITY;
        case "-Infinity" -> Double.NEGATIVE_INFINITY;
        default -> throw new ProtocolException("a non-finite number of an unknown kind");
      };
      if (path.size() == 1) {
        if (value != null) {
          throw new ProtocolException("a non-finite path onto a value");
        }
        value = d;
        continue;
      }
      Object at = value;
      for (int i = 0; i < path.size() - 2; i++) {
        at = step(at, path.get(i));
      }
      Object last = path.get(path.size() - 2);
      if (at instanceof List<?> l && last instanceof Long index && index >= 0 && index < l.size()
          && l.get(index.intValue()) == null) {
        ((List<Object>) l).set(index.intValue(), d);
      } else if (at instanceof Map<?, ?> m && last instanceof String key && m.containsKey(key) && m.get(key) == null) {
        ((Map<String, Object>) m).put(key, d);
      } else {
        throw new ProtocolException("a non-finite path that leads nowhere");
      }
    }
    return value;
  }

  private static Object step(Object at, Object segment) throws ProtocolException {
    if (at instanceof List<?> l && segment instanceof Long index && index >= 0 && index < l.size()) {
      return l.get(index.intValue());
    }
    if (at instanceof Map<?, ?> m && segment instanceof String key && m.containsKey(key)) {
      return m.get(key);
    }
    throw new ProtocolException("a non-finite path that leads nowhere");
  }

  /** Deeply unmodifiable, as the engine room's own values are. */
  private static Object freeze(Object v) {
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      for (Object o : l) {
        out.add(freeze(o));
      }
      return Collections.unmodifiableList(out);
    }
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, o) -> out.put((String) k, freeze(o)));
      return Collections.unmodifiableMap(out);
    }
    return v;
  }

  /** Holds a value from a worker to the result limits the worker should have applied. */
  private static final class ValueCheck {
    private final Limits limits;
    private long nodes;
    private long chars;

    ValueCheck(Limits limits) {
      this.limits = limits;
    }

    void check(Object v, int depth) throws ProtocolException {
      if (++nodes > limits.maxResultNodes()) {
        throw new ProtocolException("a value with more nodes than maxResultNodes");
      }
      if (depth > limits.maxResultDepth()) {
        throw new ProtocolException("a value deeper than maxResultDepth");
      }
      if (v instanceof String s) {
        text(s);
      } else if (v instanceof List<?> l) {
        for (Object o : l) {
          check(o, depth + 1);
        }
      } else if (v instanceof Map<?, ?> m) {
        for (Map.Entry<?, ?> e : m.entrySet()) {
          text((String) e.getKey());
          check(e.getValue(), depth + 1);
        }
      } else if (v instanceof BigInteger b && b.bitLength() > 4_000) {
        throw new ProtocolException("an integer longer than the boundary lets out");
      }
    }

    private void text(String s) throws ProtocolException {
      if (s.length() > limits.maxResultStringLength()) {
        throw new ProtocolException("a string longer than maxResultStringLength");
      }
      chars += s.length();
      if (chars > limits.maxResultChars()) {
        throw new ProtocolException("a value with more text than maxResultChars");
      }
    }
  }

  // ---- fields ----

  private static String clean(String s) {
    return TextSanitizer.clean(s).text();
  }

  static String str(Map<String, Object> m, String key) {
    if (!(m.get(key) instanceof String s)) {
      throw new IllegalArgumentException("field " + key + " is not a string");
    }
    return s;
  }

  static long num(Map<String, Object> m, String key) {
    if (!(m.get(key) instanceof Long l)) {
      throw new IllegalArgumentException("field " + key + " is not an integer");
    }
    return l;
  }

  private static long nonNegative(Map<String, Object> m, String key) {
    long n = num(m, key);
    if (n < 0) {
      throw new IllegalArgumentException("field " + key + " is negative");
    }
    return n;
  }

  private static Duration nanos(Map<String, Object> m, String key) {
    return Duration.ofNanos(nonNegative(m, key));
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    if (!(o instanceof Map<?, ?> m)) {
      throw new IllegalArgumentException("not an object");
    }
    return (Map<String, Object>) m;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Map<String, Object> m, String key) {
    if (!(m.get(key) instanceof List<?> l)) {
      throw new IllegalArgumentException("field " + key + " is not a list");
    }
    return (List<Object>) l;
  }
}
