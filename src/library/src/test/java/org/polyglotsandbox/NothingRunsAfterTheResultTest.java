package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A guest's limits end with its run, so no guest code may run after the result: a program that leaves
 * an endless loop for the moment its context closes (Python's {@code atexit}, {@code weakref.finalize},
 * a global's {@code __del__}; a JavaScript {@code FinalizationRegistry}) must not keep a run thread
 * busy once the run returned. Before the fix, each such Python run returned OK in about a second and
 * left its thread spinning in {@code Context.close()}, unlimited, until the sandbox closed.
 */
class NothingRunsAfterTheResultTest {
  private static final String PY_SPIN = "def spin(*_):\n    while True:\n        pass\n";

  static Stream<Arguments> programs() {
    return Stream.of(
        Arguments.of(Language.PYTHON, "atexit", PY_SPIN + "import atexit\natexit.register(spin)\n'left'"),
        Arguments.of(Language.PYTHON, "weakref.finalize",
            PY_SPIN + "import weakref\nclass T: pass\nt = T()\nweakref.finalize(t, spin)\n'left'"),
        Arguments.of(Language.PYTHON, "__del__",
            PY_SPIN + "class D:\n    def __del__(self):\n        spin()\nkeep = D()\n'left'"),
        Arguments.of(Language.JAVASCRIPT, "FinalizationRegistry", String.join("\n",
            "const registry = new FinalizationRegistry(() => { for (;;) {} });",
            "for (let i = 0; i < 1000; i++) { registry.register({i}, i); }",
            "globalThis.keep = registry;",
            "'left'")));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("programs")
  void workLeftForTheClose_neverRuns(Language language, String hook, String code) throws InterruptedException {
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder()
        .policy(Policy.builder().allowLanguages(language)
            // Limits far beyond the test's wait: only the close itself can keep this guest from running.
            .limits(Limits.builder().maxStatements(Long.MAX_VALUE).wallTime(Duration.ofMinutes(5))
                .maxCpuTime(Duration.ofMinutes(5)).build())
            .build())
        .build()) {
      for (int i = 0; i < 2; i++) {
        assertThatRun(sandbox.run(Script.of(language, code))).hasValue("left");
      }
      List<Thread> runThreads = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> !before.contains(t) && t.getName().startsWith("polyglot-sandbox-run"))
          .toList();
      assertThat(runThreads).as("this sandbox's run threads").isNotEmpty();
      // Once the contexts are closed (tens of ms each), no run thread is busy: each waits for a run.
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      List<Thread> busy = runThreads;
      while (!busy.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(100);
        busy = runThreads.stream().filter(t -> t.getState() == Thread.State.RUNNABLE).toList();
      }
      assertThat(busy).as("run threads still running %s code after its results (%s)", language, hook)
          .extracting(t -> t.getName() + " " + Stream.of(t.getStackTrace()).limit(4).map(String::valueOf)
              .collect(Collectors.joining(" <- ")))
          .isEmpty();
      assertThatRun(sandbox.run(Script.of(language, "1 + 1"))).hasValue(2L);
    }
  }
}
