package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * In a fresh JVM whose first guest program is unbounded recursion, Truffle's class initialisation used
 * to fail and break every later context in the JVM. Runs {@link RecursionFirstMain} in a forked JVM with
 * the same class path and JIT flags.
 */
class FirstProgramRecursionTest {
  @Test
  void unboundedRecursionAsFirstProgram_leavesTheJvmHealthy() throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("-XX:") || arg.startsWith("--upgrade-module-path") || arg.startsWith("--enable-native-access")
          || arg.startsWith("--sun-misc") || arg.startsWith("-Xss")) {
        command.add(arg);
      }
    }
    command.add("-Xmx1g");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(RecursionFirstMain.class.getName());
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    boolean finished = p.waitFor(5, TimeUnit.MINUTES);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!finished) {
      p.destroyForcibly();
    }
    assertThat(finished).as("forked JVM finished; output:\n%s", out).isTrue();
    assertThat(p.exitValue()).as("exit status; output:\n%s", out).isZero();
    assertThat(out)
        .contains("js-recursion LIMIT_EXCEEDED limit exceeded: RangeError: Maximum call stack size exceeded stack")
        .contains("py-recursion LIMIT_EXCEEDED limit exceeded: RecursionError")
        .contains("js-after OK 42")
        .contains("py-after OK 42")
        .doesNotContain("NoClassDefFoundError")
        .doesNotContain("fallback runtime");
  }
}
