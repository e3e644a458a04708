package org.polyglotsandbox.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The check every inbound message passes before the SDK sees it, on both transports. The SDK's stdio
 * transport ends the session at the first line it cannot parse; here such a line gets a JSON-RPC error
 * naming the problem and the session goes on. A {@code tools/call} request is tagged with its connection
 * and id (in {@code _meta}, under {@value #CALL_KEY}, replacing whatever the client put there) so that
 * its run can be found again; a {@code notifications/cancelled} cancels that run and goes no further
 * (the SDK has no handler for it).
 */
final class Inbound {
  /** The {@code _meta} key of a tagged {@code tools/call}; the client's own value is never kept. */
  static final String CALL_KEY = "org.polyglotsandbox/call";

  /** What to do with one message. */
  sealed interface Verdict permits Forward, Reply, Drop {}

  /** Hand this text to the SDK (the message, perhaps tagged). */
  record Forward(String text) implements Verdict {}

  /** Answer with this JSON-RPC error response (one line of JSON) instead; the SDK never sees the message. */
  record Reply(String response) implements Verdict {}

  /** Nothing to forward and nothing to answer. */
  record Drop() implements Verdict {}

  private final McpJsonMapper mapper;
  private final ObjectMapper json;
  private final Calls calls;

  Inbound(McpJsonMapper mapper, ObjectMapper json, Calls calls) {
    this.mapper = mapper;
    this.json = json;
    this.calls = calls;
  }

  /** Checks one message that arrived on {@code connection}; never throws. */
  Verdict inspect(String text, String connection) {
    try {
      return check(text, connection);
    } catch (RuntimeException e) {
      return new Reply(error(json, null, McpSchema.ErrorCodes.INTERNAL_ERROR, "the server could not read this message: "
          + Text.oneLine(String.valueOf(e.getMessage()), 300)));
    }
  }

  private Verdict check(String text, String connection) {
    if (text.isBlank()) {
      return new Drop();
    }
    JsonNode node;
    try {
      node = json.readTree(text);
    } catch (JsonProcessingException e) {
      return new Reply(error(json, null, McpSchema.ErrorCodes.PARSE_ERROR, "invalid JSON: "
          + Text.oneLine(String.valueOf(e.getOriginalMessage()), 300)));
    }
    if (!node.isObject()) {
      return new Reply(error(json, null, McpSchema.ErrorCodes.INVALID_REQUEST, "a message must be one JSON-RPC object, got "
          + (node.isArray() ? "an array (JSON-RPC batches are not part of MCP)"
              : node.getNodeType().name().toLowerCase(java.util.Locale.ROOT))));
    }
    McpSchema.JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(mapper, text);
    } catch (IOException | RuntimeException e) {
      JsonNode id = node.get("id") != null && (node.get("id").isTextual() || node.get("id").isNumber()) ? node.get("id") : null;
      return new Reply(error(json, id, McpSchema.ErrorCodes.INVALID_REQUEST,
          "not a JSON-RPC 2.0 request, notification or response: " + Text.oneLine(String.valueOf(e.getMessage()), 300)));
    }
    if (message instanceof McpSchema.JSONRPCRequest r && McpSchema.METHOD_TOOLS_CALL.equals(r.method())
        && r.params() instanceof Map<?, ?> params) {
      Map<String, Object> tagged = new LinkedHashMap<>();
      params.forEach((k, v) -> tagged.put(String.valueOf(k), v));
      Map<String, Object> meta = new LinkedHashMap<>();
      if (params.get("_meta") instanceof Map<?, ?> m) {
        m.forEach((k, v) -> meta.put(String.valueOf(k), v));
      }
      meta.put(CALL_KEY, Calls.key(connection, r.id()));
      tagged.put("_meta", meta);
      try {
        return new Forward(mapper.writeValueAsString(new McpSchema.JSONRPCRequest(r.jsonrpc(), r.method(), r.id(), tagged)));
      } catch (IOException e) {
        return new Forward(text);
      }
    }
    if (message instanceof McpSchema.JSONRPCNotification n && "notifications/cancelled".equals(n.method())) {
      if (n.params() instanceof Map<?, ?> p && p.get("requestId") != null) {
        calls.cancel(Calls.key(connection, p.get("requestId")));
      }
      return new Drop();
    }
    return new Forward(text);
  }

  /**
   * A JSON-RPC error response as one line of JSON; {@code id} null when the message's id could not be read
   * (as JSON-RPC asks; the SDK's own response type refuses a null id).
   */
  static String error(ObjectMapper json, JsonNode id, int code, String message) {
    ObjectNode o = json.createObjectNode();
    o.put("jsonrpc", "2.0");
    o.set("id", id == null ? NullNode.getInstance() : id);
    o.putObject("error").put("code", code).put("message", message);
    return o.toString();
  }
}
