package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sandbox probe} (alias {@code audit}), the command-line front of the escape probe: it passes on
 * the policies the project ships, prints the table or JSON, and refuses a bad policy file. The probe's
 * own rules are tested in the library ({@code EscapeProbeTest}, {@code ProbeRunnerTest}).
 */
@Tag("slow")
class ProbeCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void probe_onAJavaScriptPolicy_printsTheTable_andEveryProbe_andPasses() throws IOException {
    Path policy = Files.writeString(dir.resolve("js.json"), "{\"languages\": [\"js\"], \"tools\": [\"clock\"]}");

    CliRun r = CliRun.of("probe", policy.toString(), "--probes");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out().lines().findFirst()).hasValueSatisfying(l -> assertThat(l)
        .matches("audit: .*js\\.json \\(languages: js\\): \\d+ probes in \\d+ ms"));
    assertThat(r.out()).contains("  OPERATION ", "\nprobes:\n",
        "PASS: every denied operation probed was blocked, every allowed one was reachable");
    assertThat(r.out().lines()).anySatisfy(l -> assertThat(l).matches("  tool\\.call +clock +allowed +reachable +1 +ok"));
    // The other demo tools' names are tried too, and refused.
    assertThat(r.out()).contains("  ok   js.tool.refused:kv.put (tool.call <any other tool>): intended denied,"
        + " observed blocked: blocked: ToolError: tool 'kv.put' is not available in this sandbox");
  }

  @Test
  void audit_withABadPolicy_isAUsageError() throws IOException {
    Path bad = Files.writeString(dir.resolve("bad.json"), "{\"languages\": \"js\"}");

    for (String command : new String[] {"probe", "audit"}) {
      CliRun r = CliRun.of(command, bad.toString());

      assertThat(r.status()).as(r.toString()).isEqualTo(2);
      assertThat(r.out()).isEmpty();
      assertThat(r.err()).contains("bad.json: languages:");
    }
  }

  @Test
  void help_namesProbe_withAuditAsItsAlias() {
    CliRun top = CliRun.of("--help");
    CliRun probe = CliRun.of("audit", "--help");

    assertThat(top.out()).contains("probe, audit");
    assertThat(probe.status()).isZero();
    assertThat(probe.out()).contains("Usage: sandbox probe", "'sandbox audit' is an alias of 'sandbox probe'");
  }

  @Test
  @Tag("slow")
  void defaultPolicy_passes() {
    CliRun r = CliRun.of("audit");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out()).contains("audit: the default policy", "PASS: every denied operation probed was blocked");
    assertThat(r.out().lines()).anySatisfy(l -> assertThat(l).matches(
        "  network\\.socket +connect +denied +blocked +\\d+ +ok"));
  }

  @Test
  @Tag("slow")
  void samplePolicy_passes_andReportsEveryOperationAsJson() throws IOException {
    CliRun r = CliRun.of("probe", "guest-samples/policy.json", "--json");

    assertThat(r.status()).as(r.toString()).isZero();
    JsonNode o = JSON.readTree(r.out());
    assertThat(o.get("passed").asBoolean()).isTrue();
    assertThat(o.get("probeCount").asInt()).isGreaterThanOrEqualTo(140);
    assertThat(o.get("failureCount").asInt()).isZero();
    assertThat(o.get("operations")).anySatisfy(op -> {
      assertThat(op.get("operation").asText()).isEqualTo("file.read");
      assertThat(op.get("target").asText()).isEqualTo("/data");
      assertThat(op.get("intended").asText()).isEqualTo("allowed");
      assertThat(op.get("observed").asText()).isEqualTo("reachable");
    });
    assertThat(o.get("probes")).allSatisfy(p -> assertThat(p.get("ok").asBoolean()).as(p.toString()).isTrue());
  }
}
