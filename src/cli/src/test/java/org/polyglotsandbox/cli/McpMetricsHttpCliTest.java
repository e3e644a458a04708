package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/sandbox mcp --http :0 --metrics} as a process: after calls from the MCP Java SDK's client,
 * {@code GET /metrics} on the same port answers Prometheus text that counts them.
 */
@Tag("slow")
class McpMetricsHttpCliTest {
  private static final int CALLS = 61;

  @TempDir
  Path dir;

  @Test
  void metricsPage_countsEveryOkJavaScriptCall_andTimesThem() throws Exception {
    Path stderr = dir.resolve("stderr");
    Process p = McpServerProcess.startHttp(stderr, dir.resolve("stdout"), "--http", ":0", "--metrics", "--workers", "1");
    try {
      String base = McpServerProcess.httpBase(p, stderr, Duration.ofMinutes(3));
      assertThat(base).as("the server says where it listens: %s", Files.readString(stderr)).isNotNull();
      assertThat(Files.readString(stderr)).contains("metrics at " + base + "/metrics");

      try (McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(base).endpoint("/mcp")
          .jsonMapper(McpServerProcess.MAPPER).build()).requestTimeout(Duration.ofSeconds(120)).build()) {
        client.initialize();
        for (int i = 0; i < CALLS; i++) {
          McpSchema.CallToolResult r = client.callTool(McpSchema.CallToolRequest.builder("run_javascript")
              .arguments(Map.of("code", "6 * " + i)).build());
          assertThat(r.isError()).as("%s", r).isFalse();
        }
      }

      HttpResponse<String> metrics = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(base + "/metrics")).GET().build(), HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
      String text = metrics.body();
      Matcher runs = Pattern.compile("(?m)^sandbox_runs_total\\{([^}]*)\\} (\\S+)$").matcher(text);
      double okJs = 0;
      while (runs.find()) {
        String tags = runs.group(1);
        if (tags.contains("language=\"js\"") && tags.contains("outcome=\"ok\"")) {
          okJs += Double.parseDouble(runs.group(2));
        }
      }
      assertThat(okJs).as(text).isGreaterThanOrEqualTo(CALLS);
      assertThat(text).containsPattern("(?m)^sandbox_run_duration_seconds_count\\{[^}]*language=\"js\"[^}]*\\} \\d");
      assertThat(text).contains("sandbox_runs_running");
      assertThat(Files.readString(dir.resolve("stdout"))).isEmpty();
    } finally {
      p.destroy();
      p.waitFor();
    }
  }

  @Test
  void metricsWithoutHttp_isAUsageError() throws Exception {
    ProcessBuilder pb = new ProcessBuilder(McpServerProcess.SCRIPT.toString(), "mcp", "--metrics")
        .redirectError(dir.resolve("stderr").toFile()).redirectOutput(dir.resolve("stdout").toFile());
    pb.environment().put("SANDBOX_SKIP_BUILD", "1");
    Process p = pb.start();
    assertThat(p.waitFor()).isEqualTo(2);
    assertThat(Files.readString(dir.resolve("stderr"))).contains("--metrics needs --http");
  }
}
