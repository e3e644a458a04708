package org.polyglotsandbox.internal.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolicyReport;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.internal.spi.ProbeSuite;

/**
 * The escape probe's battery, planned but not run: enough probes in both languages, each naming an
 * operation of the catalogue, and every operation of the escape surface attacked by at least one.
 */
class ProbeBatteryTest {
  @TempDir
  Path dir;

  private static List<Probe> plan(Policy policy, List<Tool> tools, List<String> refused) {
    ProbeRunner runner = new ProbeRunner(new ProbeSuite.Settings(policy, policy.report(), tools, policy.languages(),
        2, Map.of(), refused), List.of());
    try (ProbeFixtures fixtures = ProbeFixtures.create(policy)) {
      return runner.battery(fixtures).plan(policy.languages());
    }
  }

  private static List<Probe> plan(Policy policy) {
    return plan(policy, List.of(), List.of());
  }

  private static Tool tool(String name) {
    return Tool.builder(name).handler(args -> null).build();
  }

  /** The catalogue entries no probe tests. */
  private static Set<String> unprobed(Policy policy, List<Probe> probes) {
    PolicyReport report = policy.report();
    Set<PolicyReport.Entry> probed = probes.stream()
        .map(p -> report.entryFor(p.operation(), p.target()).orElseThrow(
            () -> new AssertionError(p.id() + ": no entry for " + p.operation().id() + " " + p.target())))
        .collect(Collectors.toSet());
    return report.entries().stream().filter(e -> !probed.contains(e))
        .map(e -> e.operation().id() + " " + e.target()).collect(Collectors.toSet());
  }

  @Test
  void defaultPolicy_hasOverAHundredProbes_coveringTheWholeEscapeSurface() {
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON);
    List<Probe> probes = plan(policy);

    assertThat(probes).hasSizeGreaterThanOrEqualTo(100);
    assertThat(probes.stream().filter(p -> p.language() == Language.JAVASCRIPT)).hasSizeGreaterThanOrEqualTo(40);
    assertThat(probes.stream().filter(p -> p.language() == Language.PYTHON)).hasSizeGreaterThanOrEqualTo(60);
    assertThat(probes).extracting(Probe::id).doesNotHaveDuplicates();
    assertThat(probes).allSatisfy(p -> assertThat(p.id()).startsWith(p.language() == Language.JAVASCRIPT ? "js." : "py."));
    // Without a writable mount no file can be created, so the file cap cannot be approached.
    assertThat(unprobed(policy, probes)).containsExactly("limit.exceed files");
  }

  @Test
  void mountsAndTools_areEachProbed_andEveryLimitToo() throws IOException {
    Path data = Files.createDirectory(dir.resolve("data"));
    Files.writeString(data.resolve("sales.csv"), "region,amount\n");
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
        .mount(Mount.readOnly(data, "/data")).mount(Mount.scratch("/scratch")).workingDirectory("/scratch")
        .allowTools("clock", "kv.get").build();
    List<Probe> probes = plan(policy, List.of(tool("clock"), tool("kv.get")), List.of());

    assertThat(probes).hasSizeGreaterThanOrEqualTo(140);
    assertThat(probes).extracting(Probe::id).contains("js.mount.read:/data/sales.csv", "py.mount.write:/data/sales.csv",
        "py.mount.create:/scratch", "py.bomb.files", "js.bomb.tool-calls", "py.state.file");
    // The only host mount is read-only: nothing can be written through to the host to begin with.
    assertThat(unprobed(policy, probes)).containsExactly("file.write " + PolicyReport.HOST_SIDE_OF_MOUNTS);
    assertThat(probes).filteredOn(p -> p.operation() == Operation.TOOL_CALL && p.toolEvent() != null)
        .extracting(Probe::target).containsOnly("clock", "kv.get");
  }

  @Test
  void readWriteMount_isProbedForWritesReachingTheHost() throws IOException {
    Path file = Files.writeString(dir.resolve("app.conf"), "x=1\n");
    Policy policy = Policy.builder().allowLanguages(Language.PYTHON).mount(Mount.readWrite(file, "/etc/app.conf"))
        .build();
    List<Probe> probes = plan(policy);

    assertThat(probes).extracting(Probe::id).contains("py.mount.read:/etc/app.conf", "py.mount.write:/etc/app.conf",
        "py.mount.host-side:/etc/app.conf", "py.mount.delete-mount-point:/etc/app.conf");
    assertThat(probes).filteredOn(p -> p.id().equals("py.mount.host-side:/etc/app.conf")).singleElement()
        .satisfies(p -> assertThat(p.hostCheck()).as("the host decides").isNotNull());
    assertThat(unprobed(policy, probes)).containsExactly("limit.exceed files");
  }

  @Test
  void refusedNames_areAnUndeclaredName_theRegisteredToolsThePolicyDoesNotAllow_andTheNamesGiven() {
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT).allowTools("clock").build();
    List<Probe> probes = plan(policy, List.of(tool("clock"), tool("admin.reset")), List.of("billing.charge", "clock"));

    assertThat(probes).filteredOn(p -> p.id().startsWith("js.tool.refused:")).extracting(Probe::target)
        .containsExactly(ProbeRunner.UNDECLARED_TOOL, "admin.reset", "billing.charge");
    // With a tools object, the gateway records each refusal; a blocked answer needs that record.
    assertThat(probes).filteredOn(p -> p.id().startsWith("js.tool.refused:"))
        .allSatisfy(p -> assertThat(p.denial()).isEqualTo(Operation.TOOL_CALL));
    assertThat(probes).filteredOn(p -> p.id().startsWith("js.tool.call:")).extracting(Probe::target)
        .containsExactly("clock");
  }

  @Test
  void guestCode_isTheFamiliesConstants_withTheirArgumentsFilledIn() {
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON).allowTools("clock").build();
    Tool clock = Tool.builder("clock").handler(args -> null).maxCallsPerRun(7).build();
    List<Probe> probes = plan(policy, List.of(clock), List.of());

    assertThat(probe(probes, "js.read.etc-passwd").code()).isEqualTo(FileProbes.JS_READ_ETC_PASSWD);
    assertThat(probe(probes, "py.reflect.frames").code())
        .isEqualTo(HostAccessProbes.PY_REFLECT_FRAMES.strip()).startsWith("def java_member(v):");
    assertThat(probe(probes, "py.tool.call:clock").code()).isEqualTo(ToolProbes.PY_TOOL_CALL.formatted("'clock'"));
    assertThat(probe(probes, "js.bomb.tool-calls").code())
        .isEqualTo(BombProbes.JS_BOMB_TOOL_CALLS.formatted("'clock'", 7)).contains("i <= 7;");
    assertThat(probe(probes, "py.bomb.tool-calls").code()).contains("range(8)");
    assertThat(probe(probes, "js.state.global").plant()).isEqualTo(StateProbes.JS_STATE_GLOBAL_PLANT);
  }

  private static Probe probe(List<Probe> probes, String id) {
    return probes.stream().filter(p -> p.id().equals(id)).findFirst().orElseThrow(() -> new AssertionError(id));
  }

  @Test
  void quote_makesOneSingleQuotedLiteral_forBothLanguages() {
    assertThat(ProbeBattery.quote("it's a\\path\n\u00e9")).isEqualTo("'it\\'s a\\\\path\\n\\u00e9'");
  }
}
