package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/sandbox mcp --http :0} as a process, called by the MCP Java SDK's Streamable HTTP client. */
@Tag("slow")
class McpHttpCliTest {
  @TempDir
  Path dir;

  @Test
  void httpOnLoopback_servesTheRunTools_toTheJavaSdksStreamableHttpClient() throws Exception {
    Path stderr = dir.resolve("stderr");
    Process p = McpServerProcess.startHttp(stderr, dir.resolve("stdout"), "--http", ":0");
    try {
      String base = McpServerProcess.httpBase(p, stderr, Duration.ofMinutes(3));
      assertThat(base).as("the server says where it listens: %s", Files.readString(stderr)).isNotNull();

      try (McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(base).endpoint("/mcp")
          .jsonMapper(McpServerProcess.MAPPER).build()).requestTimeout(Duration.ofSeconds(60)).build()) {
        client.initialize();
        McpSchema.CallToolResult r = client.callTool(McpSchema.CallToolRequest.builder("run_python").arguments(Map.of("code", "sum(xs)", "inputs", Map.of("xs", java.util.List.of(1, 2, 39)))).build());
        assertThat(r.isError()).as("%s", r).isFalse();
        assertThat(((Map<?, ?>) r.structuredContent()).get("value")).isEqualTo(42);
      }
      assertThat(Files.readString(dir.resolve("stdout"))).isEmpty();
    } finally {
      p.destroy();
      p.waitFor();
    }
  }
}
