package org.polyglotsandbox.internal.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.polyglotsandbox.EscapeProbe;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolicyReport;
import org.polyglotsandbox.Verdict;
import org.polyglotsandbox.internal.spi.ProbeSuite;

/**
 * The evidence rules, run for real: a wrong expectation, host evidence the guest did not admit and a
 * refusal no layer recorded each fail, while the standard battery beside them passes. JavaScript only,
 * to stay quick.
 */
class ProbeRunnerTest {
  @TempDir
  Path dir;

  @Test
  void wrongExpectations_andHostEvidence_failTheProbe_whileTheBatteryPasses() throws IOException {
    Path data = Files.writeString(dir.resolve("data.txt"), "hello\n");
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT).toBuilder().mount(Mount.readOnly(data, "/data.txt")).build();
    List<Probe> planted = List.of(
        // A mounted file the probe wrongly believes is denied: the probe must notice it is readable.
        Probe.js("test.mounted-read-assumed-denied", Operation.FILE_READ, "/data.txt")
            .code("return 'reachable: ' + readText('/data.txt').length;").assuming(Verdict.DENIED),
        // The guest claims it was blocked, but the host saw the operation happen: the host wins.
        Probe.js("test.host-saw-it", Operation.FILE_READ, "/etc/shadow")
            .hostCheck(() -> "the host saw the file change").code("return 'blocked: says the guest';"),
        // The guest claims it was blocked, but no layer recorded the refusal: inconclusive, not a pass.
        Probe.js("test.no-denial-recorded", Operation.FILE_READ, "/etc/shadow").denial("/etc/shadow")
            .code("return 'blocked: says the guest';"));
    ProbeSuite.Settings settings = new ProbeSuite.Settings(policy, policy.report(), List.of(),
        Set.of(Language.JAVASCRIPT), 2, Map.of(), List.of());

    List<EscapeProbe.Result> results = new ProbeRunner(settings, planted).run();

    assertThat(results).filteredOn(r -> !r.ok()).extracting(r -> r.probe() + " " + r.observed())
        .containsExactlyInAnyOrder("test.mounted-read-assumed-denied REACHABLE", "test.host-saw-it REACHABLE",
            "test.no-denial-recorded INCONCLUSIVE");
    assertThat(result(results, "test.no-denial-recorded").evidence())
        .contains("no layer recorded a file.read denial of /etc/shadow");
    assertThat(result(results, "test.host-saw-it").evidence()).isEqualTo("host: the host saw the file change");
    assertThat(result(results, "js.mount.read:/data.txt").observed()).isEqualTo(EscapeProbe.Observed.REACHABLE);
    assertThat(result(results, "js.read.etc-passwd").evidence()).endsWith("[file.read denial recorded]");
    assertThat(results).allSatisfy(r -> assertThat(r.language()).isEqualTo(Language.JAVASCRIPT));
  }

  private static EscapeProbe.Result result(List<EscapeProbe.Result> results, String probe) {
    return results.stream().filter(r -> r.probe().equals(probe)).findFirst()
        .orElseThrow(() -> new AssertionError("no probe " + probe));
  }
}
