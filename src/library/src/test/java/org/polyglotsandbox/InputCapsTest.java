package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Inputs are capped while they are encoded, and the caller gets an exception naming the input. Without
 * the cap, an input that shares itself (a list holding itself twice, 25 levels deep: 2^25 leaves) took
 * 43 s of the caller's CPU and filled the heap, then was reported as the guest's memory limit.
 */
class InputCapsTest {
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT)).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @Test
  void anInputThatSharesItself_isRefusedAtOnce_namingTheInputAndTheCap() {
    Object d = "leaf";
    for (int i = 0; i < 25; i++) {
      d = List.of(d, d);
    }
    Script script = Script.of(Language.JAVASCRIPT, "v.length").withInputs(Map.of("v", d));

    long start = System.nanoTime();
    assertThatThrownBy(() -> sandbox.run(script))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("input v holds more than 1000000 values (each input may hold 1000000 values and 67108864"
            + " characters of text; pass larger data as a file)");
    // Stopped at the cap, not after 2^25 values: a generous bound, far below the 43 s an uncapped encode took.
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void anInputPastTheTextCap_isRefused_andASmallOneStillRuns() {
    String big = "x".repeat((64 << 20) - 10);
    assertThatThrownBy(() -> sandbox.run(Script.of(Language.JAVASCRIPT, "1")
        .withInputs(Map.of("v", List.of(big, "0123456789a")))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("input v holds more than 67108864 characters of text");

    ExecutionResult ok = sandbox.run(Script.of(Language.JAVASCRIPT, "v.length").withInputs(Map.of("v", List.of(1, 2))));
    assertThat(ok.value()).isEqualTo(2L);
  }
}
