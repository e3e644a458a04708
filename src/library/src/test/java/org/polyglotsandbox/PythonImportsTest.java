package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code Builder.pythonImports}: standard-library modules imported into each Python context before its
 * run. The module is there before the guest's first statement, in a pooled context and in one a run
 * makes itself; each run still starts from fresh module state, so what one run plants in a pre-imported
 * module is gone in the next; a name that cannot be imported fails the build, naming it.
 */
class PythonImportsTest {
  private static final Limits POLICY_LIMITS = Limits.builder().wallTime(Duration.ofSeconds(60)).build();
  /** Lower than the policy's, so the run cannot take a pooled context and makes its own. */
  private static final Limits OWN_CONTEXT = POLICY_LIMITS.toBuilder().maxOutputBytes(1 << 16).build();
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    Policy policy = Policy.builder().allowLanguages(Language.PYTHON).limits(POLICY_LIMITS).build();
    sandbox = PolyglotSandbox.builder().policy(policy).warmContexts(1)
        .pythonImports("json", "collections.abc", "this")
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static final String LOADED = "import sys\n['json' in sys.modules, 'collections.abc' in sys.modules,"
      + " 'fractions' in sys.modules]";

  @Test
  void theModulesAreLoadedBeforeTheFirstStatement_inAPooledContextAndInARunsOwn() throws InterruptedException {
    awaitWarm();
    assertThat(sandbox.warmContexts(Language.PYTHON)).as("a pooled context is ready").isEqualTo(1);
    ExecutionResult pooled = sandbox.run(Language.PYTHON, LOADED);
    ExecutionResult own = sandbox.run(Script.of(Language.PYTHON, LOADED).withLimits(OWN_CONTEXT));
    assertThatRun(pooled).as("pooled").hasValue(List.of(true, true, false));
    assertThatRun(own).as("its own context").hasValue(List.of(true, true, false));
    // 'this' prints the Zen of Python when imported: the sandbox's set-up, not the run's output.
    assertThat(pooled.stdout() + own.stdout()).isEmpty();
    assertThat(pooled.usage().outputBytes() + own.usage().outputBytes()).isZero();
    assertThatRun(sandbox.run(Language.PYTHON, "import this\nimport sys\n'this' in sys.modules"))
        .as("the guest's own import finds it loaded").hasValue(true);
  }

  @Test
  void whatOneRunPlantsInAnImportedModule_isGoneInTheNext() throws InterruptedException {
    String plant = """
        import json
        json.planted = 'planted'
        json.dumps = lambda *a, **k: 'poisoned'
        import collections.abc
        collections.abc.Mapping.planted = 'planted'
        [json.dumps({}), json.planted, collections.abc.Mapping.planted]
        """;
    String look = """
        import json, collections.abc
        [hasattr(json, 'planted'), json.dumps({'a': 1}), hasattr(collections.abc.Mapping, 'planted')]
        """;
    for (Limits limits : List.of(POLICY_LIMITS, OWN_CONTEXT)) {
      awaitWarm();
      assertThatRun(sandbox.run(Script.of(Language.PYTHON, plant).withLimits(limits)))
          .as("the plant takes in its own run").hasValue(List.of("poisoned", "planted", "planted"));
      awaitWarm();
      assertThatRun(sandbox.run(Script.of(Language.PYTHON, look).withLimits(limits))).as("the next run, " + limits)
          .hasValue(List.of(false, "{\"a\": 1}", false));
    }
  }

  @Test
  void aRunWhoseStatementLimitTheImportsAloneExceed_endsBeforeItsFirstStatement_sayingWhy() {
    ExecutionResult tight = sandbox.run(Script.of(Language.PYTHON, "6*7")
        .withLimits(OWN_CONTEXT.toBuilder().maxStatements(50).build()));
    assertThatRun(tight).wasStoppedBy(Limit.STATEMENTS);
    assertThat(tight.errorMessage()).hasValueSatisfying(m -> assertThat(m)
        .contains("more than 50 statements", "while importing the sandbox's pythonImports",
            "before the program's first statement"));
    assertThat(tight.usage().wallTime()).as("the program never started").isZero();
    assertThatRun(sandbox.run(Script.of(Language.PYTHON, "6*7").withLimits(OWN_CONTEXT))).hasValue(42L);
  }

  @Test
  void aModuleThatCannotBeImported_failsTheBuild_namingIt() {
    Policy policy = Policy.builder().allowLanguages(Language.PYTHON).limits(POLICY_LIMITS).build();
    assertThatThrownBy(() -> PolyglotSandbox.builder().policy(policy).pythonImports("json", "no_such_module_here")
        .build().close())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("pythonImports")
        .hasMessageContaining("no_such_module_here");
    assertThatRun(sandbox.run(Language.PYTHON, "import json\njson.dumps([1])")).as("other sandboxes keep serving")
        .hasValue("[1]");
  }

  @Test
  void aModuleThatCannotBeImported_inABackgroundStart_failsEveryRunNamingIt() {
    Policy policy = Policy.builder().allowLanguages(Language.PYTHON).limits(POLICY_LIMITS).build();
    try (PolyglotSandbox s = PolyglotSandbox.builder().policy(policy).warmContexts(1)
        .pythonImports("no_such_module_either").startInBackground().build()) {
      assertThatThrownBy(() -> s.run(Language.PYTHON, "6*7")).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no_such_module_either");
      assertThat(s.started().toCompletableFuture()).isCompletedExceptionally();
      assertThatThrownBy(() -> s.runAsync(Language.PYTHON, "6*7").join())
          .hasRootCauseInstanceOf(IllegalStateException.class).rootCause()
          .hasMessageContaining("no_such_module_either");
      assertThat(s.warmContexts(Language.PYTHON)).as("no pool was made").isZero();
    }
  }

  @Test
  void badNames_andCombinations_areRefusedByTheBuilder_namingTheValue() {
    for (String bad : List.of("json; import os", "", "a..b", "1abc", "json ", "os.path.", "__import__('os')")) {
      assertThatThrownBy(() -> PolyglotSandbox.builder().pythonImports("json", bad), bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + bad.strip())
          .hasMessageContaining("not a Python module name");
    }
    assertThatThrownBy(() -> PolyglotSandbox.builder().pythonImports("json", null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
    assertThatThrownBy(() -> PolyglotSandbox.builder().pythonImports("json", "re", "json"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'json' is named twice");
    String[] many = IntStream.range(0, 33).mapToObj(i -> "m" + i).toArray(String[]::new);
    assertThatThrownBy(() -> PolyglotSandbox.builder().pythonImports(many))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("33 modules");
    Policy jsOnly = Policy.builder().allowLanguages(Language.JAVASCRIPT).build();
    assertThatThrownBy(() -> PolyglotSandbox.builder().policy(jsOnly).pythonImports("json").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("[json]")
        .hasMessageContaining("allows Python");
    Policy python = Policy.builder().allowLanguages(Language.PYTHON).build();
    assertThatThrownBy(() -> PolyglotSandbox.builder().policy(python).singleRun().pythonImports("json").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("singleRun()")
        .hasMessageContaining("[json]");
  }

  /** The pool's replacement for the last run's context is made after that run; waits until it is there. */
  private static void awaitWarm() throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (sandbox.warmContexts(Language.PYTHON) < 1 && System.nanoTime() < end) {
      Thread.sleep(20);
    }
  }
}
