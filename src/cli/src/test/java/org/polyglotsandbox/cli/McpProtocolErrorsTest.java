package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What {@code bin/sandbox mcp} answers to messages a real client never sends, over stdio (raw lines)
 * and Streamable HTTP (raw POSTs): requests before {@code initialize} get a JSON-RPC error (a
 * {@code ping} its empty result), and malformed ids and params get an error naming the field in plain
 * words, never a Java class name or stack trace.
 */
@Tag("slow")
class McpProtocolErrorsTest {
  private static final Duration WITHIN = Duration.ofMinutes(2);
  /** A Java class name as the SDK's and Jackson's messages quote them. */
  private static final Pattern CLASS_NAME = Pattern.compile("\\b[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+\\.[A-Z]|\\$[A-Z]|Exception|stackTrace");
  private static final String POLICY = "{\"languages\": [\"js\"], \"limits\": {\"wallTime\": \"30s\"}}";

  @TempDir
  static Path dir;

  private static RawMcpProcess stdio;
  private static Process http;
  private static URI endpoint;
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    Path policy = dir.resolve("policy.json");
    Files.writeString(policy, POLICY);
    stdio = new RawMcpProcess(dir.resolve("stdio-stderr"), "--policy", policy.toString());
    stdio.initialize();

    Path stderr = dir.resolve("http-stderr");
    http = McpServerProcess.startHttp(stderr, dir.resolve("http-stdout"), "--policy", policy.toString(), "--http",
        ":0");
    String base = McpServerProcess.httpBase(http, stderr, WITHIN);
    endpoint = base == null ? null : URI.create(base + "/mcp");
    assertThat(endpoint).as("the HTTP server says where it listens: %s", Files.readString(stderr)).isNotNull();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (stdio != null) {
      stdio.close();
    }
    if (http != null) {
      http.destroy();
      http.waitFor();
    }
  }

  private static void assertPlainError(JsonNode answer, int code, String... words) {
    assertThat(answer.path("jsonrpc").asText()).isEqualTo("2.0");
    assertThat(answer.path("error").path("code").asInt()).as("%s", answer).isEqualTo(code);
    String message = answer.path("error").path("message").asText();
    assertThat(message).as("%s", answer).contains(words).doesNotContainPattern(CLASS_NAME);
    assertThat(answer.toString()).doesNotContainPattern(CLASS_NAME);
  }

  @Test
  void stdio_requestsBeforeInitialize_areAnsweredWithAnError_andPingWithItsResult() throws Exception {
    Path policy = dir.resolve("policy.json");
    try (RawMcpProcess fresh = new RawMcpProcess(dir.resolve("fresh-stderr"), "--policy", policy.toString())) {
      fresh.send("{\"jsonrpc\": \"2.0\", \"id\": \"early-list\", \"method\": \"tools/list\"}");
      fresh.send("{\"jsonrpc\": \"2.0\", \"id\": \"early-call\", \"method\": \"tools/call\", \"params\": {\"name\":"
          + " \"run_javascript\", \"arguments\": {\"code\": \"6 * 7\"}}}");
      fresh.send("{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}");
      fresh.send("{\"jsonrpc\": \"2.0\", \"id\": \"early-ping\", \"method\": \"ping\"}");

      assertPlainError(fresh.answer("early-list", WITHIN), -32600, "not initialized", "initialize", "tools/list");
      assertPlainError(fresh.answer("early-call", WITHIN), -32600, "not initialized", "tools/call");
      JsonNode pong = fresh.answer("early-ping", WITHIN);
      assertThat(pong.path("result").isObject()).as("%s", pong).isTrue();

      // The session still starts as usual, and what was refused ran nowhere.
      assertThat(fresh.initialize().path("result").path("serverInfo").path("name").asText()).isEqualTo("polyglot-sandbox");
      fresh.send("{\"jsonrpc\": \"2.0\", \"id\": \"list\", \"method\": \"tools/list\"}");
      assertThat(fresh.answer("list", WITHIN).path("result").path("tools").get(0).path("name").asText())
          .isEqualTo("run_javascript");
    }
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      {"x": 1}   | an object
      true       | a boolean
      1.5        | a fractional number
      [1]        | a list
      """)
  void stdio_oddId_isAnsweredInPlainWords(String id, String kind) throws Exception {
    stdio.send("{\"jsonrpc\": \"2.0\", \"id\": " + id + ", \"method\": \"tools/list\"}");
    stdio.send("{\"jsonrpc\": \"2.0\", \"id\": \"after-odd-id\", \"method\": \"ping\"}");

    JsonNode answer = stdio.next(m -> m.has("error"), WITHIN, null);
    assertPlainError(answer, -32600, "\"id\" must be a string or an integer, got " + kind);
    assertThat(answer.get("id").isNull()).isTrue();
    assertThat(stdio.answer("after-odd-id", WITHIN).has("result")).as("the session goes on").isTrue();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      "code"            | a string
      ["6 * 7"]         | a list
      42                | an integer
      """)
  void stdio_argumentsThatAreNotAnObject_areAnsweredInPlainWords(String arguments, String kind) throws Exception {
    String id = "args-" + kind.replace(' ', '-');
    stdio.send("{\"jsonrpc\": \"2.0\", \"id\": \"" + id + "\", \"method\": \"tools/call\", \"params\": {\"name\":"
        + " \"run_javascript\", \"arguments\": " + arguments + "}}");

    assertPlainError(stdio.answer(id, WITHIN), -32602, "params.arguments must be an object", "got " + kind);
  }

  @Test
  void stdio_toolCallWithoutAName_isAnsweredInPlainWords() throws Exception {
    stdio.send("{\"jsonrpc\": \"2.0\", \"id\": \"no-name\", \"method\": \"tools/call\", \"params\": {\"name\": 7}}");

    assertPlainError(stdio.answer("no-name", WITHIN), -32602, "params.name must be a string, got an integer");
  }

  private static final String BAD_CAPABILITY = RawMcpProcess.INITIALIZE.replace("\"id\": \"init\"", "\"id\": \"bad-init\"")
      .replace("\"capabilities\": {}", "\"capabilities\": {\"roots\": {\"listChanged\": \"maybe\"}}");

  @Test
  void stdio_initializeWithANestedFieldOfTheWrongType_isAnsweredInPlainWords() throws Exception {
    stdio.send(BAD_CAPABILITY);

    assertPlainError(stdio.answer("bad-init", WITHIN), -32602, "params.capabilities.roots.listChanged");
  }

  @Test
  void http_initializeWithANestedFieldOfTheWrongType_isAnsweredInPlainWords() throws Exception {
    HttpResponse<String> r = post(BAD_CAPABILITY, null);

    assertThat(r.statusCode()).isEqualTo(400);
    assertPlainError(RawMcpProcess.JSON.readTree(r.body()), -32602, "params.capabilities.roots.listChanged");
  }

  private static HttpResponse<String> post(String body, String session) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(endpoint).timeout(WITHIN)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String session() throws IOException, InterruptedException {
    HttpResponse<String> init = post(RawMcpProcess.INITIALIZE, null);
    assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    assertThat(post(RawMcpProcess.INITIALIZED, session).statusCode()).isEqualTo(202);
    return session;
  }

  @Test
  void http_requestWithoutASession_getsStatus400_andAJsonRpcError() throws Exception {
    HttpResponse<String> r = post("{\"jsonrpc\": \"2.0\", \"id\": \"early\", \"method\": \"tools/list\"}", null);

    assertThat(r.statusCode()).isEqualTo(400);
    JsonNode answer = RawMcpProcess.JSON.readTree(r.body());
    assertPlainError(answer, -32600, "not initialized", "Mcp-Session-Id");
    assertThat(answer.path("id").asText()).isEqualTo("early");
  }

  @Test
  void http_requestWithAnUnknownSession_getsStatus404_andAJsonRpcError_withoutAStackTrace() throws Exception {
    HttpResponse<String> r = post("{\"jsonrpc\": \"2.0\", \"id\": \"lost\", \"method\": \"tools/list\"}", "no-such-session");

    assertThat(r.statusCode()).isEqualTo(404);
    JsonNode answer = RawMcpProcess.JSON.readTree(r.body());
    assertPlainError(answer, -32603, "no-such-session");
    assertThat(answer.path("id").asText()).isEqualTo("lost");
  }

  @Test
  void http_oddIdAndArgumentsThatAreNotAnObject_areAnsweredInPlainWords() throws Exception {
    String session = session();

    HttpResponse<String> oddId = post("{\"jsonrpc\": \"2.0\", \"id\": {\"x\": 1}, \"method\": \"tools/list\"}", session);
    HttpResponse<String> boolId = post("{\"jsonrpc\": \"2.0\", \"id\": true, \"method\": \"tools/list\"}", session);
    HttpResponse<String> stringArgs = post("{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"tools/call\", \"params\":"
        + " {\"name\": \"run_javascript\", \"arguments\": \"code\"}}", session);
    HttpResponse<String> listArgs = post("{\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": \"tools/call\", \"params\":"
        + " {\"name\": \"run_javascript\", \"arguments\": [1]}}", session);

    assertPlainError(RawMcpProcess.JSON.readTree(oddId.body()), -32600, "\"id\" must be a string or an integer, got an object");
    assertPlainError(RawMcpProcess.JSON.readTree(boolId.body()), -32600, "\"id\" must be a string or an integer, got a boolean");
    assertPlainError(RawMcpProcess.JSON.readTree(stringArgs.body()), -32602, "params.arguments must be an object", "got a string");
    assertPlainError(RawMcpProcess.JSON.readTree(listArgs.body()), -32602, "params.arguments must be an object", "got a list");
    assertThat(RawMcpProcess.JSON.readTree(listArgs.body()).path("id").asInt()).isEqualTo(6);
  }
}
