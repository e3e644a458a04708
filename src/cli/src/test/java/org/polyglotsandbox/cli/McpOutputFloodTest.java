package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A guest that floods stdout cannot hold up the protocol: {@code bin/sandbox mcp} streams a run's output
 * as at most {@value #MAX_NOTIFICATIONS} logging notifications carrying at most {@value #MAX_STREAMED_CHARS}
 * characters, says how much it did not stream, and answers a {@code ping} sent during the flood while the
 * flood still runs, even after the client stopped reading for a while. Raw JSON-RPC over stdio, so that
 * every line the server writes is seen in order.
 */
@Tag("slow")
class McpOutputFloodTest {
  /** The most logging notifications one run's output becomes (the notice of what was not streamed aside). */
  static final int MAX_NOTIFICATIONS = 1000;
  /** The most output characters streamed for one run. */
  static final int MAX_STREAMED_CHARS = 1 << 20;
  private static final Duration WITHIN = Duration.ofMinutes(2);
  private static final String FLOOD = "for (let i = 0; ; i++) { console.log(i + ' ' + 'x'.repeat(100)); }";
  private static final String BOUNDED_FLOOD = "for (let i = 0; i < 100000; i++) { console.log(i + ' ' + 'x'.repeat(100)); }"
      + " console.error('done'); 'flooded'";

  @TempDir
  static Path dir;

  private static RawMcpProcess server;
  private static Path audit;

  @BeforeAll
  static void start() throws Exception {
    Path policy = dir.resolve("policy.json");
    // Generous: the flood ends because the test cancels it, or at 64 MB of output, never by a short limit.
    Files.writeString(policy, """
        {"languages": ["js"], "limits": {"wallTime": "300s", "maxCpuTime": "300s", "maxStatements": 1000000000000000,
         "maxOutputBytes": "64m"}}""");
    audit = dir.resolve("audit.jsonl");
    server = new RawMcpProcess(dir.resolve("stderr"), "--policy", policy.toString(), "--audit-log", audit.toString());
    server.initialize();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  private static boolean isOutput(JsonNode m) {
    return "notifications/message".equals(m.path("method").asText());
  }

  private static String call(String id, String code) {
    return "{\"jsonrpc\": \"2.0\", \"id\": \"" + id + "\", \"method\": \"tools/call\", \"params\": {\"name\":"
        + " \"run_javascript\", \"arguments\": {\"code\": \"" + code.replace("\"", "\\\"") + "\"}}}";
  }

  private static String ping(String id) {
    return "{\"jsonrpc\": \"2.0\", \"id\": \"" + id + "\", \"method\": \"ping\"}";
  }

  private static void awaitAuditLine(String text) throws Exception {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (!(Files.exists(audit) && Files.readString(audit).contains(text))) {
      assertThat(System.nanoTime()).as("the audit log shows %s", text).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  @Test
  void pingDuringAFlood_isAnsweredWhileTheFloodRuns_behindABoundedStream() throws Exception {
    server.send(call("flood", FLOOD));
    List<JsonNode> seen = new ArrayList<>();
    server.next(McpOutputFloodTest::isOutput, WITHIN, seen);
    // A client that stops reading for a while (busy with a model call) lets the server's writes back up:
    // what the server queues in that time goes out before anything it queues later.
    server.stallReading(Duration.ofSeconds(2));
    Thread.sleep(2000);

    long sent = System.nanoTime();
    server.send(ping("ping-during-flood"));
    server.next(m -> m.path("id").asText().equals("ping-during-flood") && !m.has("method"), WITHIN, seen);
    long answeredMillis = (System.nanoTime() - sent) / 1_000_000;
    long notifications = seen.stream().filter(McpOutputFloodTest::isOutput).count();
    System.out.printf("ping during a flood: answered after %d ms, %d output notifications before it%n",
        answeredMillis, notifications);

    assertThat(seen).as("the flood still runs: it has no answer yet")
        .noneMatch(m -> m.path("id").asText().equals("flood"));
    assertThat(notifications).isLessThanOrEqualTo(MAX_NOTIFICATIONS);

    server.send("{\"jsonrpc\": \"2.0\", \"method\": \"notifications/cancelled\", \"params\": {\"requestId\": \"flood\"}}");
    awaitAuditLine("\"outcome\":\"CANCELLED\"");
    server.send(ping("after-flood"));
    server.next(m -> m.path("id").asText().equals("after-flood") && !m.has("method"), WITHIN, seen);
    assertThat(seen.stream().filter(McpOutputFloodTest::isOutput).count())
        .as("notifications of the cancelled run, the notice of what was not streamed included")
        .isLessThanOrEqualTo(MAX_NOTIFICATIONS + 1);
  }

  @Test
  void floodThatEnds_isStreamedWithinTheBounds_andTheRestIsCountedInANotice_andWholeInTheResult() throws Exception {
    server.send(ping("before-bounded-flood"));
    server.answer("before-bounded-flood", WITHIN);
    server.drain();
    server.send(call("bounded", BOUNDED_FLOOD));
    List<JsonNode> seen = new ArrayList<>();
    JsonNode answer = server.next(m -> m.path("id").asText().equals("bounded") && !m.has("method"), WITHIN, seen);

    JsonNode structured = answer.path("result").path("structuredContent");
    assertThat(structured.path("outcome").asText()).as("%s", structured.path("outcome")).isEqualTo("OK");
    long whole = structured.path("stdout").asText().length() + structured.path("stderr").asText().length();
    assertThat(whole).as("the result holds all 100,000 lines").isGreaterThan(10_000_000L);

    List<JsonNode> output = seen.stream().filter(McpOutputFloodTest::isOutput)
        .filter(m -> !m.path("params").path("logger").asText().equals("sandbox")).toList();
    List<JsonNode> notices = seen.stream().filter(McpOutputFloodTest::isOutput)
        .filter(m -> m.path("params").path("logger").asText().equals("sandbox")).toList();
    long streamed = output.stream().mapToLong(m -> m.path("params").path("data").asText().length()).sum();
    assertThat(output.size()).isLessThanOrEqualTo(MAX_NOTIFICATIONS);
    assertThat(streamed).isLessThanOrEqualTo(MAX_STREAMED_CHARS);
    assertThat(notices).hasSize(1);
    String notice = notices.get(0).path("params").path("data").asText();
    Matcher m = Pattern.compile("(\\d+) characters of output were not streamed").matcher(notice);
    assertThat(m.find()).as(notice).isTrue();
    assertThat(Long.parseLong(m.group(1))).isEqualTo(whole - streamed);
    assertThat(notices.get(0).path("params").path("level").asText()).isEqualTo("warning");
  }
}
