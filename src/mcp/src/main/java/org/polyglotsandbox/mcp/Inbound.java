package org.polyglotsandbox.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

  /** Answer with this error instead; the SDK never sees the message. */
  record Reply(McpSchema.JSONRPCResponse response) implements Verdict {}

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

  /** Checks one message that arrived on {@code connection}. */
  Verdict inspect(String text, String connection) {
    if (text.isBlank()) {
      return new Drop();
    }
    JsonNode node;
    try {
      node = json.readTree(text);
    } catch (JsonProcessingException e) {
      return error(McpSchema.ErrorCodes.PARSE_ERROR, "invalid JSON: " + e.getOriginalMessage());
    }
    if (!node.isObject()) {
      return error(McpSchema.ErrorCodes.INVALID_REQUEST, "a message must be one JSON-RPC object, got "
          + (node.isArray() ? "an array (JSON-RPC batches are not part of MCP)" : node.getNodeType().name().toLowerCase()));
    }
    McpSchema.JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(mapper, text);
    } catch (IOException | RuntimeException e) {
      Object id = node.hasNonNull("id") && node.get("id").isValueNode() ? json.convertValue(node.get("id"), Object.class) : null;
      return new Reply(McpSchema.JSONRPCResponse.error(id, new McpSchema.JSONRPCResponse.JSONRPCError(
          McpSchema.ErrorCodes.INVALID_REQUEST, "not a JSON-RPC 2.0 request, notification or response: "
              + Text.oneLine(String.valueOf(e.getMessage()), 300))));
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

  private static Reply error(int code, String message) {
    return new Reply(McpSchema.JSONRPCResponse.error(null, new McpSchema.JSONRPCResponse.JSONRPCError(code, message)));
  }
}
