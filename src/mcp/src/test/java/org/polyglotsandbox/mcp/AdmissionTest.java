package org.polyglotsandbox.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * Concurrent calls are bounded by the sandbox's admission: with one run and one waiting place, the
 * third of three long calls at once is answered at once with isError saying the sandbox is busy, and
 * the server keeps serving. Over Streamable HTTP with the MCP Java SDK's client, in this JVM.
 */
@Tag("slow")
class AdmissionTest {
  @Test
  void callsPastTheAdmissionBound_areAnsweredBusy_atOnce_andTheServerGoesOn() throws Exception {
    // 10 s for each loop: the second and third calls must reach the server while the first still runs.
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT)
        .limits(Limits.builder().wallTime(Duration.ofSeconds(10)).maxStatements(1_000_000_000_000L).build()).build();
    ExecutorService threads = Executors.newFixedThreadPool(3);
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).maxConcurrentRuns(1).maxWaitingRuns(1).build();
        HttpEndpoint http = SandboxMcpServer.builder(sandbox).build().serveHttp("127.0.0.1", 0);
        McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(
                http.uri().resolve("/").toString()).endpoint("/mcp")
            .jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper())).build())
            .requestTimeout(Duration.ofSeconds(60)).build()) {
      client.initialize();
      List<CompletableFuture<McpSchema.CallToolResult>> calls = new ArrayList<>();
      // In order: the first runs, the second waits, the third finds no place. Each call goes once the one
      // before holds its place, however long a loaded machine takes to get it there.
      for (int i = 0; i < 3; i++) {
        calls.add(CompletableFuture.supplyAsync(() -> client.callTool(
            McpSchema.CallToolRequest.builder("run_javascript").arguments(Map.of("code", "while (true) {}")).build()), threads));
        if (i == 0) {
          awaitTrue(() -> sandbox.runningRuns() == 1);
        } else if (i == 1) {
          awaitTrue(() -> sandbox.waitingRuns() == 1);
        }
      }
      List<String> texts = new ArrayList<>();
      List<Object> outcomes = new ArrayList<>();
      for (CompletableFuture<McpSchema.CallToolResult> c : calls) {
        McpSchema.CallToolResult r = c.get();
        assertThat(r.isError()).isTrue();
        texts.add(((McpSchema.TextContent) r.content().get(0)).text());
        outcomes.add(((Map<?, ?>) r.structuredContent()).get("outcome"));
      }
      assertThat(texts).filteredOn(t -> t.contains("the sandbox is busy") && t.contains("nothing ran")).hasSize(1);
      assertThat(outcomes).containsExactlyInAnyOrder("LIMIT_EXCEEDED", "LIMIT_EXCEEDED", "NOT_RUN");
      assertThat(texts).filteredOn(t -> t.contains("LIMIT_EXCEEDED")).hasSize(2);
      McpSchema.CallToolResult after = client.callTool(McpSchema.CallToolRequest.builder("run_javascript").arguments(Map.of("code", "6*7")).build());
      assertThat(((Map<?, ?>) after.structuredContent()).get("value")).isEqualTo(42);
    } finally {
      threads.shutdownNow();
    }
  }

  private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not reached in 60 s");
      }
      Thread.sleep(5);
    }
  }
}
