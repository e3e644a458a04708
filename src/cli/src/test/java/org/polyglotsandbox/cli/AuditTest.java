package org.polyglotsandbox.cli;

import org.polyglotsandbox.Verdict;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolicyReport;

/**
 * The live audit: it passes on the policies the project ships, and it fails when the sandbox lets a
 * denied operation through, when a probe's expectation is wrong, or when the host saw what the guest
 * did not admit. The failing cases audit JavaScript only, to stay quick.
 */
class AuditTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private static Audit.ProbeResult result(Audit.Report report, String id) {
    return report.results().stream().filter(r -> r.probe().id().equals(id)).findFirst()
        .orElseThrow(() -> new AssertionError("no probe " + id));
  }

  @Test
  void aSandboxLooserThanItsPolicy_failsTheAudit() throws IOException {
    // The sandbox shows a host file at /etc/passwd; the policy it is held to mounts nothing.
    Path secret = Files.writeString(dir.resolve("passwd"), "root:x:0:0:leaked\n");
    Policy actual = Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
        .mount(Mount.readOnly(secret, "/etc/passwd")).build();
    PolicyReport declared = Policy.computeOnly(Language.JAVASCRIPT).report();

    Audit.Report report = new Audit(new PolicyCommand.Loaded("broken", actual, false, List.of()), declared, List.of())
        .run();

    assertThat(report.passed()).isFalse();
    Audit.ProbeResult read = result(report, "js.read.etc-passwd");
    assertThat(read.intended()).isEqualTo(Verdict.DENIED);
    assertThat(read.observed()).isEqualTo(Audit.Observed.REACHABLE);
    assertThat(read.evidence()).contains("root:x:0:0:leaked");
    assertThat(report.rows()).filteredOn(r -> r.entry().operation() == Operation.FILE_READ
            && r.entry().target().equals(PolicyReport.ANY_OTHER_PATH))
        .singleElement().satisfies(row -> {
          assertThat(row.ok()).isFalse();
          assertThat(row.observed()).isEqualTo("mixed");
        });
  }

  @Test
  void wrongExpectations_andHostEvidence_failTheAudit_whileTheBatteryPasses() throws IOException {
    Path data = Files.writeString(dir.resolve("data.txt"), "hello\n");
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT).toBuilder().mount(Mount.readOnly(data, "/data.txt")).build();
    List<Probe> planted = List.of(
        // A mounted file the probe wrongly believes is denied: the audit must notice it is readable.
        Probe.js("test.mounted-read-assumed-denied", Operation.FILE_READ, "/data.txt")
            .code("return 'reachable: ' + readText('/data.txt').length;").assuming(Verdict.DENIED),
        // The guest claims it was blocked, but the host saw the operation happen: the host wins.
        Probe.js("test.host-saw-it", Operation.FILE_READ, "/etc/shadow")
            .hostCheck(() -> "the host saw the file change").code("return 'blocked: says the guest';"),
        // The guest claims it was blocked, but no layer recorded the refusal: inconclusive, not a pass.
        Probe.js("test.no-denial-recorded", Operation.FILE_READ, "/etc/shadow").denial("/etc/shadow")
            .code("return 'blocked: says the guest';"));

    Audit.Report report = new Audit(new PolicyCommand.Loaded("planted", policy, false, List.of()), policy.report(),
        planted).run();

    assertThat(report.failures()).extracting(r -> r.probe().id() + " " + r.observed())
        .containsExactlyInAnyOrder("test.mounted-read-assumed-denied REACHABLE", "test.host-saw-it REACHABLE",
            "test.no-denial-recorded INCONCLUSIVE");
    assertThat(result(report, "test.no-denial-recorded").evidence())
        .contains("no layer recorded a file.read denial of /etc/shadow");
    assertThat(result(report, "js.mount.read:/data.txt").observed()).isEqualTo(Audit.Observed.REACHABLE);
  }

  @Test
  void audit_withABadPolicy_isAUsageError() throws IOException {
    Path bad = Files.writeString(dir.resolve("bad.json"), "{\"languages\": \"js\"}");

    CliRun r = CliRun.of("audit", bad.toString());

    assertThat(r.status()).as(r.toString()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("bad.json: languages:");
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
    CliRun r = CliRun.of("audit", "guest-samples/policy.json", "--json");

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
