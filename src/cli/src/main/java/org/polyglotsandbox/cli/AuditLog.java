package org.polyglotsandbox.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.function.Consumer;
import org.polyglotsandbox.AuditEvent;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Script;

/**
 * {@code --audit-log FILE}: the run's audit events as JSON Lines, appended to FILE as they happen, then
 * one line for the run. Each line is one JSON object written with one {@code write} to a file opened
 * for appending, so several {@code bin/sandbox} processes can share a log.
 *
 * <pre>
 * {"type":"audit","time":"2026-11-29T20:00:00.1Z","runId":"…","operation":"file.read","target":"/etc/passwd",
 *  "verdict":"denied","layer":"virtual-file-system","detail":""}
 * {"type":"run","time":"2026-11-29T20:00:00.2Z","runId":"…","program":"read_passwd.py","language":"python",
 *  "outcome":"GUEST_ERROR","limit":null,"events":1,"droppedEvents":0}
 * </pre>
 *
 * <p>Guest-chosen text (targets, details) is escaped like {@code --json} output, so the log is safe to
 * print. A write that fails is remembered and reported after the run ({@link #failure()}): an audit log
 * with holes must not pass silently.
 */
final class AuditLog implements Consumer<AuditEvent>, AutoCloseable {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final String name;
  private final FileChannel channel;
  private IOException failure;

  private AuditLog(String name, FileChannel channel) {
    this.name = name;
    this.channel = channel;
  }

  /**
   * Opens (or creates) FILE for appending.
   *
   * @throws UsageException naming the file if it cannot be opened
   */
  static AuditLog open(String file) {
    try {
      return new AuditLog(file, FileChannel.open(Path.of(file), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND));
    } catch (java.nio.file.InvalidPathException e) {
      throw new UsageException("--audit-log: " + Text.quote(file) + " is not a valid path");
    } catch (IOException e) {
      String why = e instanceof java.nio.file.NoSuchFileException ? "its directory does not exist"
          : e instanceof java.nio.file.AccessDeniedException ? "permission denied"
          : e instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason()
          : String.valueOf(e.getMessage());
      throw new UsageException("--audit-log: " + Text.quote(file) + " cannot be opened for appending: "
          + Text.escapeLine(why));
    }
  }

  /** Writes one audit event; called by the sandbox on the run's threads. */
  @Override
  public void accept(AuditEvent e) {
    ObjectNode o = NODES.objectNode();
    o.put("type", "audit");
    o.put("time", e.time().toString());
    o.put("runId", e.runId());
    if (!e.label().isEmpty()) {
      o.put("label", e.label());
    }
    attributes(o, e.attributes());
    o.put("operation", e.operation().id());
    o.put("target", e.target());
    o.put("verdict", e.verdict().id());
    o.put("layer", e.layer().id());
    o.put("detail", e.detail());
    write(ResultJson.write(o));
  }

  /** Writes the line that closes a run: what ran, how it ended, how many events it had and dropped. */
  void run(Script script, ExecutionResult r) {
    ObjectNode o = NODES.objectNode();
    o.put("type", "run");
    o.put("time", Instant.now().toString());
    o.put("runId", r.runId());
    o.put("program", script.name());
    o.put("language", script.language().id());
    if (!r.label().isEmpty()) {
      o.put("label", r.label());   // sandbox mcp labels each run with its connection and request id
    }
    attributes(o, script.auditedAttributes());
    o.put("outcome", r.outcome().name());
    o.put("limit", r.limit().map(Limit::id).orElse(null));
    o.put("events", r.events().size());
    o.put("droppedEvents", r.droppedEvents());
    write(ResultJson.write(o));
  }

  /** The run's audited attributes ({@code run --attribute}), as an object; nothing if it has none. */
  private static void attributes(ObjectNode o, java.util.Map<String, String> attributes) {
    if (!attributes.isEmpty()) {
      ObjectNode a = o.putObject("attributes");
      attributes.forEach(a::put);
    }
  }

  private synchronized void write(String line) {
    if (failure != null) {
      return;
    }
    try {
      ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
    } catch (IOException e) {
      failure = e;
    }
  }

  /** Why a write failed, if one did: a message naming the file. */
  synchronized String failure() {
    return failure == null ? null : "--audit-log: " + Text.quote(name) + ": write failed ("
        + Text.escapeLine(String.valueOf(failure.getMessage())) + ")";
  }

  @Override
  public synchronized void close() {
    try {
      channel.close();
    } catch (IOException e) {
      if (failure == null) {
        failure = e;
      }
    }
  }
}
