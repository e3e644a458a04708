package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
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
 * A Python package imported from a read-only mount, attacked from one run to plant code or state for
 * the next: the module file cannot be changed, replaced or shadowed (no file, no
 * {@code __pycache__} entry), and whatever a run does to the imported module object (patched functions,
 * mutated module state, a poisoned {@code sys.modules}) is gone in the next run, which imports the
 * pristine module again.
 */
class MountedModuleIsolationTest {
  private static final String MODULE = """
      state = []
      def greet():
          return 'pristine'
      """;

  @TempDir
  static Path packages;
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() throws IOException {
    Path pkg = Files.createDirectories(packages.resolve("lib").resolve("shared"));
    Files.writeString(pkg.resolve("__init__.py"), MODULE);
    Policy policy = Policy.builder().allowLanguages(Language.PYTHON, Language.JAVASCRIPT)
        .mount(Mount.readOnly(packages.resolve("lib"), "/lib"))
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).build())
        .build();
    sandbox = PolyglotSandbox.builder().policy(policy).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static final String IMPORT = "import sys\nsys.path.insert(0, '/lib')\nimport shared\n";

  @Test
  void moduleFile_cannotBeRewrittenReplacedOrShadowed() throws IOException {
    ExecutionResult r = sandbox.run(Language.PYTHON, IMPORT + """
        import os
        def attempt(f):
            try:
                f()
                return 'done'
            except OSError as e:
                return type(e).__name__
        path = shared.__file__
        def rewrite():
            with open(path, 'w') as f:
                f.write("def greet():\\n    return 'planted'\\n")
        def append():
            with open(path, 'a') as f:
                f.write('\\nstate.append(1)\\n')
        def pyc():
            os.makedirs('/lib/shared/__pycache__', exist_ok=True)
            with open('/lib/shared/__pycache__/__init__.graalpy.pyc', 'wb') as f:
                f.write(b'planted')
        def shadow():
            with open('/lib/shared.py', 'w') as f:
                f.write("def greet():\\n    return 'shadowed'\\n")
        [path, attempt(rewrite), attempt(append), attempt(pyc), attempt(shadow), attempt(lambda: os.remove(path)),
         attempt(lambda: os.rename(path, path + '.bak'))]
        """);
    assertThatRun(r).hasValue(List.of("/lib/shared/__init__.py", "PermissionError", "PermissionError",
        "PermissionError", "PermissionError", "PermissionError", "PermissionError")).leaksNoHostDetail();

    // The next runs, in either language, see the file as it was written on the host.
    ExecutionResult js = sandbox.run(Language.JAVASCRIPT, "readText('/lib/shared/__init__.py')");
    assertThatRun(js).hasValue(MODULE);
    ExecutionResult next = sandbox.run(Language.PYTHON, IMPORT + "[shared.greet(), shared.state]");
    assertThatRun(next).hasValue(List.of("pristine", List.of()));
    assertThat(Files.readString(packages.resolve("lib/shared/__init__.py"))).isEqualTo(MODULE);
    assertThat(packages.resolve("lib/shared/__pycache__")).doesNotExist();
    assertThat(packages.resolve("lib/shared.py")).doesNotExist();
  }

  @Test
  void monkeypatchedModule_isPristineInTheNextRun() {
    for (int i = 0; i < 3; i++) {
      ExecutionResult patched = sandbox.run(Language.PYTHON, IMPORT + """
          import builtins
          before = [shared.greet(), list(shared.state)]
          shared.greet = lambda: 'patched'
          shared.state.append('planted')
          shared.__dict__['extra'] = 'planted'
          try:
              type(shared).__getattr__ = lambda self, name: 'planted'
          except TypeError:
              pass
          sys.modules['shared'] = type(sys)('shared')
          builtins.__import__ = lambda *a, **k: 'planted'
          before
          """);
      // Every run, the third included, starts from the module as the file defines it.
      assertThatRun(patched).hasValue(List.of("pristine", List.of()));
    }
    ExecutionResult next = sandbox.run(Language.PYTHON, IMPORT
        + "[shared.greet(), shared.state, hasattr(shared, 'extra'), __import__('os').sep]");
    assertThatRun(next).hasValue(List.of("pristine", List.of(), false, "/"));
  }
}
