package org.polyglotsandbox.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.polyglotsandbox.ExecutionResult.OutputFile;
import org.polyglotsandbox.ExecutionResult.OutputNotes;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.SandboxEvent;

/**
 * The {@code --json} form of a result: one JSON object with {@code outcome}, {@code limit},
 * {@code value}, {@code error}, {@code stdout}, {@code stderr}, {@code usage}, {@code events},
 * {@code exitStatus}, {@code guestStackTrace}, {@code rejection} ({@code {reason, path, detail}} or
 * null), {@code outputNotes} (one object per changed text, such as {@code {"stdout": {"bytesDropped":
 * 0, "escapeSequencesRemoved": 2, ...}}}), {@code outputFiles} ({@code [{path, bytes, writtenTo}]}),
 * {@code missingOutputFiles}, {@code runId} and {@code droppedEvents}. {@code usage} holds
 * {@code wallTimeMillis} (the guest's own), {@code cpuTimeMillis}, {@code allocatedBytes}, {@code statements},
 * {@code outputBytes}, {@code fileBytes}, {@code files}, {@code queueTimeMillis} and {@code setupTimeMillis}
 * (the sandbox's time before the program started). The text has no raw control
 * characters, so it is safe on a terminal as well as to a parser.
 */
final class ResultJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  static {
    // DEL, the C1 controls (U+009B is a one-byte CSI), the bidirectional overrides and lone surrogates.
    JSON.getFactory().setCharacterEscapes(new TerminalSafe());
  }

  /** Jackson escapes for JSON that is also safe on a terminal: every {@link Text#isUnsafe} character. */
  private static final class TerminalSafe extends CharacterEscapes {
    private static final long serialVersionUID = 1L;
    private final int[] ascii = standardAsciiEscapesForJSON();

    TerminalSafe() {
      ascii[0x7f] = ESCAPE_STANDARD;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      return Text.isUnsafe(ch) || Character.isSurrogate((char) ch)
          ? new SerializedString(String.format("\\u%04X", ch)) : null;
    }
  }

  private ResultJson() {}

  /** The result as one line of JSON. */
  static String toJson(ExecutionResult r) {
    return toJson(r, List.of());
  }

  /** @param written the host files the output files were written to, in order; empty if not written */
  static String toJson(ExecutionResult r, List<Path> written) {
    return write(toTree(r, written));
  }

  /** The result as a JSON tree, fields in the documented order. */
  static ObjectNode toTree(ExecutionResult r) {
    return toTree(r, List.of());
  }

  static ObjectNode toTree(ExecutionResult r, List<Path> written) {
    ObjectNode o = NODES.objectNode();
    o.put("outcome", r.outcome().name());
    o.put("limit", r.limit().map(Limit::id).orElse(null));
    o.set("value", parse(r.valueAsJson()));
    o.put("error", r.errorMessage().orElse(null));
    o.put("stdout", r.stdout());
    o.put("stderr", r.stderr());
    ObjectNode usage = o.putObject("usage");
    usage.put("wallTimeMillis", r.usage().wallTime().toMillis());
    usage.put("cpuTimeMillis", r.usage().cpuTime().toMillis());
    usage.put("allocatedBytes", r.usage().allocatedBytes());
    if (r.usage().statements().isPresent()) {
      usage.put("statements", r.usage().statements().getAsLong());
    } else {
      usage.putNull("statements");
    }
    usage.put("outputBytes", r.usage().outputBytes());
    usage.put("fileBytes", r.usage().fileBytes());
    usage.put("files", r.usage().files());
    usage.put("queueTimeMillis", r.usage().queueTime().toMillis());
    usage.put("setupTimeMillis", r.usage().setupTime().toMillis());
    ArrayNode events = o.putArray("events");
    for (SandboxEvent e : r.events()) {
      events.add(event(e));
    }
    if (r.exitStatus().isPresent()) {
      o.put("exitStatus", r.exitStatus().getAsInt());
    } else {
      o.putNull("exitStatus");
    }
    ArrayNode stack = o.putArray("guestStackTrace");
    r.guestStackTrace().forEach(stack::add);
    if (r.outputRejection().isPresent()) {
      SandboxEvent.OutputRejected rejection = r.outputRejection().get();
      ObjectNode rej = o.putObject("rejection");
      rej.put("reason", rejection.reason().name().toLowerCase(Locale.ROOT));
      rej.put("path", rejection.path());
      rej.put("detail", rejection.detail());
    } else {
      o.putNull("rejection");
    }
    ObjectNode notes = o.putObject("outputNotes");
    changes(notes, "stdout", r.outputNotes().stdout());
    changes(notes, "stderr", r.outputNotes().stderr());
    changes(notes, "errorMessage", r.outputNotes().errorMessage());
    ArrayNode files = o.putArray("outputFiles");
    int i = 0;
    for (OutputFile f : r.outputFiles().values()) {
      ObjectNode file = files.addObject();
      file.put("path", f.guestPath());
      file.put("bytes", f.size());
      file.put("writtenTo", i < written.size() ? written.get(i).toString() : null);
      i++;
    }
    ArrayNode missing = o.putArray("missingOutputFiles");
    r.missingOutputFiles().forEach(missing::add);
    o.put("runId", r.runId());
    o.put("droppedEvents", r.droppedEvents());
    return o;
  }

  private static void changes(ObjectNode notes, String name, OutputNotes.Changes c) {
    if (c.isEmpty()) {
      return;
    }
    ObjectNode n = notes.putObject(name);
    n.put("bytesDropped", c.bytesDropped());
    n.put("escapeSequencesRemoved", c.escapeSequencesRemoved());
    n.put("controlCharactersReplaced", c.controlCharactersReplaced());
    n.put("invalidSequencesReplaced", c.invalidSequencesReplaced());
    n.put("invisibleCharactersRemoved", c.invisibleCharactersRemoved());
  }

  /** The library's JSON of a value, as a node of this tree. */
  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the library wrote JSON that does not parse", e);
    }
  }


  private static ObjectNode event(SandboxEvent e) {
    ObjectNode o = NODES.objectNode();
    switch (e) {
      case SandboxEvent.DeniedOperation d -> {
        o.put("type", "denied_operation");
        o.put("time", d.time().toString());
        o.put("operation", d.operation().id());
        o.put("target", d.target());
        o.put("layer", d.layer().id());
      }
      case SandboxEvent.LimitExceeded l -> {
        o.put("type", "limit_exceeded");
        o.put("time", l.time().toString());
        o.put("limit", l.limit().id());
        o.put("detail", l.detail());
        o.put("layer", l.layer().id());
      }
      case SandboxEvent.OutputRejected x -> {
        o.put("type", "output_rejected");
        o.put("time", x.time().toString());
        o.put("reason", x.reason().name().toLowerCase(Locale.ROOT));
        o.put("path", x.path());
        o.put("detail", x.detail());
        o.put("layer", x.layer().id());
      }
      case SandboxEvent.ToolCall t -> {
        o.put("type", "tool_call");
        o.put("time", t.time().toString());
        o.put("tool", t.tool());
        o.put("argumentBytes", t.argumentBytes());
        o.put("durationMicros", t.duration().toNanos() / 1000);
        o.put("status", t.status().name().toLowerCase(Locale.ROOT));
        o.put("layer", t.layer().id());
      }
    }
    return o;
  }

  /** One line of JSON with every unsafe character escaped. */
  static String write(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree could not be written", e); // trees always serialize
    }
  }
}
