package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Guest code alone must never end a run {@code INTERNAL_ERROR}. GraalPy 25.0.3 throws
 * host exceptions from a few of its own builtins ({@code polyglot.fits_in_int('x')} on a string,
 * "not supported on the Java POSIX backend" from
 * {@code posix.openpty()} and {@code posix.setpgrp()}); such a failure of the interpreter, with none
 * of the sandbox's code on the stack, ends the run {@code GUEST_ERROR} with a plain message, and the
 * host logs one line, no stack trace. Then a sweep calls every public function of the interpreter's
 * own modules and of JavaScript's globals with no arguments, one run after another, skipping each one
 * that ended a run, and asserts none ended {@code INTERNAL_ERROR}.
 */
@Tag("slow")
class InterpreterFailuresTest {
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
            // A minute of each clock: a sweep that meets one on a loaded machine blames an innocent builtin.
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60)).build())
            .build())
        .warmContexts(1)
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static ExecutionResult run(Script script) {
    try (HostOutput host = HostOutput.capture()) {
      ExecutionResult r = sandbox.run(script);
      assertThat(host.problemsSinceLastCheck()).as("what the host logged or printed for %s", r).isEmpty();
      assertThat(r.outcome()).as("%s", r).isNotEqualTo(Outcome.INTERNAL_ERROR);
      SandboxAssertions.assertThatRun(r).leaksNoHostDetail();
      return r;
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"import polyglot\npolyglot.fits_in_int('x')", "import posix\nposix.openpty()",
      "import posix\nposix.setpgrp()", "import os\nos.setpgrp()\n'unreachable'"})
  void anInterpretersOwnFailure_isAGuestError_withAPlainMessage(String code) {
    ExecutionResult r = run(Script.of(Language.PYTHON, code));

    assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.GUEST_ERROR);
    assertThat(r.errorMessage().orElse("")).startsWith("SystemError: the Python interpreter failed on this code")
        .doesNotContain("Exception", "java", "com.oracle", "null");
  }

  @Test
  void theSandboxServesAfterAnInterpreterFailure() {
    run(Script.of(Language.PYTHON, "import polyglot\npolyglot.fits_in_int('x')"));

    assertThat(run(Script.of(Language.PYTHON, "6 * 7")).value()).isEqualTo(42L);
  }

  /** Calls each name with no arguments, printing it first, so the last line printed is the one that ended a run. */
  private static final String PY_SWEEP = """
      import posix
      mods = {'posix': posix, '__graalpython__': __graalpython__}
      for mod_name, mod in mods.items():
          for n in sorted(dir(mod)):
              f = getattr(mod, n, None)
              key = mod_name + '.' + n
              if n.startswith('_') or not callable(f) or key in skip:
                  continue
              print(key, flush=True)
              try:
                  f()
              except BaseException:
                  pass
      'swept'
      """;

  private static final String JS_SWEEP = """
      const seen = [];
      for (const g of Object.getOwnPropertyNames(globalThis).sort()) {
        let owner;
        try { owner = globalThis[g]; } catch (e) { continue; }
        const targets = [[g, owner]];
        if (owner !== null && (typeof owner === 'object' || typeof owner === 'function')) {
          for (const k of Object.getOwnPropertyNames(owner).sort()) {
            try { targets.push([g + '.' + k, owner[k]]); } catch (e) {}
          }
        }
        for (const [key, f] of targets) {
          if (typeof f !== 'function' || skip.includes(key)) continue;
          console.log(key);
          try { f(); } catch (e) {}
        }
      }
      'swept'
      """;

  @ParameterizedTest
  @ValueSource(strings = {"python", "js"})
  void everyBuiltinCalledWithNoArguments_neverEndsARunAsASandboxError(String languageId) {
    Language language = languageId.equals("python") ? Language.PYTHON : Language.JAVASCRIPT;
    // Stopping the process or waiting forever is not what this sweep is about.
    List<String> skip = new ArrayList<>(List.of("posix.abort", "posix.pause", "posix.wait", "posix.fork",
        "posix.forkpty", "posix.setsid", "Atomics.pause", "quit", "exit"));
    Map<String, String> endedRuns = new LinkedHashMap<>();
    ExecutionResult r = null;
    for (int attempt = 0; attempt < 60; attempt++) {
      r = run(Script.of(language, language == Language.PYTHON ? PY_SWEEP : JS_SWEEP)
          .withInputs(Map.of("skip", List.copyOf(skip))));
      if (r.isOk()) {
        break;
      }
      List<String> lines = r.stdout().lines().toList();
      assertThat(lines).as("a run that ended before its first call: %s", r).isNotEmpty();
      String culprit = lines.get(lines.size() - 1).strip();
      endedRuns.put(culprit, r.outcome() + " " + r.errorMessage().orElse(""));
      skip.add(culprit);
    }
    assertThat(r).isNotNull();
    assertThat(r.value()).as("the sweep finished; runs it ended: %s", endedRuns).isEqualTo("swept");
    assertThat(endedRuns.values()).as("each run a call ended").allSatisfy(v -> assertThat(v).doesNotStartWith("INTERNAL"));
  }
}
