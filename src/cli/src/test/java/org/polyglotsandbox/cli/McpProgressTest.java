package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The progress notifications of {@code bin/sandbox mcp} as they are on the wire (raw stdio lines, in
 * the order written): no {@code total} key at all (a client such as the TypeScript SDK's rejects a null
 * one), progress growing with each, none after the answer.
 */
@Tag("slow")
class McpProgressTest {
  @TempDir
  Path dir;

  @Test
  void progressOnTheWire_hasNoTotal_growsWithEachNotification_andNoneFollowsTheAnswer() throws Exception {
    Path policy = dir.resolve("policy.json");
    Files.writeString(policy, "{\"languages\": [\"js\"], \"limits\": {\"wallTime\": \"60s\"}}");
    try (RawMcpProcess server = new RawMcpProcess(dir.resolve("stderr"), "--policy", policy.toString())) {
      server.initialize();
      // A call made during the warm-up is told so in its first notifications ("waited 1.0 s for the sandbox
      // to warm up"); this test is about those of a running call. Worker JVMs take many seconds to warm up.
      long ready = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      while (!Files.readString(dir.resolve("stderr")).contains("sandbox mcp: ready") && System.nanoTime() < ready) {
        Thread.sleep(50);
      }
      server.send("""
          {"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "run_javascript",
           "arguments": {"code": "const t = Date.now(); while (Date.now() - t < 2500) {} 'done'"},
           "_meta": {"progressToken": "p-slow"}}}""");

      List<JsonNode> seen = new ArrayList<>();
      JsonNode answer = server.next(m -> "slow".equals(m.path("id").asText(null)), Duration.ofMinutes(3), seen);
      assertThat(answer.path("result").path("structuredContent").path("value").asText()).isEqualTo("done");
      Thread.sleep(1500);   // more than the 1 s between notifications: one still due would have come
      List<JsonNode> progress = new ArrayList<>(seen);
      progress.addAll(server.drain());
      progress.removeIf(m -> !"notifications/progress".equals(m.path("method").asText()));

      // A run of 2.5 s, notified every second: at least two.
      assertThat(progress).hasSizeGreaterThanOrEqualTo(2);
      assertThat(progress).allSatisfy(m -> {
        assertThat(m.path("params").path("progressToken").asText()).isEqualTo("p-slow");
        assertThat(m.path("params").has("total")).as("%s", m).isFalse();
        assertThat(m.path("params").path("message").asText()).contains("wall-time limit 60 s");
      });
      for (int i = 1; i < progress.size(); i++) {
        assertThat(progress.get(i).path("params").path("progress").asDouble())
            .isGreaterThan(progress.get(i - 1).path("params").path("progress").asDouble());
      }
      assertThat(seen.get(seen.size() - 1)).as("the answer is the last message about the call").isSameAs(answer);
      assertThat(progress).allSatisfy(m -> assertThat(seen).contains(m));
    }
  }
}
