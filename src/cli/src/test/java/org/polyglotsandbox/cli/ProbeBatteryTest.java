package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolicyReport;

/**
 * The live audit's battery, planned but not run: enough probes in both languages, each naming an
 * operation of the catalogue, and every operation of the escape surface attacked by at least one.
 */
class ProbeBatteryTest {
  @TempDir
  Path dir;

  private static List<Probe> plan(PolicyCommand.Loaded loaded) {
    try (AuditSetup setup = AuditSetup.create(loaded.policy())) {
      return ProbeBattery.standard(loaded.policy(), loaded.tools(), setup);
    }
  }

  /** The catalogue entries no probe tests. */
  private static Set<String> unprobed(PolicyCommand.Loaded loaded, List<Probe> probes) {
    PolicyReport report = loaded.policy().report();
    Set<PolicyReport.Entry> probed = probes.stream()
        .map(p -> report.entryFor(p.operation(), p.target()).orElseThrow(
            () -> new AssertionError(p.id() + ": no entry for " + p.operation().id() + " " + p.target())))
        .collect(Collectors.toSet());
    return report.entries().stream().filter(e -> !probed.contains(e))
        .map(e -> e.operation().id() + " " + e.target()).collect(Collectors.toSet());
  }

  @Test
  void defaultPolicy_hasOverAHundredProbes_coveringTheWholeEscapeSurface() {
    PolicyCommand.Loaded loaded = PolicyCommand.Loaded.of(null);
    List<Probe> probes = plan(loaded);

    assertThat(probes).hasSizeGreaterThanOrEqualTo(100);
    assertThat(probes.stream().filter(p -> p.language() == Language.JAVASCRIPT)).hasSizeGreaterThanOrEqualTo(40);
    assertThat(probes.stream().filter(p -> p.language() == Language.PYTHON)).hasSizeGreaterThanOrEqualTo(60);
    assertThat(probes).extracting(Probe::id).doesNotHaveDuplicates();
    assertThat(probes).allSatisfy(p -> assertThat(p.id()).startsWith(p.language() == Language.JAVASCRIPT ? "js." : "py."));
    // Without a writable mount no file can be created, so the file cap cannot be approached.
    assertThat(unprobed(loaded, probes)).containsExactly("limit.exceed files");
  }

  @Test
  void samplePolicy_probesEveryMountToolAndLimit() {
    PolicyCommand.Loaded loaded = PolicyCommand.Loaded.of("guest-samples/policy.json");
    List<Probe> probes = plan(loaded);

    assertThat(probes).hasSizeGreaterThanOrEqualTo(140);
    // The sample's only host mount is read-only: nothing can be written through to the host to begin with.
    assertThat(unprobed(loaded, probes)).containsExactly("file.write " + PolicyReport.HOST_SIDE_OF_MOUNTS);
    assertThat(probes).filteredOn(p -> p.operation() == Operation.TOOL_CALL && p.toolEvent() != null)
        .extracting(Probe::target).containsOnly("clock", "kv.get", "kv.put", "lookup");
  }

  @Test
  void readWriteMount_isProbedForWritesReachingTheHost() throws IOException {
    Path file = Files.writeString(dir.resolve("app.conf"), "x=1\n");
    Policy policy = Policy.builder().allowLanguages(Language.PYTHON).mount(Mount.readWrite(file, "/etc/app.conf"))
        .build();
    PolicyCommand.Loaded loaded = new PolicyCommand.Loaded("test", policy, false, List.of());
    List<Probe> probes = plan(loaded);

    assertThat(probes).extracting(Probe::id).contains("py.mount.read:/etc/app.conf", "py.mount.write:/etc/app.conf",
        "py.mount.host-side:/etc/app.conf", "py.mount.delete-mount-point:/etc/app.conf");
    assertThat(probes).filteredOn(p -> p.id().equals("py.mount.host-side:/etc/app.conf")).singleElement()
        .satisfies(p -> assertThat(p.hostCheck()).as("the host decides").isNotNull());
    assertThat(unprobed(loaded, probes)).containsExactly("limit.exceed files");
  }
}
