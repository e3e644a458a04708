package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.Verdict.ALLOWED;
import static org.polyglotsandbox.Verdict.DENIED;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.polyglotsandbox.PolicyReport.Entry;

/** The escape-surface report: the catalogue, each entry's verdict and layers, and the lookup of attempts. */
class PolicyReportTest {
  @TempDir
  static Path host;

  private static Path dataDir() throws IOException {
    Path dir = host.resolve("data");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("sales.csv"), "a,b\n1,2\n");
    return dir;
  }

  private static Entry entry(PolicyReport report, Operation op, String target) {
    return report.entries().stream().filter(e -> e.operation() == op && e.target().equals(target)).findFirst()
        .orElseThrow(() -> new AssertionError("no entry " + op.id() + " " + target + " in " + report.entries()));
  }

  @Test
  void computeOnly_allowsOnlyListingTheEmptyRootTheClockAndOutput() {
    PolicyReport r = Policy.computeOnly(Language.JAVASCRIPT).report();

    assertThat(r.allowed()).extracting(e -> e.operation().id() + " " + e.target()).containsExactly(
        "file.list /", "clock.read <host clock>", "output.write stdout, stderr");
    assertThat(r.escapeSurface()).extracting(Entry::verdict).containsOnly(DENIED);
    assertThat(r.escapeSurface()).allSatisfy(e -> assertThat(e.layers()).as(e.toString()).isNotEmpty());
  }

  @Test
  void escapeSurface_isTheCatalogueMinusTheAllowlist() throws IOException {
    PolicyReport r = Policy.builder().allowLanguages(Language.PYTHON, Language.JAVASCRIPT)
        .mount(Mount.readOnly(dataDir(), "/data")).mount(Mount.scratch("/scratch"))
        .allowTools("kv.get").build().report();

    assertThat(r.allowed()).doesNotContainAnyElementsOf(r.escapeSurface());
    assertThat(r.allowed().size() + r.escapeSurface().size()).isEqualTo(r.entries().size());
    assertThat(r.entries()).extracting(e -> e.operation().id() + " " + e.target()).doesNotHaveDuplicates();
    assertThat(r.entries()).extracting(Entry::operation).as("every operation class is in the catalogue")
        .containsAll(Arrays.asList(Operation.values()));
  }

  @Test
  void mounts_allowExactlyTheirDeclaredOperations() throws IOException {
    Path file = Files.writeString(host.resolve("app.conf"), "x=1\n");
    PolicyReport r = Policy.builder().allowLanguages(Language.PYTHON)
        .mount(Mount.readOnly(dataDir(), "/data"))
        .mount(Mount.scratch("/scratch"))
        .mount(Mount.readWrite(file, "/etc/app.conf"))
        .build().report();

    assertThat(verdicts(r, "/data")).isEqualTo("file.read=ALLOWED file.write=DENIED file.create=DENIED"
        + " file.delete=DENIED file.list=ALLOWED");
    assertThat(verdicts(r, "/scratch")).isEqualTo("file.read=ALLOWED file.write=ALLOWED file.create=ALLOWED"
        + " file.delete=ALLOWED file.list=ALLOWED");
    assertThat(verdicts(r, "/etc/app.conf")).as("nothing to list or create in a file; its mount point stays")
        .isEqualTo("file.read=ALLOWED file.write=ALLOWED file.delete=DENIED");
    assertThat(entry(r, Operation.FILE_WRITE, "/data").note()).contains("read-only");
    assertThat(entry(r, Operation.FILE_READ, "/data").note()).contains("a copy of " + host.resolve("data"));
    assertThat(entry(r, Operation.FILE_LIST, "/").verdict()).isEqualTo(ALLOWED);
    assertThat(entry(r, Operation.FILE_LIST, "/etc").note()).contains("only the mounted entries");
    assertThat(entry(r, Operation.FILE_WRITE, PolicyReport.HOST_SIDE_OF_MOUNTS).verdict()).isEqualTo(DENIED);
    assertThat(r.entries()).filteredOn(e -> e.operation().id().startsWith("file."))
        .allSatisfy(e -> assertThat(e.layers()).containsExactly(Layer.VIRTUAL_FILE_SYSTEM));
  }

  private static String verdicts(PolicyReport r, String target) {
    return r.entries().stream().filter(e -> e.target().equals(target))
        .map(e -> e.operation().id() + "=" + e.verdict()).collect(Collectors.joining(" "));
  }

  @Test
  void deniedEntries_nameTheLayersThatEnforceThem() {
    PolicyReport r = Policy.computeOnly(Language.PYTHON).report();

    // Settings GraalVM's CONSTRAINED policy refuses to build with are denied by both; the rest by one.
    assertThat(entry(r, Operation.NETWORK_SOCKET, "connect").layers())
        .containsExactly(Layer.CONTEXT_PERMISSIONS, Layer.GRAALVM_CONSTRAINED);
    assertThat(entry(r, Operation.PROCESS_SPAWN, "<any program>").layers())
        .containsExactly(Layer.CONTEXT_PERMISSIONS, Layer.GRAALVM_CONSTRAINED);
    assertThat(entry(r, Operation.THREAD_CREATE, "<any thread>").layers()).containsExactly(Layer.CONTEXT_PERMISSIONS);
    assertThat(entry(r, Operation.HOST_ACCESS, "class lookup").layers()).containsExactly(Layer.CONTEXT_PERMISSIONS);
    assertThat(entry(r, Operation.POLYGLOT_EVAL, "<other language>").layers()).containsExactly(Layer.CONTEXT_PERMISSIONS);
    assertThat(entry(r, Operation.FILE_READ, PolicyReport.ANY_OTHER_PATH).layers())
        .containsExactly(Layer.VIRTUAL_FILE_SYSTEM);
    assertThat(entry(r, Operation.FILE_WRITE, PolicyReport.PYTHON_HOME).layers())
        .containsExactly(Layer.VIRTUAL_FILE_SYSTEM);
    assertThat(entry(r, Operation.STATE_PERSIST, "<next run>").layers()).containsExactly(Layer.RUN_ISOLATION);
    assertThat(entry(r, Operation.LIMIT_EXCEED, "wall_time").layers()).containsExactly(Layer.WATCHDOG);
    assertThat(entry(r, Operation.LIMIT_EXCEED, "statements").layers()).containsExactly(Layer.STATEMENT_LIMIT);
    assertThat(entry(r, Operation.TOOL_CALL, PolicyReport.ANY_OTHER_TOOL).layers()).containsExactly(Layer.TOOL_GATEWAY);
  }

  @Test
  void pythonOnlyEntries_appearOnlyWithPython() {
    PolicyReport js = Policy.computeOnly(Language.JAVASCRIPT).report();
    PolicyReport py = Policy.computeOnly(Language.PYTHON).report();

    assertThat(js.entries()).noneMatch(e -> e.target().equals(PolicyReport.PYTHON_HOME)
        || e.target().equals("<interpreter paths>"));
    assertThat(entry(py, Operation.FILE_READ, PolicyReport.PYTHON_HOME).verdict()).isEqualTo(ALLOWED);
    assertThat(entry(py, Operation.HOST_INFO, "<interpreter paths>").verdict())
        .as("the interpreter's home is virtual: its host path is denied").isNotEqualTo(ALLOWED);
    assertThat(entry(py, Operation.HOST_INFO, "<interpreter paths>").note()).contains(Policy.PYTHON_HOME_PATH);
    assertThat(entry(py, Operation.HOST_INFO, "<user, process, kernel, host name, CPUs>").layers())
        .containsExactly(Layer.PROCESS_SHIELD);
    assertThat(entry(py, Operation.PROCESS_STATE, "signal handlers").layers()).containsExactly(Layer.PROCESS_SHIELD);
    assertThat(entry(js, Operation.PROCESS_STATE, "signal handlers").layers())
        .containsExactly(Layer.CONTEXT_PERMISSIONS);
  }

  @Test
  void toolsAndLimits_areListedWithTheirValues() {
    PolicyReport r = Policy.computeOnly(Language.JAVASCRIPT).toBuilder().allowTools("kv.get", "clock")
        .limits(Limits.builder().wallTime(Duration.ofMillis(1500)).maxOutputBytes(64 << 10).build())
        .build().report();

    assertThat(r.allowed()).filteredOn(e -> e.operation() == Operation.TOOL_CALL)
        .extracting(Entry::target).containsExactly("kv.get", "clock");
    assertThat(entry(r, Operation.LIMIT_EXCEED, "wall_time").note()).isEqualTo("longer than 1500 ms");
    assertThat(entry(r, Operation.OUTPUT_WRITE, "stdout, stderr").note()).contains("64 KiB");
    assertThat(entry(r, Operation.LIMIT_EXCEED, "tool_calls").verdict()).isEqualTo(DENIED);
    assertThat(Policy.computeOnly(Language.JAVASCRIPT).report().entries())
        .noneMatch(e -> e.target().equals("tool_calls"));
  }

  @Test
  void entryFor_findsTheEntryGoverningAConcreteAttempt() throws IOException {
    PolicyReport r = Policy.builder().allowLanguages(Language.PYTHON)
        .mount(Mount.readOnly(dataDir(), "/data")).mount(Mount.scratch("/scratch"))
        .workingDirectory("/scratch").allowTools("kv.get").build().report();

    assertThat(r.entryFor(Operation.FILE_READ, "/data/sales.csv").orElseThrow().target()).isEqualTo("/data");
    assertThat(r.entryFor(Operation.FILE_READ, "/data/sub/../sales.csv").orElseThrow().target()).isEqualTo("/data");
    assertThat(r.entryFor(Operation.FILE_READ, "/data/../etc/passwd").orElseThrow().target())
        .isEqualTo(PolicyReport.ANY_OTHER_PATH);
    assertThat(r.entryFor(Operation.FILE_READ, "/database/x").orElseThrow().target())
        .as("a sibling that shares the mount's name as a prefix").isEqualTo(PolicyReport.ANY_OTHER_PATH);
    assertThat(r.entryFor(Operation.FILE_CREATE, "out.txt").orElseThrow())
        .as("relative to the working directory")
        .extracting(Entry::target, Entry::verdict).containsExactly("/scratch", ALLOWED);
    assertThat(r.entryFor(Operation.FILE_WRITE, "/data/sales.csv").orElseThrow().verdict()).isEqualTo(DENIED);
    assertThat(r.entryFor(Operation.FILE_LIST, "/").orElseThrow().verdict()).isEqualTo(ALLOWED);
    assertThat(r.entryFor(Operation.FILE_LINK, "/scratch/l").orElseThrow().target()).isEqualTo(PolicyReport.ANY_PATH);
    assertThat(r.entryFor(Operation.TOOL_CALL, "kv.get").orElseThrow().verdict()).isEqualTo(ALLOWED);
    assertThat(r.entryFor(Operation.TOOL_CALL, "kv.put").orElseThrow().target()).isEqualTo(PolicyReport.ANY_OTHER_TOOL);
    assertThat(r.entryFor(Operation.LIMIT_EXCEED, "memory").orElseThrow().layers()).containsExactly(Layer.WATCHDOG);
    assertThat(r.entryFor(Operation.THREAD_CREATE, "anything").orElseThrow().verdict()).isEqualTo(DENIED);
    assertThat(r.entryFor(Operation.NETWORK_SOCKET, "anything")).as("three entries; the target must say which")
        .isEmpty();
  }

  @Test
  void aDenialWithoutALayer_isRejected() {
    assertThatThrownBy(() -> new Entry(Operation.FILE_READ, "/x", DENIED, List.of(), "note"))
        .hasMessageContaining("file.read /x: a denial needs an enforcing layer");
  }

  /** What the sandbox records when it refuses an attempt is what the report says enforces it. */
  @ParameterizedTest
  @EnumSource(Language.class)
  void recordedDenials_areDeniedByTheLayersTheReportNames(Language language) throws IOException {
    Policy policy = Policy.builder().allowLanguages(language).mount(Mount.readOnly(dataDir(), "/data"))
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).build()).build();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).build()) {
      List<ExecutionResult> runs = language == Language.JAVASCRIPT
          ? List.of(sandbox.run(language, GuestCode.jsAttempts("readText('/etc/passwd')", "readText('/proc/self/environ')")))
          : List.of(
              sandbox.run(language, "import os\n" + GuestCode.pythonAttempts("OSError",
                  "open('/etc/passwd').read()", "open('/data/sales.csv', 'a')", "os.listdir('/etc')",
                  "os.symlink('/etc/passwd', '/data/l')")),
              sandbox.run(language, "import os\nos.system('true')"));
      List<SandboxEvent.DeniedOperation> denied = runs.stream().flatMap(r -> r.deniedOperations().stream()).toList();
      assertThat(denied).extracting(SandboxEvent.DeniedOperation::operation).containsAll(language == Language.PYTHON
          ? Set.of(Operation.FILE_READ, Operation.FILE_WRITE, Operation.FILE_LIST, Operation.FILE_LINK,
              Operation.PROCESS_SPAWN)
          : Set.of(Operation.FILE_READ));
      for (SandboxEvent.DeniedOperation d : denied) {
        Entry e = policy.report().entryFor(d.operation(), d.target()).orElseThrow(() -> new AssertionError(d.toString()));
        assertThat(e.verdict()).as("%s governed by %s", d, e).isEqualTo(DENIED);
        assertThat(e.layers()).as("%s governed by %s", d, e).contains(d.layer());
      }
    }
  }
}
