package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link PolyglotSandbox.Builder#singleRun()}: no warm-up, one run, and that one run (the first guest
 * code in a fresh JVM) still ends the way it would after the full warm-up, however hostile it is.
 */
class SingleRunTest {
  @Test
  void secondRun_isRefused() {
    try (PolyglotSandbox s = PolyglotSandbox.builder().singleRun()
        .policy(Policy.computeOnly(Language.JAVASCRIPT)).build()) {
      assertThat(s.run(Language.JAVASCRIPT, "6*7").value()).isEqualTo(42L);
      assertThatThrownBy(() -> s.run(Language.JAVASCRIPT, "6*7"))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("singleRun()");
      assertThatThrownBy(() -> s.runAsync(Language.JAVASCRIPT, "6*7"))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("singleRun()");
    }
  }

  @Test
  void aRefusedScript_doesNotUseUpTheRun() {
    try (PolyglotSandbox s = PolyglotSandbox.builder().singleRun()
        .policy(Policy.computeOnly(Language.JAVASCRIPT)).build()) {
      assertThatThrownBy(() -> s.run(Language.PYTHON, "6*7")).isInstanceOf(IllegalArgumentException.class);
      assertThat(s.run(Language.JAVASCRIPT, "6*7").value()).isEqualTo(42L);
    }
  }

  @Test
  void withWarmContextsOrWarmUp_isRefusedAtBuild() {
    assertThatThrownBy(() -> PolyglotSandbox.builder().singleRun().warmContexts(1)
        .policy(Policy.computeOnly(Language.JAVASCRIPT)).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("warmContexts (1)");
    assertThatThrownBy(() -> PolyglotSandbox.builder().singleRun().warmUp(java.time.Duration.ofSeconds(1))
        .policy(Policy.computeOnly(Language.JAVASCRIPT)).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("warmUp (PT1S)");
  }

  @Tag("slow")
  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', textBlock = """
      js     | recursion   | function f(n) { return f(n + 1) + 1; } f(0)                                  | first LIMIT_EXCEEDED limit exceeded: RangeError: Maximum call stack size exceeded stack
      python | recursion   | import sys\\nsys.setrecursionlimit(10**7)\\ndef f(n): return f(n + 1) + 1\\nf(0) | first LIMIT_EXCEEDED limit exceeded: RecursionError
      js     | allocation  | const keep = []; for (;;) keep.push(new Array(100000).fill(1.5));           | first LIMIT_EXCEEDED
      python | allocation  | keep = []\\nwhile True:\\n    keep.append([1.5] * 100000)                     | first LIMIT_EXCEEDED
      js     | guest error | function f() { throw new TypeError('boom'); } f();                           | first GUEST_ERROR TypeError: boom
      python | guest error | raise ValueError('boom')                                                      | first GUEST_ERROR ValueError: boom
      python | home        | import sys\\nsys.prefix                                                        | first OK /usr/lib/graalpy
      """)
  void firstProgramInTheJvm_endsAsAfterTheFullWarmUp(String language, String what, String code, String expected)
      throws Exception {
    ForkedJvm.Result fork = ForkedJvm.run(SingleRunFirstMain.class, "1g", 5, List.of(),
        List.of(language, code.replace("\\n", "\n")));
    String out = fork.output();
    assertThat(fork.finished()).as("forked JVM finished; output:\n%s", out).isTrue();
    assertThat(fork.exitStatus()).as("exit status; output:\n%s", out).isZero();
    assertThat(out).contains(expected).doesNotContain("NoClassDefFoundError", "INTERNAL_ERROR", "fallback runtime");
    if (what.equals("allocation")) {
      assertThat(out).containsPattern("first LIMIT_EXCEEDED .*(memory|allocat)");
    }
  }
}
