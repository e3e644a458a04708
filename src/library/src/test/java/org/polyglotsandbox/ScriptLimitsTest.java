package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Script#withLimits}: one run gets lower limits than the sandbox's policy, and only lower. The
 * sandbox keeps a warm context of each language, so a run with limits of its own must not take one (its
 * statement limit is the policy's) and the runs after it still do.
 */
class ScriptLimitsTest {
  private static final Limits POLICY_LIMITS = Limits.builder().maxStatements(1_000_000_000_000L)
      .wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60)).maxOutputBytes(1 << 20).build();
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON).limits(POLICY_LIMITS).build())
        .warmContexts(1)
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  /** Counts to 300,000 in a loop: well within the policy's statements, far beyond 20,000. */
  private static Script counting(Language language) {
    return Script.of(language, GuestCode.of(language,
        "let n = 0; for (let i = 0; i < 300000; i++) { n++; } n",
        "n = 0\nfor i in range(300000):\n    n += 1\nn"));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void lowerStatementLimit_stopsTheRunThatAsksForIt_andNoOther(Language language) {
    assertThatRun(sandbox.run(counting(language))).hasValue(300_000L);
    ExecutionResult r = sandbox.run(counting(language)
        .withLimits(POLICY_LIMITS.toBuilder().maxStatements(20_000).build()));
    assertThatRun(r).wasStoppedBy(Limit.STATEMENTS).leaksNoHostDetail();
    assertThat(r.usage().statements()).hasValue(20_000);
    assertThatRun(sandbox.run(counting(language))).as("the next run has the policy's limits again")
        .hasValue(300_000L);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aTinyStatementLimit_isTheProgramsOwn_notEatenByTheSandboxsSetUp(Language language) {
    // Before: the sandbox's own code in a fresh context (the Python process shield: 5,000-10,000
    // statements; readText and the event loop in JavaScript) counted, and any run with a limit that small
    // ended LIMIT_EXCEEDED before its first statement.
    Limits tiny = POLICY_LIMITS.toBuilder().maxStatements(10).build();
    assertThatRun(sandbox.run(Script.of(language, "6*7").withLimits(tiny))).hasValue(42L);
    ExecutionResult r = sandbox.run(Script.of(language, GuestCode.of(language,
        "let n = 0; for (let i = 0; i < 100; i++) { n++; } n", "n = 0\nfor i in range(100):\n    n += 1\nn"))
        .withLimits(tiny));
    assertThatRun(r).wasStoppedBy(Limit.STATEMENTS);
    assertThat(r.usage().statements()).hasValue(10);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void codeTheGuestCompilesItself_countsAgainstATinyLimit(Language language) {
    // Only internal sources go uncounted, and only the embedder can make one: code a guest makes at run
    // time (eval, Function, exec, compile, a callback handed to the sandbox's own code) still counts.
    Limits tiny = POLICY_LIMITS.toBuilder().maxStatements(10).build();
    List<String> programs = language == Language.JAVASCRIPT
        ? List.of("eval('let n = 0; for (let i = 0; i < 100; i++) { n++; } n')",
            "new Function('let n = 0; for (let i = 0; i < 100; i++) { n++; } return n')()",
            "new Promise(r => setTimeout(() => { let n = 0; for (let i = 0; i < 100; i++) { n++; } r(n); }, 0))")
        : List.of("exec(compile('n = 0\\nfor i in range(100):\\n    n += 1\\n', 'x', 'exec'))\nn",
            "ns = {}\nexec('def f():\\n    n = 0\\n    for i in range(100):\\n        n += 1\\n    return n', ns)\n"
                + "ns['f']()",
            "def key(i):\n    x = i\n    return x\nsorted(range(100), key=key)[0]");
    for (String code : programs) {
      ExecutionResult r = sandbox.run(Script.of(language, code).withLimits(tiny));
      assertThatRun(r).as(code).wasStoppedBy(Limit.STATEMENTS);
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void lowerWallTime_stopsAnEndlessLoop(Language language) {
    long start = System.nanoTime();
    ExecutionResult r = sandbox.run(Script.of(language, GuestCode.of(language, "for (;;) {}", "while True: pass"))
        .withLimits(POLICY_LIMITS.toBuilder().wallTime(Duration.ofMillis(800)).build()));
    assertThatRun(r).wasStoppedBy(Limit.WALL_TIME);
    // Far less than the policy's 60 s (10^12 statements take longer still): the run's own deadline.
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void lowerOutputCap_stopsAChattyRun(Language language) {
    ExecutionResult r = sandbox.run(Script.of(language, GuestCode.of(language,
            "for (let i = 0; i < 1000; i++) { console.log('x'.repeat(100)); }",
            "for i in range(1000):\n    print('x' * 100)"))
        .withLimits(POLICY_LIMITS.toBuilder().maxOutputBytes(1000).build()));
    assertThatRun(r).wasStoppedBy(Limit.OUTPUT);
  }

  @Test
  void aHigherLimit_isRefusedBeforeTheRun_namingItAndBothValues() {
    Script s = Script.of(Language.JAVASCRIPT, "1").withLimits(POLICY_LIMITS.toBuilder().maxStatements(1_000_000_000_001L).build());
    assertThatThrownBy(() -> sandbox.run(s)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a script's maxStatements (1000000000001) is above the policy's (1000000000000): a script can lower a"
            + " limit, never raise it");
    assertThatThrownBy(() -> sandbox.runAsync(Script.of(Language.PYTHON, "1")
        .withLimits(POLICY_LIMITS.toBuilder().wallTime(Duration.ofSeconds(61)).build())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wallTime (PT1M1S) is above the policy's (PT1M)");
    assertThatThrownBy(() -> sandbox.run(Script.of(Language.PYTHON, "1")
        .withLimits(POLICY_LIMITS.toBuilder().stackSize(POLICY_LIMITS.stackSize() / 2).build())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stackSize").hasMessageContaining("run threads");
    assertThatRun(sandbox.run(Language.JAVASCRIPT, "6*7")).as("the sandbox keeps serving").hasValue(42L);
  }

  @Test
  void runFiles_areCheckedAgainstTheRunsOwnFileLimit() {
    Script s = Script.of(Language.PYTHON, "open('/in/data.txt').read()").withFile("/in/data.txt", "x".repeat(2000));
    assertThatRun(sandbox.run(s)).hasValue("x".repeat(2000));
    assertThatThrownBy(() -> sandbox.run(s.withLimits(POLICY_LIMITS.toBuilder().maxFileBytes(1000).build())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2000 bytes").hasMessageContaining("maxFileBytes (1000)");
  }

  @Test
  void theScriptCarriesItsLimits() {
    Script s = Script.of(Language.JAVASCRIPT, "1");
    assertThat(s.limits()).isEmpty();
    Limits lower = POLICY_LIMITS.toBuilder().maxStatements(10).build();
    assertThat(s.withLimits(lower).limits()).contains(lower);
    assertThat(s.withLimits(lower).withLabel("x").withInputs(java.util.Map.of("a", 1)).limits())
        .as("kept by every with...").contains(lower);
  }
}
