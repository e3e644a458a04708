package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Guards the JIT wiring: if the JVCMI flags or the compiler jars go missing, this fails. */
class OptimizingRuntimeTest {
  @Test
  void testsRunOnTheOptimizingTruffleRuntime() {
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT)).build()) {
      assertThat(sandbox.runtimeName()).isNotEqualTo("Interpreted").contains("GraalVM");
      assertThat(sandbox.isOptimizingRuntime()).isTrue();
    }
  }
}
