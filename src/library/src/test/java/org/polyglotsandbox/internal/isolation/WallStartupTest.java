package org.polyglotsandbox.internal.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the wall costs a worker's start: from {@link ProcessBuilder#start()} to the first line,
 * {@code ready}, of {@link ReadyMain}, for a plain child JVM, a weak wall and the full wall (bwrap,
 * seccomp, memory and pids cgroups), interleaved, median of {@value #RUNS} each. The figures go to
 * standard output; the test fails if a walled JVM never gets ready or the full wall adds more than
 * {@value #MAX_EXTRA_MILLIS} ms to the median.
 */
@Tag("slow")
class WallStartupTest {
  private static final int RUNS = 11;
  private static final long MAX_EXTRA_MILLIS = 1000;
  private static final List<String> FLAGS = List.of("-Xmx64m", "-XX:+DisableAttachMechanism", "-XX:-UsePerfData", "-Xshare:auto");

  @Test
  void aWalledJvm_getsReady_atMostASecondAfterAPlainOne() throws Exception {
    assumeThat(System.getProperty("os.name")).isEqualTo("Linux");
    OsWall.Report report = OsWall.inspect();
    assertThat(report.full()).as(report.missing()).isTrue();
    long[] plain = new long[RUNS];
    long[] weak = new long[RUNS];
    long[] full = new long[RUNS];
    for (int i = 0; i < RUNS; i++) {
      plain[i] = millisToReady(WalledJvm.plainCommand(FLAGS, ReadyMain.class, List.of()), null);
      WallSpec weakSpec = new WallSpec(WalledJvm.JAVA_HOME, List.of(), Map.of(), 256, 16L << 20, 0, 0, true);
      WallCommand.Walled w = WallCommand.wrap(WalledJvm.workerCommand(FLAGS, ReadyMain.class, List.of()), weakSpec);
      weak[i] = millisToReady(w.command(), w.slot());
      WallCommand.Walled f = WallCommand.wrap(WalledJvm.workerCommand(FLAGS, ReadyMain.class, List.of()),
          WalledJvm.spec(report.cgroupMemory() ? 256L << 20 : 0, 100));
      full[i] = millisToReady(f.command(), f.slot());
    }
    System.out.printf("spawn to ready, median of %d (min-max), ms: plain %d (%d-%d), weak wall %d (%d-%d), full wall %d (%d-%d)%n",
        RUNS, median(plain), min(plain), max(plain), median(weak), min(weak), max(weak), median(full), min(full), max(full));
    assertThat(median(full) - median(plain)).isLessThan(MAX_EXTRA_MILLIS);
  }

  private static long millisToReady(List<String> command, CgroupSlot slot) throws IOException, InterruptedException {
    try {
      long start = System.nanoTime();
      Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      String first;
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        first = r.readLine();
      }
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(first).as(String.join(" ", command)).isEqualTo("ready");
      assertThat(p.exitValue()).isZero();
      return millis;
    } finally {
      if (slot != null) {
        slot.close();
      }
    }
  }

  private static long median(long[] a) {
    long[] s = a.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  private static long min(long[] a) {
    return Arrays.stream(a).min().orElseThrow();
  }

  private static long max(long[] a) {
    return Arrays.stream(a).max().orElseThrow();
  }
}
