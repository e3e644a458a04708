package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sandbox run --audit-log FILE}: denials, limits and tool calls appended to FILE as JSON Lines. */
class AuditLogCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path file(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }

  private static List<JsonNode> lines(Path log) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(log)) {
      out.add(JSON.readTree(line));
    }
    return out;
  }

  @Test
  void deniedRead_isLoggedWithTheRunsId_thenTheRunLine() throws IOException {
    Path log = dir.resolve("audit.jsonl");
    CliRun r = CliRun.of("run", file("peek.js", "readText('/etc/passwd')").toString(), "--audit-log", log.toString(),
        "--json");

    assertThat(r.status()).as(r.toString()).isEqualTo(1);
    String runId = JSON.readTree(r.out()).get("runId").asText();
    List<JsonNode> lines = lines(log);
    assertThat(lines).hasSize(2);
    JsonNode denied = lines.get(0);
    assertThat(denied.properties()).extracting(Map.Entry::getKey)
        .containsExactly("type", "time", "runId", "operation", "target", "verdict", "layer", "detail");
    assertThat(denied.get("type").asText()).isEqualTo("audit");
    assertThat(denied.get("runId").asText()).isEqualTo(runId);
    assertThat(denied.get("operation").asText()).isEqualTo("file.read");
    assertThat(denied.get("target").asText()).isEqualTo("/etc/passwd");
    assertThat(denied.get("verdict").asText()).isEqualTo("denied");
    assertThat(denied.get("layer").asText()).isEqualTo("virtual-file-system");
    assertThat(java.time.Instant.parse(denied.get("time").asText())).isNotNull();
    JsonNode run = lines.get(1);
    assertThat(run.get("type").asText()).isEqualTo("run");
    assertThat(run.get("runId").asText()).isEqualTo(runId);
    assertThat(run.get("program").asText()).isEqualTo("peek.js");
    assertThat(run.get("outcome").asText()).isEqualTo("GUEST_ERROR");
    assertThat(run.get("events").asInt()).isEqualTo(1);
    assertThat(run.get("droppedEvents").asInt()).isZero();
  }

  @Test
  void eachRun_appends_andLimitsAndToolCallsAreLogged() throws IOException {
    Path log = dir.resolve("audit.jsonl");
    Path policy = file("policy.json", "{\"tools\": [\"clock\"], \"limits\": {\"maxStatements\": 1000}}");
    Path program = file("busy.js", "tools.clock(); try { tools['kv.put']({}); } catch (e) {} while (true) {}");

    CliRun first = CliRun.of("run", program.toString(), "--policy", policy.toString(), "--audit-log", log.toString());
    CliRun second = CliRun.of("run", program.toString(), "--policy", policy.toString(), "--audit-log", log.toString());

    assertThat(first.status()).as(first.toString()).isEqualTo(3);
    assertThat(second.status()).as(second.toString()).isEqualTo(3);
    List<JsonNode> lines = lines(log);
    assertThat(lines).extracting(l -> l.get("type").asText() + " " + l.path("operation").asText("") + " "
            + l.path("target").asText("") + " " + l.path("verdict").asText(""))
        .containsExactly(
            "audit tool.call clock allowed", "audit tool.call kv.put denied", "audit limit.exceed statements stopped",
            "run   ", "audit tool.call clock allowed", "audit tool.call kv.put denied",
            "audit limit.exceed statements stopped", "run   ");
    assertThat(lines.get(0).get("detail").asText()).startsWith("ok in ");
    assertThat(lines.get(2).get("layer").asText()).isEqualTo("statement-limit");
    assertThat(lines.get(0).get("runId").asText()).isEqualTo(lines.get(3).get("runId").asText())
        .isNotEqualTo(lines.get(4).get("runId").asText());
  }

  @Test
  void guestChosenTargets_areEscapedInTheLog() throws IOException {
    Path log = dir.resolve("audit.jsonl");
    CliRun r = CliRun.of("run", file("esc.js", "try { readText('/x\\u001b[2J\\u009b') } catch (e) {} 1").toString(),
        "--audit-log", log.toString());

    assertThat(r.status()).as(r.toString()).isZero();
    String text = Files.readString(log);
    assertThat(text).doesNotContain("\u001b", "\u009b").contains("\\u001B[2J\\u009B");
    assertThat(lines(log).get(0).get("target").asText()).isEqualTo("/x\u001b[2J\u009b");
  }

  @Test
  void unwritableLog_isAUsageError_beforeAnythingRuns() throws IOException {
    Path program = file("a.js", "1");
    CliRun r = CliRun.of("run", program.toString(), "--audit-log", dir.resolve("no/such/dir/audit.jsonl").toString());

    assertThat(r.status()).as(r.toString()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().lines()).singleElement().asString()
        .contains("--audit-log: '" + dir.resolve("no/such/dir/audit.jsonl") + "' cannot be opened for appending:"
            + " its directory does not exist");

    CliRun directory = CliRun.of("run", program.toString(), "--audit-log", dir.toString());
    assertThat(directory.status()).as(directory.toString()).isEqualTo(2);
  }
}
