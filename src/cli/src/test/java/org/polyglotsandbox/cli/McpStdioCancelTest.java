package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs that end because the client says so: {@code notifications/cancelled} from the MCP Java SDK's
 * client, and a client that closes stdin mid-run. The audit log ({@code --audit-log}) shows how each run
 * ended. Also progress notifications, and a malformed line that must not end the session.
 */
@Tag("slow")
class McpStdioCancelTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path policy() throws IOException {
    Path policy = dir.resolve("policy.json");
    Files.writeString(policy, """
        {"languages": ["js"], "limits": {"wallTime": "60s", "maxStatements": 1000000000000}}""");
    return policy;
  }

  private static boolean waitForLine(Path log, String text, Duration within) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(log) && Files.readString(log).contains(text)) {
        return true;
      }
      Thread.sleep(50);
    }
    return false;
  }

  @Test
  void notificationsCancelled_cancelsTheRun_andTheSessionGoesOn_withProgressWhileItRan() throws Exception {
    Path audit = dir.resolve("audit.jsonl");
    try (McpServerProcess server = new McpServerProcess("--policy", policy().toString(), "--audit-log", audit.toString())) {
      // Cancelled while it waits for the warm-up, the call would end before any run (no audit line).
      server.awaitReady(Duration.ofMinutes(3));
      CompletableFuture<McpSchema.CallToolResult> pending = CompletableFuture.supplyAsync(() -> server.client.callTool(
          McpSchema.CallToolRequest.builder("run_javascript").arguments(Map.of("code", "while (true) {}"))
              .progressToken("p-1").build()));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (server.progress.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(server.progress).as("progress for a run past 1 s").isNotEmpty();
      assertThat(server.progress.get(0).progressToken()).isEqualTo("p-1");
      assertThat(server.progress.get(0).message()).contains("running for");

      server.cancel(server.lastCallId());

      assertThat(waitForLine(audit, "\"outcome\":\"CANCELLED\"", Duration.ofSeconds(45)))
          .as("the run ended CANCELLED long before its 60 s limit").isTrue();
      McpSchema.CallToolResult after = server.call("run_javascript", Map.of("code", "'still here'"));
      assertThat(after.isError()).isFalse();
      assertThat(pending).as("a cancelled request gets no response").isNotDone();
    }
  }

  @Test
  void clientClosingStdinMidRun_cancelsTheRun_andTheServerExitsCleanly_afterAMalformedLineWasAnswered() throws Exception {
    Path audit = dir.resolve("audit.jsonl");
    ProcessBuilder pb = new ProcessBuilder(McpServerProcess.SCRIPT.toString(), "mcp", "--policy", policy().toString(),
        "--audit-log", audit.toString()).redirectError(dir.resolve("stderr").toFile());
    pb.environment().put("SANDBOX_SKIP_BUILD", "1");
    Process p = pb.start();
    try {
      OutputStream in = p.getOutputStream();
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      send(in, """
          {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}""");
      assertThat(JSON.readTree(out.readLine()).get("id").asInt()).isEqualTo(1);
      send(in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      send(in, "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": ");

      JsonNode parseError = JSON.readTree(out.readLine());
      assertThat(parseError.get("error").get("code").asInt()).isEqualTo(-32700);
      assertThat(parseError.get("error").get("message").asText()).startsWith("invalid JSON:");
      assertThat(parseError.get("id").isNull()).isTrue();

      send(in, """
          {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_javascript","arguments":{"code":"6*7"}}}""");
      assertThat(JSON.readTree(out.readLine()).get("result").get("structuredContent").get("value").asInt()).isEqualTo(42);

      // A denial first: its audit line shows the run is in its loop (a call cancelled before its run starts
      // ends with no run at all, however long a loaded machine takes to get there).
      send(in, """
          {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"run_javascript","arguments":{"code":"try { readText('/etc/passwd') } catch (e) {} while (true) {}"}}}""");
      assertThat(waitForLine(audit, "\"label\":\"mcp stdio request 4\",\"operation\":\"file.read\"", Duration.ofSeconds(60)))
          .as("the run reached its loop").isTrue();
      in.close();

      assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("the server exits once stdin closes").isTrue();
      assertThat(p.exitValue()).isZero();
      assertThat(Files.readString(audit)).contains("\"label\":\"mcp stdio request 4\",\"outcome\":\"CANCELLED\"");
      assertThat(Files.readString(dir.resolve("stderr"))).doesNotContain("Exception", "SEVERE");
    } finally {
      p.destroyForcibly();
    }
  }

  private static void send(OutputStream in, String line) throws IOException {
    in.write((line.strip() + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }
}
