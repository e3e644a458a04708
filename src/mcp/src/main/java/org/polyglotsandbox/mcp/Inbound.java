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
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The check every inbound message passes before the SDK sees it, on both transports. The SDK's stdio
 * transport ends the session at the first line it cannot parse; here such a line gets a JSON-RPC error
 * naming the problem and the session goes on. The envelope ({@code jsonrpc}, {@code id}, {@code method},
 * {@code params}) and the params of the requests the server handles are checked here, so that an error
 * names the offending field in plain words (the SDK's own errors for them quote Jackson and its own class
 * names). A {@code tools/call} request is tagged with its connection and id (in {@code _meta}, under
 * {@value #CALL_KEY}, replacing whatever the client put there) so that its run can be found again; a
 * {@code notifications/cancelled} cancels that run and goes no further (the SDK has no handler for it).
 *
 * <p>Made {@linkplain #Inbound(McpJsonMapper, ObjectMapper, Calls, boolean) for one connection}, it also
 * holds the connection to the lifecycle: before {@code initialize} a {@code ping} is answered here, any
 * other request gets an error saying the server is not initialized, and notifications and responses are
 * dropped (the SDK would hold such a request unanswered for good).
 */
final class Inbound {
  /** The {@code _meta} key of a tagged {@code tools/call}; the client's own value is never kept. */
  static final String CALL_KEY = "org.polyglotsandbox/call";

  /** The error message of a request sent before {@code initialize}; the method is appended. */
  static final String NOT_INITIALIZED = "server not initialized: send initialize first";

  private static final Set<String> LOGGING_LEVELS = Set.of("debug", "info", "notice", "warning", "error",
      "critical", "alert", "emergency");

  /** What to do with one message. */
  sealed interface Verdict permits Forward, Reply, Drop {}

  /**
   * Hand this text to the SDK (the message, perhaps tagged); {@code method} is null for a response,
   * {@code id} null for a notification.
   */
  record Forward(String text, String method, JsonNode id) implements Verdict {
    boolean isRequest() {
      return method != null && id != null;
    }
  }

  /**
   * Answer with this JSON-RPC response (one line of JSON) instead; the SDK never sees the message.
   * {@code isError} tells an error response from a result.
   */
  record Reply(String response, boolean isError) implements Verdict {
    Reply(String response) {
      this(response, true);
    }
  }

  /** Nothing to forward and nothing to answer. */
  record Drop() implements Verdict {}

  private final McpJsonMapper mapper;
  private final ObjectMapper json;
  private final Calls calls;
  /** Null when the transport keeps the lifecycle itself (HTTP: a session exists only after initialize). */
  private final AtomicBoolean initializeSeen;

  /** For a transport that keeps the lifecycle itself (HTTP). */
  Inbound(McpJsonMapper mapper, ObjectMapper json, Calls calls) {
    this(mapper, json, calls, false);
  }

  /** With {@code oneConnection}, for a single connection whose lifecycle is checked here (stdio). */
  Inbound(McpJsonMapper mapper, ObjectMapper json, Calls calls, boolean oneConnection) {
    this.mapper = mapper;
    this.json = json;
    this.calls = calls;
    this.initializeSeen = oneConnection ? new AtomicBoolean() : null;
  }

  /** Checks one message that arrived on {@code connection}; never throws. */
  Verdict inspect(String text, String connection) {
    try {
      return check(text, connection);
    } catch (RuntimeException e) {
      return new Reply(error(json, null, McpSchema.ErrorCodes.INTERNAL_ERROR, "the server could not read this message"));
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
          + (node.isArray() ? "an array (JSON-RPC batches are not part of MCP)" : kind(node))));
    }
    JsonNode rawId = node.get("id");
    JsonNode id = rawId != null && (rawId.isTextual() || rawId.isIntegralNumber()) ? rawId : null;
    String problem = envelopeProblem(node);
    if (problem == null && node.has("method")) {
      problem = paramsProblem(node.get("method").asText(), node.get("params"));
      if (problem != null && id != null) {
        return new Reply(error(json, id, McpSchema.ErrorCodes.INVALID_PARAMS, problem));
      }
    }
    if (problem != null) {
      return new Reply(error(json, id, McpSchema.ErrorCodes.INVALID_REQUEST, problem));
    }
    String method = node.has("method") ? node.get("method").asText() : null;
    if (initializeSeen != null && !initializeSeen.get()) {
      if (McpSchema.METHOD_INITIALIZE.equals(method) && id != null) {
        initializeSeen.set(true);
      } else if (McpSchema.METHOD_PING.equals(method) && id != null) {
        return new Reply(result(json, id), false);
      } else if (method != null && id != null) {
        return new Reply(error(json, id, McpSchema.ErrorCodes.INVALID_REQUEST, NOT_INITIALIZED + " (got " + method + ")"));
      } else {
        return new Drop();   // a notification or a response: nothing to answer, nothing the SDK should see yet
      }
    }
    McpSchema.JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(mapper, text);
    } catch (IOException | RuntimeException e) {
      // Checked above; kept total all the same, without the SDK's words (they name its classes).
      return new Reply(error(json, id, McpSchema.ErrorCodes.INVALID_REQUEST,
          "not a JSON-RPC 2.0 request, notification or response the server can read"));
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
        return new Forward(mapper.writeValueAsString(new McpSchema.JSONRPCRequest(r.jsonrpc(), r.method(), r.id(), tagged)),
            method, id);
      } catch (IOException e) {
        return new Forward(text, method, id);
      }
    }
    if (message instanceof McpSchema.JSONRPCNotification n && "notifications/cancelled".equals(n.method())) {
      if (n.params() instanceof Map<?, ?> p && p.get("requestId") != null) {
        calls.cancel(Calls.key(connection, p.get("requestId")));
      }
      return new Drop();
    }
    return new Forward(text, method, id);
  }

  /** What is wrong with a message's JSON-RPC envelope, in words naming the field; null if nothing. */
  private static String envelopeProblem(JsonNode node) {
    JsonNode version = node.get("jsonrpc");
    if (version == null || !version.isTextual() || !version.asText().equals("2.0")) {
      return "\"jsonrpc\" must be the string \"2.0\", got " + (version == null ? "none" : kind(version));
    }
    JsonNode id = node.get("id");
    if (id != null && !id.isTextual() && !id.isIntegralNumber()) {
      return "\"id\" must be a string or an integer, got " + kind(id);
    }
    JsonNode method = node.get("method");
    if (method != null) {
      if (!method.isTextual()) {
        return "\"method\" must be a string, got " + kind(method);
      }
      JsonNode params = node.get("params");
      if (params != null && !params.isNull() && !params.isObject()) {
        return "\"params\" must be an object, got " + kind(params);
      }
      return null;
    }
    if (node.has("result") || node.has("error")) {
      if (id == null) {
        return "a response must have an \"id\" (a string or an integer)";
      }
      JsonNode error = node.get("error");
      if (error != null && !(error.isObject() && error.path("code").isIntegralNumber())) {
        return "\"error\" must be an object with an integer \"code\", got " + kind(error);
      }
      return null;
    }
    return "a message must have a \"method\" (a request or notification) or a \"result\" or \"error\" (a response)";
  }

  /**
   * What is wrong with the params of a request the server handles, naming the field; null if nothing
   * (or the method is not one of them: the SDK answers that it does not know it).
   */
  private static String paramsProblem(String method, JsonNode params) {
    JsonNode p = params == null || params.isNull() ? null : params;
    switch (method) {
      case McpSchema.METHOD_TOOLS_CALL -> {
        if (p == null) {
          return "tools/call needs \"params\": {\"name\": string, \"arguments\"?: object}";
        }
        String name = field(p, "name", "a string", JsonNode::isTextual, true);
        if (name != null) {
          return "tools/call: " + name;
        }
        String arguments = field(p, "arguments", "an object (the tool's named arguments)", JsonNode::isObject, false);
        if (arguments != null) {
          return "tools/call: " + arguments;
        }
        return metaProblem(method, p);
      }
      case McpSchema.METHOD_TOOLS_LIST -> {
        if (p == null) {
          return null;
        }
        String cursor = field(p, "cursor", "a string", JsonNode::isTextual, false);
        return cursor != null ? "tools/list: " + cursor : metaProblem(method, p);
      }
      case McpSchema.METHOD_INITIALIZE -> {
        if (p == null) {
          return "initialize needs \"params\": {\"protocolVersion\": string, \"capabilities\": object,"
              + " \"clientInfo\": {\"name\": string, \"version\": string}}";
        }
        for (String problem : new String[] {
            field(p, "protocolVersion", "a string", JsonNode::isTextual, true),
            field(p, "capabilities", "an object", JsonNode::isObject, false),
            field(p, "clientInfo", "an object", JsonNode::isObject, false)}) {
          if (problem != null) {
            return "initialize: " + problem;
          }
        }
        JsonNode info = p.get("clientInfo");
        if (info != null && info.isObject()) {
          for (String key : new String[] {"name", "version", "title"}) {
            String problem = field(info, key, "a string", JsonNode::isTextual, false);
            if (problem != null) {
              return "initialize: params.clientInfo." + problem.substring("params.".length());
            }
          }
        }
        JsonNode capabilities = p.get("capabilities");
        if (capabilities != null && capabilities.isObject()) {
          for (var e : capabilities.properties()) {
            if (!e.getValue().isObject() && !e.getValue().isNull()) {
              return "initialize: params.capabilities." + e.getKey() + " must be an object, got " + kind(e.getValue());
            }
          }
        }
        return metaProblem(method, p);
      }
      case McpSchema.METHOD_LOGGING_SET_LEVEL -> {
        if (p == null) {
          return "logging/setLevel needs \"params\": {\"level\": string}";
        }
        JsonNode level = p.get("level");
        if (level == null || !level.isTextual() || !LOGGING_LEVELS.contains(level.asText())) {
          return "logging/setLevel: params.level must be one of " + String.join(", ", new java.util.TreeSet<>(LOGGING_LEVELS))
              + ", got " + (level == null ? "none" : level.isTextual() ? "'" + Text.oneLine(level.asText(), 40) + "'" : kind(level));
        }
        return metaProblem(method, p);
      }
      default -> {
        return p == null ? null : metaProblem(method, p);
      }
    }
  }

  /** {@code params._meta} must be an object, its {@code progressToken} a string or an integer. */
  private static String metaProblem(String method, JsonNode p) {
    JsonNode meta = p.get("_meta");
    if (meta == null || meta.isNull()) {
      return null;
    }
    if (!meta.isObject()) {
      return method + ": params._meta must be an object, got " + kind(meta);
    }
    JsonNode token = meta.get("progressToken");
    if (token != null && !token.isNull() && !token.isTextual() && !token.isIntegralNumber()) {
      return method + ": params._meta.progressToken must be a string or an integer, got " + kind(token);
    }
    return null;
  }

  /** "params.KEY must be WHAT, got KIND" if the field is missing (when required) or fails {@code ok}. */
  private static String field(JsonNode p, String key, String what, java.util.function.Predicate<JsonNode> ok,
      boolean required) {
    JsonNode v = p.get(key);
    if (v == null || v.isNull()) {
      return required ? "params." + key + " is required (" + what + ")" : null;
    }
    return ok.test(v) ? null : "params." + key + " must be " + what + ", got " + kind(v);
  }

  /** A JSON value's kind in plain words: "an object", "a list", "a string", "a boolean", ... */
  static String kind(JsonNode v) {
    return switch (v.getNodeType()) {
      case OBJECT, POJO -> "an object";
      case ARRAY -> "a list";
      case STRING -> "a string";
      case BOOLEAN -> "a boolean";
      case NUMBER -> v.isIntegralNumber() ? "an integer" : "a fractional number";
      case NULL -> "null";
      default -> "a value of another kind";
    };
  }

  /** A JSON-RPC result response with an empty result, as one line of JSON. */
  static String result(ObjectMapper json, JsonNode id) {
    ObjectNode o = json.createObjectNode();
    o.put("jsonrpc", "2.0");
    o.set("id", id);
    o.putObject("result");
    return o.toString();
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
