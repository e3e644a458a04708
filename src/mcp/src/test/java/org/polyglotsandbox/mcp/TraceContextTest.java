package org.polyglotsandbox.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;

/**
 * The MCP server hands each run the tool's MCP name and the caller's W3C trace context from the request's
 * {@code _meta} as script attributes, where run observers (polyglot-sandbox-micrometer's traces) read them;
 * a malformed {@code traceparent} is left out.
 */
class TraceContextTest {
  private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  private static PolyglotSandbox sandbox;
  private static HttpEndpoint http;
  private static McpSyncClient client;
  private static final List<Map<String, String>> attributes = new CopyOnWriteArrayList<>();
  private static final RunObserver RECORDER = script -> {
    attributes.add(script.attributes());
    return RunObserver.Run.NONE;
  };

  @BeforeAll
  static void start() {
    sandbox = McpTestServer.sandbox();
    sandbox.addRunObserver(RECORDER);
    http = McpTestServer.server(sandbox).serveHttp("127.0.0.1", 0);
    client = McpClient.sync(HttpClientStreamableHttpTransport.builder(http.uri().resolve("/").toString())
            .endpoint("/mcp").jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper())).build())
        .requestTimeout(Duration.ofSeconds(120)).build();
    client.initialize();
  }

  @AfterAll
  static void stop() {
    client.close();
    http.close();
    sandbox.close();
  }

  private static void call(String tool, Map<String, Object> arguments, Map<String, Object> meta) {
    McpSchema.CallToolResult r = client.callTool(McpSchema.CallToolRequest.builder(tool).arguments(arguments)
        .meta(meta).build());
    assertThat(r.isError()).as(r.toString()).isFalse();
  }

  @Test
  void traceparentAndTracestate_fromMeta_reachTheRun_withTheToolsName() {
    attributes.clear();
    call("run_javascript", Map.of("code", "1"), Map.of("traceparent", TRACEPARENT, "tracestate", "vendor=x"));
    call("text_upper", Map.of("text", "a"), Map.of("traceparent", TRACEPARENT));

    assertThat(attributes).hasSize(2);
    assertThat(attributes.get(0)).containsEntry("traceparent", TRACEPARENT).containsEntry("tracestate", "vendor=x")
        .containsEntry("gen_ai.tool.name", "run_javascript");
    assertThat(attributes.get(1)).containsEntry("traceparent", TRACEPARENT).containsEntry("gen_ai.tool.name", "text_upper");
  }

  @Test
  void malformedTraceparent_isLeftOut_andTheRunStillRuns() {
    attributes.clear();
    call("run_javascript", Map.of("code", "1"), Map.of("traceparent", "00-not-hex\n-01", "tracestate", "x=y"));
    call("run_javascript", Map.of("code", "1"), Map.of());

    assertThat(attributes).hasSize(2).allSatisfy(a -> assertThat(a).doesNotContainKeys("traceparent", "tracestate")
        .containsEntry("gen_ai.tool.name", "run_javascript"));
  }
}
