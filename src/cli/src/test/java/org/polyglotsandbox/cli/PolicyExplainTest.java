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
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolicyReport;

/** {@code sandbox policy explain}: the allowlist and the escape surface of a policy file, as a table and as JSON. */
class PolicyExplainTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path SAMPLE_POLICY = Path.of("guest-samples/policy.json");

  @TempDir
  Path dir;

  /** The rows of the table under {@code heading}, each split into its columns. */
  private static List<String> section(String out, String heading) {
    List<String> lines = out.lines().toList();
    int start = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(heading)) {
        start = i + 2; // skip the heading and the column names
        break;
      }
    }
    assertThat(start).as("section '%s' in:%n%s", heading, out).isPositive();
    List<String> rows = new ArrayList<>();
    for (int i = start; i < lines.size() && !lines.get(i).isEmpty(); i++) {
      rows.add(lines.get(i).strip().replaceAll(" {2,}", " | "));
    }
    return rows;
  }

  @Test
  void noPolicy_explainsTheDefaults() {
    CliRun r = CliRun.of("policy", "explain");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out()).startsWith("policy: none (the defaults)\nlanguages: the program's own (js or python; one per run)\n"
        + "mounts: none\nworking directory: /\ntools: none\n");
    assertThat(section(r.out(), "allowed (")).containsExactly(
        "file.list | / | virtual-file-system | empty: the policy mounts nothing",
        "file.read | <GraalPy standard library> | virtual-file-system | Python only: a read-only view of GraalPy's"
            + " standard library, at /usr/lib/graalpy",
        "file.list | <GraalPy standard library> | virtual-file-system | Python only: the same read-only view",
        "clock.read | <host clock> | - | at the host's resolution, in UTC; timing side channels are not mitigated",
        "output.write | stdout, stderr | output-boundary | together at most 1 MiB");
    assertThat(section(r.out(), "denied, the escape surface (")).contains(
        "host.info | <interpreter paths> | virtual-file-system | Python sees GraalPy's home at /usr/lib/graalpy"
            + " (sys.prefix, sys.path, module files, code objects, tracebacks, real paths); never the host cache it"
            + " is extracted to, nor its inode numbers, owner or times; nothing around it is listable",
        "file.read | <any other path> | virtual-file-system | host files, /etc, /proc, /tmp and every path outside"
            + " the mounts; the guest sees a permission error",
        "thread.create | <any thread> | context-permissions | threading, _thread, Worker; CONSTRAINED alone would"
            + " allow threads, the context does not",
        "limit.exceed | wall_time | watchdog | longer than 10 s")
        .anySatisfy(row -> assertThat(row).startsWith("network.socket | connect | context-permissions,"
            + " graalvm-constrained | "));
  }

  @Test
  void samplePolicy_listsItsMountsAndToolsAsAllowed_andTheRestAsDenied() {
    CliRun r = CliRun.of("policy", "explain", SAMPLE_POLICY.toString());

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out()).contains("languages: js, python\n", "tools: clock, kv.get, kv.put, lookup\n",
        "/data (ro, copy of " + SAMPLE_POLICY.toAbsolutePath().getParent().resolve("data") + ")");
    List<String> allowed = section(r.out(), "allowed (");
    assertThat(allowed).anySatisfy(row -> assertThat(row).startsWith("file.read | /data | virtual-file-system | "))
        .anySatisfy(row -> assertThat(row).startsWith("file.create | /scratch | "))
        .anySatisfy(row -> assertThat(row).startsWith("tool.call | kv.put | tool-gateway | "));
    assertThat(section(r.out(), "denied, the escape surface ("))
        .anySatisfy(row -> assertThat(row).startsWith("file.write | /data | virtual-file-system | the mount is read-only"))
        .anySatisfy(row -> assertThat(row).startsWith("tool.call | <any other tool> | tool-gateway | "))
        .noneSatisfy(row -> assertThat(row).startsWith("file.read | /data"));
  }

  @Test
  void json_isOneObjectMatchingTheLibrarysReport() throws IOException {
    CliRun r = CliRun.of("policy", "explain", SAMPLE_POLICY.toString(), "--json");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out().lines()).hasSize(1);
    JsonNode o = JSON.readTree(r.out());
    assertThat(o.properties()).extracting(Map.Entry::getKey)
        .containsExactly("policy", "languages", "languagesFromProgram", "isolation", "allowed", "escapeSurface");
    assertThat(o.get("isolation").get("mode").asText()).isEqualTo("in-process");
    assertThat(o.get("isolation").get("weakWallAccepted").asBoolean()).isFalse();
    assertThat(o.get("policy").asText()).isEqualTo(SAMPLE_POLICY.toString());
    assertThat(o.get("languagesFromProgram").asBoolean()).isFalse();
    for (JsonNode e : o.get("escapeSurface")) {
      assertThat(e.properties()).extracting(Map.Entry::getKey)
          .containsExactly("operation", "target", "verdict", "layers", "note");
      assertThat(e.get("verdict").asText()).isEqualTo("denied");
      assertThat(e.get("layers")).as(e.toString()).isNotEmpty();
    }

    Path data = SAMPLE_POLICY.toAbsolutePath().getParent().resolve("data");
    PolicyReport expected = Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
        .mount(Mount.readOnly(data, "/data")).mount(Mount.scratch("/scratch")).workingDirectory("/scratch")
        .allowTools("clock", "kv.get", "kv.put", "lookup")
        .limits(org.polyglotsandbox.Limits.builder().wallTime(java.time.Duration.ofSeconds(20))
            .maxStatements(10_000_000).maxOutputBytes(64 << 10).build())
        .build().report();
    assertThat(targets(o.get("allowed"))).isEqualTo(expected.allowed().stream()
        .map(e -> e.operation().id() + " " + e.target()).toList());
    assertThat(targets(o.get("escapeSurface"))).isEqualTo(expected.escapeSurface().stream()
        .map(e -> e.operation().id() + " " + e.target()).toList());
  }

  private static List<String> targets(JsonNode entries) {
    List<String> out = new ArrayList<>();
    entries.forEach(e -> out.add(e.get("operation").asText() + " " + e.get("target").asText()));
    return out;
  }

  @Test
  void emptyPolicyFile_meansTheDefaults() throws IOException {
    Path empty = Files.writeString(dir.resolve("empty.json"), "{}");

    CliRun defaults = CliRun.of("policy", "explain", "--json");
    CliRun fromFile = CliRun.of("policy", "explain", empty.toString(), "--json");

    assertThat(fromFile.status()).as(fromFile.toString()).isZero();
    JsonNode a = JSON.readTree(defaults.out());
    JsonNode b = JSON.readTree(fromFile.out());
    assertThat(b.get("languagesFromProgram").asBoolean()).isTrue();
    assertThat(b.get("allowed")).isEqualTo(a.get("allowed"));
    assertThat(b.get("escapeSurface")).isEqualTo(a.get("escapeSurface"));
  }

  @Test
  void badPolicy_isAUsageError_namingTheField() throws IOException {
    Path bad = Files.writeString(dir.resolve("bad.json"), "{\"limits\": {\"wallTme\": \"2s\"}}");

    CliRun r = CliRun.of("policy", "explain", bad.toString());

    assertThat(r.status()).as(r.toString()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().lines()).singleElement().asString().contains("bad.json: limits.wallTme: unknown field");
  }

  @Test
  void policyWithoutSubcommand_printsUsage_exitsTwo() {
    CliRun r = CliRun.of("policy");

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("Usage: sandbox policy", "explain");
  }
}
