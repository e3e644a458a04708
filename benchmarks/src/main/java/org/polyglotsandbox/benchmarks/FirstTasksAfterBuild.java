package org.polyglotsandbox.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * What {@link PolyglotSandbox.Builder#warmUp} buys a server: the latency of the first tasks after
 * {@code build()} returns, with and without it. Not a JMH benchmark, because JMH's warm-up is exactly
 * what this leaves out. Each JVM builds the runner of {@link Peer#SANDBOX_POOLED} with
 * {@code warmUp(args[0] seconds)} ({@link Peer#pooled}), then runs {@code args[1]} tasks of
 * {@link PeerTask#B}, each with a text never seen before and a full pool (as {@link PeersBenchmark}),
 * and prints the median and p90 of each block of 200 tasks. Every answer is checked.
 *
 * <pre>{@code
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.FirstTasksAfterBuild benchmarks/run 0 600
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.FirstTasksAfterBuild benchmarks/run 30 600
 * }</pre>
 */
public final class FirstTasksAfterBuild {
  private static final int BLOCK = 200;

  private FirstTasksAfterBuild() {}

  public static void main(String[] args) {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    int tasks = args.length > 1 ? Integer.parseInt(args[1]) : 600;
    if (seconds < 0 || tasks < BLOCK || tasks % BLOCK != 0) {
      throw new IllegalArgumentException("usage: FirstTasksAfterBuild <warm-up seconds >= 0> <tasks, a multiple of "
          + BLOCK + ">; got " + Arrays.toString(args));
    }
    Language js = Language.JAVASCRIPT;
    long start = System.nanoTime();
    try (Peer.Runner runner = Peer.pooled(js, Duration.ofSeconds(seconds))) {
      System.out.printf("warmUp(%d s): build() took %.1f s%n", seconds, (System.nanoTime() - start) / 1e9);
      long[] nanos = new long[tasks];
      for (int i = 0; i < tasks; i++) {
        runner.awaitReady();
        String text = PeerTask.SourceMode.UNIQUE.text(PeerTask.B.code(js), js, i + 1);
        long t0 = System.nanoTime();
        Object value = runner.run(text);
        nanos[i] = System.nanoTime() - t0;
        Answers.require(Peer.SANDBOX_POOLED, PeerTask.B, value, PeerTask.B.expected);
      }
      for (int from = 0; from < tasks; from += BLOCK) {
        long[] block = Arrays.copyOfRange(nanos, from, from + BLOCK);
        Arrays.sort(block);
        System.out.printf("tasks %4d-%4d: median %.3f ms, p90 %.3f ms%n", from + 1, from + BLOCK,
            block[BLOCK / 2] / 1e6, block[BLOCK * 9 / 10] / 1e6);
      }
    }
  }
}
