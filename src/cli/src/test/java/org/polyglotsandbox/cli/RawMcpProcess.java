package org.polyglotsandbox.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * {@code bin/sandbox mcp} on stdio driven with raw JSON-RPC lines, for what a real client never sends
 * (requests before {@code initialize}, odd ids, arguments that are not an object) and for reading every
 * line the server writes, in order. Uses the build this test run already made ({@code SANDBOX_SKIP_BUILD=1}).
 */
final class RawMcpProcess implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String INITIALIZE = """
      {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"protocolVersion": "2025-06-18",
       "capabilities": {}, "clientInfo": {"name": "raw-test", "version": "1"}}}""".replace("\n", " ");
  static final String INITIALIZED = "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}";

  private final Process process;
  private final OutputStream stdin;
  private final BlockingQueue<JsonNode> lines = new LinkedBlockingQueue<>();
  final List<String> stderr = java.util.Collections.synchronizedList(new ArrayList<>());
  private volatile long stalledUntil = System.nanoTime();

  RawMcpProcess(Path stderrFile, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(McpServerProcess.SCRIPT.toString(), "mcp"));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(stderrFile.toFile());
    pb.environment().put("SANDBOX_SKIP_BUILD", "1");
    process = pb.start();
    stdin = process.getOutputStream();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        while (true) {
          while (System.nanoTime() - stalledUntil < 0) {
            Thread.sleep(10);
          }
          String line = in.readLine();
          if (line == null) {
            break;
          }
          lines.add(JSON.readTree(line));
        }
      } catch (InterruptedException | IOException e) {
        // the process ended
      }
    }, "raw-mcp-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Stops reading the server's stdout for {@code stall}, as a client busy with something else would:
   * the pipe fills and what the server writes next waits.
   */
  void stallReading(Duration stall) {
    stalledUntil = System.nanoTime() + stall.toNanos();
  }

  /** Writes one line to the server's stdin. */
  void send(String line) throws IOException {
    stdin.write((line.replace("\n", " ") + "\n").getBytes(StandardCharsets.UTF_8));
    stdin.flush();
  }

  /** Sends {@code initialize} and {@code notifications/initialized}, and returns the answer to the first. */
  JsonNode initialize() throws IOException, InterruptedException {
    send(INITIALIZE);
    JsonNode answer = next(m -> m.path("id").asText().equals("init"), Duration.ofMinutes(3), null);
    send(INITIALIZED);
    return answer;
  }

  /**
   * The next line that matches, at most {@code within} from now; every line read before it (and it) is
   * added to {@code seen} if not null.
   *
   * @throws AssertionError if none came in time
   */
  JsonNode next(Predicate<JsonNode> match, Duration within, List<JsonNode> seen) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      JsonNode m = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
      if (m == null) {
        throw new AssertionError("no matching message within " + within + "; the server is "
            + (process.isAlive() ? "running" : "gone (exit " + process.exitValue() + ")"));
      }
      if (seen != null) {
        seen.add(m);
      }
      if (match.test(m)) {
        return m;
      }
    }
  }

  /** The answer to the request with this id (a string id). */
  JsonNode answer(String id, Duration within) throws InterruptedException {
    return next(m -> m.has("id") && !m.has("method") && m.get("id").isTextual() && m.get("id").asText().equals(id),
        within, null);
  }

  /** Lines already read and not yet taken, without waiting. */
  List<JsonNode> drain() {
    List<JsonNode> out = new ArrayList<>();
    lines.drainTo(out);
    return out;
  }

  @Override
  public void close() throws InterruptedException {
    try {
      stdin.close();
    } catch (IOException e) {
      // already closed
    }
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor();
    }
  }
}
