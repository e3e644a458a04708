package org.polyglotsandbox.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The stdout the stdio transport writes to. Every message passes through as written, except an error
 * response whose message names a Java class: the SDK answers a request whose params it cannot map with
 * Jackson's words (class names, reference chain), which become plain words naming the field here
 * ({@link Text#plainError}). {@link Inbound} checks the params of the requests the server handles, so
 * this is the net for what it does not check (nested fields such as {@code initialize}'s capabilities).
 * The SDK writes each message in one call, then its newline; both it and {@link StdioGuard} lock this
 * object while they write.
 */
final class StdioOut extends OutputStream {
  /** Error responses are short; a longer write is never one, and is not looked at. */
  private static final int MAX_ERROR_BYTES = 64 << 10;
  private static final byte[] PREFIX = "{\"jsonrpc\":\"2.0\",\"id\":".getBytes(StandardCharsets.UTF_8);

  private final OutputStream out;
  private final ObjectMapper json;

  StdioOut(OutputStream out, ObjectMapper json) {
    this.out = out;
    this.json = json;
  }

  @Override
  public void write(int b) throws IOException {
    out.write(b);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    if (len <= MAX_ERROR_BYTES && startsWithPrefix(b, off, len)) {
      String text = new String(b, off, len, StandardCharsets.UTF_8);
      if (text.contains("\"error\":{")) {
        byte[] plain = plain(text);
        if (plain != null) {
          out.write(plain);
          return;
        }
      }
    }
    out.write(b, off, len);
  }

  /** The error response with its message in plain words, or null if it needs no change. */
  private byte[] plain(String text) {
    try {
      JsonNode node = json.readTree(text);
      JsonNode error = node == null ? null : node.get("error");
      if (!(error instanceof ObjectNode e) || !error.path("message").isTextual()) {
        return null;
      }
      String message = error.get("message").asText();
      boolean data = e.has("data") && Text.namesAClass(e.get("data").toString());
      if (!Text.namesAClass(message) && !data) {
        return null;
      }
      if (Text.isMappingError(message)) {
        e.put("code", io.modelcontextprotocol.spec.McpSchema.ErrorCodes.INVALID_PARAMS);
      }
      e.put("message", Text.plainError(message));
      if (data) {
        e.remove("data");
      }
      return json.writeValueAsBytes(node);
    } catch (IOException | RuntimeException ex) {
      return null;
    }
  }

  private static boolean startsWithPrefix(byte[] b, int off, int len) {
    if (len < PREFIX.length) {
      return false;
    }
    for (int i = 0; i < PREFIX.length; i++) {
      if (b[off + i] != PREFIX[i]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void flush() throws IOException {
    out.flush();
  }

  @Override
  public void close() throws IOException {
    out.close();
  }
}
