package org.polyglotsandbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.mcp.HttpEndpoint;
import org.polyglotsandbox.mcp.SandboxMcpServer;

/**
 * A traced MCP client's {@code tools/call}, with a {@code traceparent} in its {@code _meta}, through the MCP
 * server over Streamable HTTP: the run's span and its host tool call's span are in the client's trace.
 */
class TraceThroughMcpTest {
  @Test
  void traceparentInMeta_makesTheRunAndItsToolCallsPartOfTheClientsTrace() {
    String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    String parentId = "00f067aa0ba902b7";
    try (OtelBridge otel = new OtelBridge();
        PolyglotSandbox sandbox = Sandboxes.withTools(PolyglotSandbox.builder()).build();
        SandboxObservations observations = SandboxObservations.bind(sandbox, otel.registry);
        HttpEndpoint http = SandboxMcpServer.builder(sandbox).exposeTools(true).build().serveHttp("127.0.0.1", 0);
        McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(http.uri().resolve("/").toString())
            .endpoint("/mcp").jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper())).build())
            .requestTimeout(Duration.ofSeconds(120)).build()) {
      client.initialize();
      McpSchema.CallToolResult r = client.callTool(McpSchema.CallToolRequest.builder("run_javascript")
          .arguments(Map.of("code", "tools.add({a: 20, b: 22})"))
          .meta(Map.of("traceparent", "00-" + traceId + "-" + parentId + "-01")).build());
      assertThat(r.isError()).as("%s", r).isFalse();
      McpSchema.CallToolResult host = client.callTool(McpSchema.CallToolRequest.builder("add")
          .arguments(Map.of("a", 1, "b", 2)).build());
      assertThat(host.isError()).as("%s", host).isFalse();

      List<SpanData> spans = otel.spans.getFinishedSpanItems();
      SpanData run = spans.stream().filter(s -> s.getName().equals("execute_tool run_javascript")).findFirst()
          .orElseThrow();
      assertThat(run.getTraceId()).isEqualTo(traceId);
      assertThat(run.getParentSpanId()).isEqualTo(parentId);
      assertThat(spans).filteredOn(s -> s.getParentSpanId().equals(run.getSpanId()))
          .extracting(SpanData::getName).containsExactly("execute_tool add");
      // A host tool exposed as an MCP tool is a run of its own, named by its MCP name; without a traceparent it
      // starts a trace of its own.
      SpanData exposed = spans.stream().filter(s -> s.getName().equals("execute_tool add")
          && !s.getParentSpanId().equals(run.getSpanId()) && !s.getParentSpanContext().isRemote()
          && !s.getParentSpanContext().isValid()).findFirst().orElseThrow();
      assertThat(exposed.getTraceId()).isNotEqualTo(traceId);
    }
  }
}
