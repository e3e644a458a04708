package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Builder.pythonPath} with {@code pythonImports}: a pure-Python package from a read-only mount,
 * imported while a pooled context waits. Attacked from the guest (a run plants code or state in the
 * package, shadows it from a writable directory earlier on the path) and from the host (the package
 * changes after the context was pooled): each run starts from the package as its host files are when
 * the run starts, freshly imported.
 */
class PythonPathTest {
  /** The package records when its import ran (host clock, ms) so a test can tell a pooled context from a new one. */
  private static final String PACKAGE = """
      import time
      IMPORTED_AT = time.time() * 1000
      VERSION = 1
      state = []
      def greet():
          return 'pristine'
      """;
  private static final Limits POLICY_LIMITS = Limits.builder().wallTime(Duration.ofSeconds(60)).build();
  /** Lower than the policy's, so the run cannot take a pooled context and makes its own. */
  private static final Limits OWN_CONTEXT = POLICY_LIMITS.toBuilder().maxOutputBytes(1 << 16).build();

  @TempDir
  static Path host;
  private static Path init;
  private static Policy policy;
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() throws IOException {
    Path pkg = Files.createDirectories(host.resolve("lib").resolve("shared"));
    init = Files.writeString(pkg.resolve("__init__.py"), PACKAGE);
    Files.writeString(Files.createDirectories(host.resolve("data")).resolve("in.txt"), "first");
    policy = Policy.builder().allowLanguages(Language.PYTHON, Language.JAVASCRIPT)
        .mount(Mount.readOnly(host.resolve("lib"), "/lib"))
        .mount(Mount.scratch("/work"))
        .mount(Mount.readOnly(host.resolve("data"), "/data"))
        .limits(POLICY_LIMITS)
        .build();
    sandbox = PolyglotSandbox.builder().policy(policy).warmContexts(1)
        .pythonPath("/work", "/lib").pythonImports("shared")
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static final String LOOK = """
      import sys
      shared = sys.modules.get('shared')
      [sys.path[0:2], shared is not None and shared.__file__, shared is not None and shared.VERSION,
       shared is not None and shared.greet(), shared is not None and shared.state,
       shared is not None and shared.IMPORTED_AT]
      """;

  @Test
  void thePackageIsImportedBeforeTheFirstStatement_fromTheGuestPath_inAPooledContextAndInARunsOwn()
      throws InterruptedException {
    awaitWarm();
    long called = System.currentTimeMillis();
    ExecutionResult pooled = sandbox.run(Language.PYTHON, LOOK);
    ExecutionResult own = sandbox.run(Script.of(Language.PYTHON, LOOK).withLimits(OWN_CONTEXT));
    for (ExecutionResult r : List.of(pooled, own)) {
      assertThatRun(r).isOk().leaksNoHostDetail();
      assertThat(((List<?>) r.value()).subList(0, 5)).isEqualTo(List.of(List.of("/work", "/lib"),
          "/lib/shared/__init__.py", 1L, "pristine", List.of()));
    }
    assertThat(importedAt(pooled)).as("the pooled context imported the package before the run was called")
        .isLessThan(called);
    assertThat(importedAt(own)).as("a run's own context imports it after the run was called")
        .isGreaterThanOrEqualTo(called);
    // Reading the package found nothing to write and nothing the imports did is the run's.
    assertThat(pooled.deniedOperations()).isEmpty();
    assertThat(pooled.stdout() + pooled.stderr()).isEmpty();
  }

  @Test
  void whatOneRunPlantsInThePackage_orShadowsItWith_isGoneInTheNext() throws InterruptedException {
    String plant = """
        import sys
        shared = sys.modules['shared']
        shared.greet = lambda: 'patched'
        shared.state.append('planted')
        with open('/work/shared.py', 'w') as f:
            f.write("def greet():\\n    return 'shadowed'\\n")
        with open('/work/evil.py', 'w') as f:
            f.write("EVIL = True\\n")
        try:
            with open(shared.__file__, 'a') as f:
                f.write('\\nstate.append(1)\\n')
            appended = 'appended'
        except OSError as e:
            appended = type(e).__name__
        del sys.modules['shared']
        import shared as again
        [again.greet(), appended]
        """;
    String look = """
        import sys
        try:
            import evil
            found = 'evil found'
        except ImportError:
            found = 'no evil'
        [sys.modules['shared'].greet(), sys.modules['shared'].state, found]
        """;
    for (Limits limits : List.of(POLICY_LIMITS, OWN_CONTEXT)) {
      awaitWarm();
      assertThatRun(sandbox.run(Script.of(Language.PYTHON, plant).withLimits(limits)))
          .as("the shadow takes in its own run").hasValue(List.of("shadowed", "PermissionError"));
      awaitWarm();
      assertThatRun(sandbox.run(Script.of(Language.PYTHON, look).withLimits(limits))).as("the next run, " + limits)
          .hasValue(List.of("pristine", List.of(), "no evil"));
    }
  }

  @Test
  void aHostFileChangedAfterTheContextWasPooled_theRunImportsItAsItIsNow() throws Exception {
    Path extra = init.resolveSibling("extra.py");
    try {
      // Changed: the run discards the pooled context and imports the new file itself.
      awaitWarm();
      Files.writeString(init, PACKAGE.replace("VERSION = 1", "VERSION = 2"));
      long called = System.currentTimeMillis();
      ExecutionResult changed = sandbox.run(Language.PYTHON, LOOK);
      assertThatRun(changed).isOk();
      assertThat(((List<?>) changed.value()).get(2)).isEqualTo(2L);
      assertThat(importedAt(changed)).isGreaterThanOrEqualTo(called);

      // Unchanged since the pool's context was made (the change above is older): the pooled context serves.
      awaitWarm();
      long calledAgain = System.currentTimeMillis();
      ExecutionResult unchanged = sandbox.run(Language.PYTHON, LOOK);
      assertThat(((List<?>) unchanged.value()).get(2)).isEqualTo(2L);
      assertThat(importedAt(unchanged)).isLessThan(calledAgain);

      // A file that appeared, then one that went, each after the pooled context was made.
      String importExtra = """
          try:
              from shared import extra
              what = extra.WHAT
          except ImportError:
              what = 'no extra'
          what
          """;
      awaitWarm();
      Files.writeString(extra, "WHAT = 'extra'\n");
      assertThatRun(sandbox.run(Language.PYTHON, importExtra)).hasValue("extra");
      awaitWarm();
      Files.delete(extra);
      assertThatRun(sandbox.run(Language.PYTHON, importExtra)).hasValue("no extra");

      // A JavaScript run, which has no imports, copies the mounts in as it starts.
      Files.writeString(init, PACKAGE.replace("VERSION = 1", "VERSION = 3"));
      assertThatRun(sandbox.run(Language.JAVASCRIPT, "readText('/lib/shared/__init__.py').includes('VERSION = 3')"))
          .hasValue(true);
    } finally {
      Files.writeString(init, PACKAGE);
      Files.deleteIfExists(extra);
    }
  }

  @Test
  void aMountOffThePath_isCopiedInWhenTheRunStarts_andItsChangeKeepsThePooledContext() throws Exception {
    Path data = host.resolve("data").resolve("in.txt");
    try {
      awaitWarm();
      Files.writeString(data, "second");
      long called = System.currentTimeMillis();
      ExecutionResult r = sandbox.run(Language.PYTHON,
          "import sys\n[open('/data/in.txt').read(), sys.modules['shared'].IMPORTED_AT]");
      assertThatRun(r).isOk();
      assertThat(((List<?>) r.value()).get(0)).isEqualTo("second");
      assertThat(((Number) ((List<?>) r.value()).get(1)).doubleValue()).as("the pooled context served the run")
          .isLessThan(called);
    } finally {
      Files.writeString(data, "first");
    }
  }

  @Test
  void aModuleMissingFromThePath_failsTheBuildNamingIt() {
    PolyglotSandbox.Builder b = PolyglotSandbox.builder().policy(policy).pythonPath("/lib").pythonImports("shard");
    assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("import shard").hasMessageContaining("No module named 'shard'");
  }

  @Test
  void theModelIsToldWhereThePackagesAre_andWhatIsImportedAlready() {
    assertThat(sandbox.describeForModel(Language.PYTHON))
        .contains("the standard library and the pure-Python packages in /work, /lib, which are on sys.path")
        .contains("Modules imported before your code runs, so importing them costs nothing: shared.")
        .doesNotContain("standard library only", host.toString());
    assertThat(sandbox.describeForModel(Language.JAVASCRIPT)).doesNotContain("sys.path", "imported before");
  }

  @Test
  void aDirectoryAboveTheMountedPackage_findsIt_withoutThePool() {
    try (PolyglotSandbox s = PolyglotSandbox.builder().policy(packageMount()).pythonPath("/pkgs").build()) {
      assertThatRun(s.run(Language.PYTHON, "import sys, shared\n[sys.path[0], shared.__file__, shared.greet()]"))
          .hasValue(List.of("/pkgs", "/pkgs/shared/__init__.py", "pristine"));
    }
  }

  /**
   * The pooled context imported from {@code /pkgs} before the run's own files were written there: the
   * import system's cached listing of the directory must not hide them.
   */
  @Test
  void aRunsOwnModuleBesideThePackage_isImportable_inAPooledContextThatImportedAlready() throws InterruptedException {
    try (PolyglotSandbox s = PolyglotSandbox.builder().policy(packageMount()).warmContexts(1).pythonPath("/pkgs")
        .pythonImports("shared").build()) {
      for (int i = 0; i < 600 && s.warmContexts(Language.PYTHON) < 1; i++) {
        Thread.sleep(100);
      }
      assertThat(s.warmContexts(Language.PYTHON)).as("a pooled Python context is ready").isEqualTo(1);
      Thread.sleep(10);
      long called = System.currentTimeMillis();
      Script script = Script.of(Language.PYTHON,
              "import helper, shared\n[helper.WHAT, shared.greet(), shared.IMPORTED_AT]")
          .withFile("/pkgs/helper.py", "WHAT = \"the run's own\"\n");
      ExecutionResult r = s.run(script);
      assertThatRun(r).isOk();
      assertThat(((List<?>) r.value()).subList(0, 2)).isEqualTo(List.of("the run's own", "pristine"));
      assertThat(((Number) ((List<?>) r.value()).get(2)).doubleValue()).as("the pooled context served the run")
          .isLessThan(called);
    }
  }

  private static Policy packageMount() {
    return Policy.builder().allowLanguages(Language.PYTHON)
        .mount(Mount.readOnly(host.resolve("lib").resolve("shared"), "/pkgs/shared")).limits(POLICY_LIMITS).build();
  }

  @Test
  void aBadDirectory_isRefusedNamingIt() {
    assertThatThrownBy(() -> PolyglotSandbox.builder().pythonPath("lib"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pythonPath").hasMessageContaining("'lib'");
    assertThatThrownBy(() -> PolyglotSandbox.builder().pythonPath("/lib/../etc"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'/lib/../etc'");
    assertThatThrownBy(() -> PolyglotSandbox.builder().pythonPath("/lib", "/lib/"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'/lib' is named twice");
    assertThatThrownBy(() -> PolyglotSandbox.builder().pythonPath((String) null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pythonPath: null");
    assertThatThrownBy(() -> PolyglotSandbox.builder().policy(policy).pythonPath("/library").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'/library' is neither inside nor above any of the policy's mounts [/lib, /work, /data]");
    Policy jsOnly = Policy.builder().allowLanguages(Language.JAVASCRIPT).mount(Mount.scratch("/work")).build();
    assertThatThrownBy(() -> PolyglotSandbox.builder().policy(jsOnly).pythonPath("/work").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("pythonPath [/work] needs a policy that allows Python");
  }

  private static double importedAt(ExecutionResult r) {
    return ((Number) ((List<?>) r.value()).get(5)).doubleValue();
  }

  /** Waits (bounded) until the pool has its Python context ready, so the next run takes it. */
  private static void awaitWarm() throws InterruptedException {
    for (int i = 0; i < 600 && sandbox.warmContexts(Language.PYTHON) < 1; i++) {
      Thread.sleep(100);
    }
    assertThat(sandbox.warmContexts(Language.PYTHON)).as("a pooled Python context is ready").isEqualTo(1);
    Thread.sleep(10); // so that a time taken next is after the pooled context's import on any clock tick
  }
}
