package org.polyglotsandbox.internal.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.graalvm.polyglot.Context;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * GraalJS and GraalPy inside the full wall, on the optimizing runtime with this JVM's JIT flags: the
 * seccomp filter, the read-only file system and the caps leave a worker's engine room working.
 */
@Tag("slow")
class PolyglotInWallTest {
  @Test
  void graalJsAndGraalPy_runInsideTheWall_onTheOptimizingRuntime() throws Exception {
    OsWall.Report report = OsWall.inspect();
    assertThat(report.full()).as(report.missing()).isTrue();
    List<String> flags = new ArrayList<>(List.of("-Xmx512m", "-XX:+DisableAttachMechanism", "-XX:-UsePerfData"));
    Set<Path> readOnly = new LinkedHashSet<>();
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("-XX:+") || arg.startsWith("--upgrade-module-path") || arg.startsWith("--sun-misc") || arg.startsWith("-Xss")) {
        flags.add(arg);
      }
      if (arg.startsWith("--upgrade-module-path=")) {
        for (String jar : arg.substring(arg.indexOf('=') + 1).split(":")) {
          readOnly.add(Path.of(jar));
        }
      }
    }
    String classPath = System.getProperty("java.class.path");
    for (String entry : classPath.split(":")) {
      if (Files.exists(Path.of(entry))) {
        readOnly.add(Path.of(entry).toAbsolutePath());
      }
    }
    // GraalVM's resource cache (the Truffle attach library for the optimizing runtime, GraalPy's home): filled
    // here, on the host, and read-only inside, where user.home is "?".
    try (Context warm = Context.newBuilder("js", "python").build()) {
      warm.eval("python", "1");
    }
    Path cache = Path.of(System.getProperty("polyglot.engine.userResourceCache",
        Path.of(System.getProperty("user.home"), ".cache", "org.graalvm.polyglot").toString()));
    assertThat(cache).isDirectory();
    readOnly.add(cache);
    flags.add("-Dpolyglot.engine.userResourceCache=" + cache);
    List<String> command = new ArrayList<>();
    command.add(WalledJvm.JAVA_HOME.resolve("bin/java").toString());
    command.addAll(flags);
    command.addAll(List.of("-cp", classPath, WalledMain.class.getName(), PolyglotInWallMain.class.getName(), "js", "python"));
    WallSpec spec = new WallSpec(WalledJvm.JAVA_HOME, List.copyOf(readOnly), Map.of("LANG", "C.UTF-8"), 1024, 256L << 20,
        report.cgroupMemory() ? 2L << 30 : 0, 400, false);
    List<String> plain = new ArrayList<>(command);
    plain.remove(WalledMain.class.getName());
    long plainStart = System.nanoTime();
    WalledJvm.Result p = WalledJvm.run(plain, 300);
    System.out.printf("polyglot without the wall: exit %d after %d ms%n", p.exitStatus(), (System.nanoTime() - plainStart) / 1_000_000);
    assertThat(p.line("RESULT python")).as(p.output()).isEqualTo("899997");
    WallCommand.Walled walled = WallCommand.wrap(command, spec);
    try {
      long start = System.nanoTime();
      WalledJvm.Result r = WalledJvm.run(walled.command(), 300);
      System.out.printf("polyglot in the wall: exit %d after %d ms, peak %d MiB%n%s%n", r.exitStatus(),
          (System.nanoTime() - start) / 1_000_000, walled.slot() == null ? -1 : walled.slot().memoryPeakBytes() >> 20, r.output());
      assertThat(r.exitStatus()).as(r.output()).isZero();
      assertThat(r.line("RUNTIME")).as(r.output()).doesNotContain("Interpreted");
      assertThat(r.line("RESULT js")).isEqualTo("8999994");
      assertThat(r.line("RESULT python")).isEqualTo("899997");
    } finally {
      if (walled.slot() != null) {
        walled.slot().close();
      }
    }
  }
}
