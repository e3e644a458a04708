package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/**
 * In a fresh JVM whose first guest program is unbounded recursion, Truffle's class initialisation used
 * to fail and break every later context in the JVM. Runs {@link RecursionFirstMain} in a forked JVM with
 * the same class path and JIT flags.
 */
@Tag("slow")
class FirstProgramRecursionTest {
  @Test
  void unboundedRecursionAsFirstProgram_leavesTheJvmHealthy() throws IOException, InterruptedException {
    ForkedJvm.Result fork = ForkedJvm.run(RecursionFirstMain.class, "1g", 5);
    String out = fork.output();
    assertThat(fork.finished()).as("forked JVM finished; output:\n%s", out).isTrue();
    assertThat(fork.exitStatus()).as("exit status; output:\n%s", out).isZero();
    assertThat(out)
        .contains("js-recursion LIMIT_EXCEEDED limit exceeded: RangeError: Maximum call stack size exceeded stack")
        .contains("py-recursion LIMIT_EXCEEDED limit exceeded: RecursionError")
        .contains("js-after OK 42")
        .contains("py-after OK 42")
        .doesNotContain("NoClassDefFoundError")
        .doesNotContain("fallback runtime");
  }
}
