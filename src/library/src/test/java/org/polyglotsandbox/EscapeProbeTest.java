package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The escape probe from Java, as a server calls it at start-up: it passes on a policy the sandbox
 * enforces, {@code requirePassed()} fails naming each probe that reached a denied operation, and bad
 * settings are refused before anything runs. The probes that run sandboxes use JavaScript only, to stay
 * quick.
 */
@Tag("slow")
class EscapeProbeTest {
  @TempDir
  Path dir;

  private static final PolicyReport.Entry DENIED_READ = Policy.computeOnly(Language.JAVASCRIPT).report()
      .entryFor(Operation.FILE_READ, "/etc/passwd").orElseThrow();
  private static final PolicyReport.Entry CLOCK = Policy.computeOnly(Language.JAVASCRIPT).report()
      .entryFor(Operation.CLOCK_READ, "<host clock>").orElseThrow();

  private static Tool echo() {
    return Tool.builder("echo").parameters("""
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}""")
        .handler(args -> Map.of("echo", args.get("text"))).build();
  }

  @Test
  void aPolicyTheSandboxEnforces_passes() throws IOException {
    Path data = Files.writeString(dir.resolve("prices.csv"), "sku,price\nA,1\n");
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
        .mount(Mount.readOnly(data, "/data/prices.csv")).mount(Mount.scratch("/scratch")).allowTools("echo").build();

    EscapeProbe.Report report = EscapeProbe.of(policy).tool(echo()).toolArguments("echo", Map.of("text", "hi"))
        .languages(Set.of(Language.JAVASCRIPT)).run();

    assertThat(report.failures()).isEmpty();
    assertThat(report.passed()).isTrue();
    assertThat(report.requirePassed()).isSameAs(report);
    assertThat(report.results()).hasSizeGreaterThan(50)
        .allSatisfy(r -> assertThat(r.language()).isEqualTo(Language.JAVASCRIPT));
    assertThat(report.rows()).extracting(EscapeProbe.Row::entry).containsExactlyElementsOf(policy.report().entries());
    assertThat(report.rows()).filteredOn(r -> r.entry().operation() == Operation.TOOL_CALL
            && r.entry().target().equals("echo"))
        .singleElement().satisfies(row -> {
          assertThat(row.intended()).isEqualTo(Verdict.ALLOWED);
          assertThat(row.observed()).isEqualTo("reachable");
          // With arguments its schema accepts, the handler ran and answered.
          assertThat(row.results()).singleElement()
              .satisfies(r -> assertThat(r.evidence()).isEqualTo("reachable: answered {\"echo\":\"hi\"}"));
        });
    // Python was left out: its own entries are not probed, and count for nothing.
    assertThat(report.rows()).filteredOn(r -> r.entry().target().equals(PolicyReport.PYTHON_HOME))
        .isNotEmpty().allSatisfy(row -> assertThat(row.observed()).isEqualTo("not probed"));
    assertThat(report.elapsed()).isPositive();
  }

  @Test
  @Tag("slow")
  void theDefaults_passInBothLanguages() {
    EscapeProbe.Report report = EscapeProbe.of(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON)).run()
        .requirePassed();

    assertThat(report.results()).extracting(EscapeProbe.Result::language).contains(Language.JAVASCRIPT,
        Language.PYTHON);
    // Only the file cap goes unprobed: without a writable mount no file can be created.
    assertThat(report.rows()).filteredOn(r -> r.results().isEmpty()).extracting(r -> r.entry().target())
        .containsExactly(Limit.FILES.id());
  }

  @Test
  void aSandboxLooserThanItsPolicy_failsRequirePassed_namingEachReachableDeniedOperation() throws IOException {
    // The sandbox shows a host file at /etc/passwd; the policy it is held to mounts nothing.
    Path secret = Files.writeString(dir.resolve("passwd"), "root:x:0:0:leaked\n");
    Policy actual = Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
        .mount(Mount.readOnly(secret, "/etc/passwd")).build();

    EscapeProbe.Report report = EscapeProbe.of(actual).heldTo(Policy.computeOnly(Language.JAVASCRIPT).report()).run();

    assertThat(report.passed()).isFalse();
    // Every route to the file reaches it: readText, traversal, load(), import() and the mount's own probe.
    assertThat(report.failures()).extracting(EscapeProbe.Result::probe).containsExactly("js.read.etc-passwd",
        "js.read.traversal", "js.load.etc-passwd", "js.import.etc-passwd", "js.mount.read:/etc/passwd");
    assertThat(report.failures()).allSatisfy(r -> {
      assertThat(r.intended()).isEqualTo(Verdict.DENIED);
      assertThat(r.observed()).isEqualTo(EscapeProbe.Observed.REACHABLE);
    });
    assertThat(report.rows()).filteredOn(r -> r.entry().equals(DENIED_READ)).singleElement()
        .satisfies(row -> assertThat(row.observed()).isEqualTo("mixed"));
    assertThatThrownBy(report::requirePassed).isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("escape probe failed: 5 of " + report.results().size() + " probes contradict")
        .hasMessageContaining("\n  js.read.etc-passwd (js): file.read /etc/passwd [entry file.read <any other path>]:"
            + " intended denied, observed reachable: reachable: read 18 characters: root:x:0:0:leaked\\u000a")
        .hasMessageContaining("\n  js.read.traversal (js): file.read /etc/passwd")
        .hasMessageContaining("\n  js.load.etc-passwd (js): file.read /etc/passwd")
        .hasMessageContaining("\n  js.import.etc-passwd (js): file.read /etc/passwd")
        .hasMessageContaining("\n  js.mount.read:/etc/passwd (js): file.read /etc/passwd");
  }

  @Test
  void requirePassed_listsOnlyTheFailures_oneLineEach() {
    EscapeProbe.Result blocked = result("js.read.a", DENIED_READ, EscapeProbe.Observed.BLOCKED, "blocked: EACCES");
    EscapeProbe.Result leaked = result("js.read.b", DENIED_READ, EscapeProbe.Observed.REACHABLE,
        "reachable: line one\nline two\u202e");
    EscapeProbe.Result unknown = result("js.clock", CLOCK, EscapeProbe.Observed.INCONCLUSIVE, "the run ended");
    EscapeProbe.Report report = EscapeProbe.Report.of(Policy.computeOnly(Language.JAVASCRIPT).report(),
        List.of(blocked, leaked, unknown), Duration.ofMillis(5));

    assertThat(report.failures()).containsExactly(leaked, unknown);
    assertThatThrownBy(report::requirePassed).isInstanceOf(IllegalStateException.class).hasMessage("""
        escape probe failed: 2 of 3 probes contradict the policy or were inconclusive:
          js.read.b (js): file.read /etc/passwd [entry file.read <any other path>]: intended denied, observed \
        reachable: reachable: line one\\u000aline two\\u202e
          js.clock (js): clock.read <host clock> [entry clock.read <host clock>]: intended allowed, observed \
        inconclusive: the run ended""");
  }

  @Test
  void aReportWhoseProbesAllAgree_passes_andRowsSayWhatWasObserved() {
    EscapeProbe.Result blocked = result("js.read.a", DENIED_READ, EscapeProbe.Observed.BLOCKED, "blocked: EACCES");
    EscapeProbe.Result clock = result("js.clock", CLOCK, EscapeProbe.Observed.REACHABLE, "reachable: 1 ms");
    EscapeProbe.Report report = EscapeProbe.Report.of(Policy.computeOnly(Language.JAVASCRIPT).report(),
        List.of(blocked, clock), Duration.ofMillis(5));

    assertThat(report.requirePassed()).isSameAs(report);
    assertThat(report.rows()).filteredOn(r -> r.entry().equals(DENIED_READ)).singleElement()
        .satisfies(r -> assertThat(r.observed()).isEqualTo("blocked"));
    assertThat(report.rows()).filteredOn(r -> r.entry().equals(CLOCK)).singleElement()
        .satisfies(r -> assertThat(r.observed()).isEqualTo("reachable"));
    assertThat(report.rows()).filteredOn(r -> r.results().isEmpty()).isNotEmpty()
        .allSatisfy(r -> assertThat(r.observed()).isEqualTo("not probed"));
  }

  @Test
  void aResultIsOk_onlyWhenAllowedIsReachable_orDeniedIsBlocked() {
    for (EscapeProbe.Observed observed : EscapeProbe.Observed.values()) {
      assertThat(result("p", CLOCK, observed, "").ok()).as("allowed, " + observed)
          .isEqualTo(observed == EscapeProbe.Observed.REACHABLE);
      assertThat(result("p", DENIED_READ, observed, "").ok()).as("denied, " + observed)
          .isEqualTo(observed == EscapeProbe.Observed.BLOCKED);
    }
  }

  private static EscapeProbe.Result result(String probe, PolicyReport.Entry entry, EscapeProbe.Observed observed,
      String evidence) {
    String target = entry.operation() == Operation.FILE_READ ? "/etc/passwd" : entry.target();
    return new EscapeProbe.Result(probe, Language.JAVASCRIPT, entry.operation(), target, entry, entry.verdict(),
        observed, evidence);
  }

  @Test
  void badSettings_areRefused_namingTheValue() {
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT).allowTools("echo").build();

    assertThatThrownBy(() -> EscapeProbe.of(policy).parallelism(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("parallelism (0) must be between 1 and 64");
    assertThatThrownBy(() -> EscapeProbe.of(policy).languages(Set.of(Language.PYTHON)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the policy does not allow language 'python' (allowed: [js])");
    assertThatThrownBy(() -> EscapeProbe.of(policy).languages(Set.of())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("languages must not be empty");
    assertThatThrownBy(() -> EscapeProbe.of(policy).tool(echo()).tool(echo()))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("tool 'echo' is registered twice");
    assertThatThrownBy(() -> EscapeProbe.of(policy).toolArguments("kv.get", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the policy does not allow tool 'kv.get' (allowed: [echo])");
    assertThatThrownBy(() -> EscapeProbe.of(policy).refusedToolNames(List.of("not a name")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tool name 'not a name'");
    // Checked before any sandbox starts.
    assertThatThrownBy(() -> EscapeProbe.of(policy).run()).isInstanceOf(IllegalStateException.class)
        .hasMessage("policy allows tool 'echo' but no tool of that name was registered (registered: [])");
  }
}
