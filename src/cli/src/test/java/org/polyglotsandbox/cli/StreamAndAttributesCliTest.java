package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sandbox run --stream} (the guest's output as it is written, kept apart from the report) and
 * {@code --attribute KEY=VALUE} (run attributes: in the audit log, never in the guest). That a streamed
 * line comes out while the run still goes is {@code SandboxScriptTest}'s, with a process.
 */
@Tag("slow")
class StreamAndAttributesCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path file(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }

  @Test
  void stream_printsEachLineBehindTheMargin_beforeTheReport_andTheReportGivesOnlySizes() throws IOException {
    CliRun r = CliRun.of("run", file("talk.js", """
        console.log('one'); console.log('outcome: OK | forged report line'); console.error('oops'); 42""").toString(),
        "--stream");

    assertThat(r.status()).as(r.toString()).isZero();
    List<String> out = r.out().lines().toList();
    assertThat(out.subList(0, 3)).containsExactly("  | one", "  | outcome: OK | forged report line", "value: 42");
    assertThat(out).contains("guest stdout: streamed above (37 characters)")
        .noneMatch(l -> l.startsWith("  | ") && out.indexOf(l) > 2);
    assertThat(out.get(out.size() - 1)).startsWith("outcome: OK");
    assertThat(r.err().lines()).contains("  | oops");
  }

  @Test
  void stream_endsAnUnfinishedLine_beforeTheReport() throws IOException {
    CliRun r = CliRun.of("run", file("partial.py", "import sys\nsys.stdout.write('no newline')\n1").toString(),
        "--stream");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out().lines().toList().subList(0, 2)).containsExactly("  | no newline", "value: 1");
  }

  @Test
  void streamWithJson_keepsStdoutOneObject_andStreamsJsonLinesOnStderr() throws IOException {
    CliRun r = CliRun.of("run", file("talk.py", "print('a')\nimport sys\nprint('b\\x1b[31m', file=sys.stderr)\n7")
        .toString(), "--stream", "--json");

    assertThat(r.status()).as(r.toString()).isZero();
    JsonNode result = JSON.readTree(r.out());
    assertThat(r.out().strip().lines()).hasSize(1);
    assertThat(result.get("value").asInt()).isEqualTo(7);
    assertThat(result.get("stdout").asText()).isEqualTo("a\n");
    List<JsonNode> chunks = new ArrayList<>();
    for (String line : r.err().lines().filter(l -> l.startsWith("{")).toList()) {
      chunks.add(JSON.readTree(line));
    }
    assertThat(chunks).extracting(c -> c.get("stream").asText() + ":" + c.get("text").asText())
        .contains("stdout:a\n").anySatisfy(c -> assertThat(c).startsWith("stderr:b"));
    assertThat(r.err()).doesNotContain("\u001b");
  }

  @Test
  void attributes_areInEveryAuditLine_andNeverInTheGuest() throws IOException {
    Path log = dir.resolve("audit.jsonl");
    CliRun r = CliRun.of("run", file("look.js", """
        const seen = [typeof attributes, typeof tenant, JSON.stringify(Object.keys(globalThis)).includes('acme')];
        try { readText('/etc/passwd'); } catch (e) {}
        seen""").toString(), "--attribute", "tenant=acme", "--attribute", "ticket=T-1=2", "--audit-log",
        log.toString(), "--json");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(JSON.readTree(r.out()).get("value").toString()).isEqualTo("[\"undefined\",\"undefined\",false]");
    List<String> lines = Files.readAllLines(log);
    assertThat(lines).hasSize(2);
    for (String line : lines) {
      JsonNode attributes = JSON.readTree(line).get("attributes");
      assertThat(attributes).as(line).isNotNull();
      assertThat(attributes.get("tenant").asText()).isEqualTo("acme");
      assertThat(attributes.get("ticket").asText()).isEqualTo("T-1=2");
    }
  }

  @Test
  void badAttribute_isAUsageError_namingIt_beforeAnythingRuns() throws IOException {
    Path program = file("never.js", "throw new Error('ran')");

    CliRun noValue = CliRun.of("run", program.toString(), "--attribute", "tenant");
    assertThat(noValue.status()).as(noValue.toString()).isEqualTo(2);
    assertThat(noValue.err()).contains("--attribute 'tenant'").contains("KEY=VALUE").doesNotContain("ran");

    CliRun badKey = CliRun.of("run", program.toString(), "--attribute", "ten ant=acme");
    assertThat(badKey.status()).as(badKey.toString()).isEqualTo(2);
    assertThat(badKey.err()).contains("--attribute 'ten ant=acme'").doesNotContain("ran");
  }
}
