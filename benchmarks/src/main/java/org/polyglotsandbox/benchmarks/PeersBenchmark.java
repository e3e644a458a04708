package org.polyglotsandbox.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.polyglotsandbox.Language;

/**
 * Latency of one JavaScript task in a brand-new environment, per {@link Peer design}, {@link PeerTask
 * task} and {@link PeerTask.SourceMode source}: the same text every time, or a text never seen before.
 * {@code SampleTime} records every invocation (JMH samples the fastest ones), so the report gives the
 * median ({@code p0.50}) and {@code p0.99} next to the mean. Every invocation checks the answer and
 * fails the trial on a wrong one.
 *
 * <p>Run from the repository root, with the JSON that {@code benchmarks/plot} draws (the pattern is a
 * regular expression; a bare {@code PeersBenchmark} would also match {@link PythonPeersBenchmark}):
 *
 * <pre>{@code
 * benchmarks/run 'benchmarks\.PeersBenchmark' -rf json -rff benchmarks/target/peers.json
 * benchmarks/plot benchmarks/target/peers.json benchmarks/target/peers.png
 * }</pre>
 *
 * <p>42 trials of 40 x 1 s warm-up and 5 x 2 s measurement, about 40 minutes on 2 cores. The warm-up is
 * in one-second iterations so that the log shows when each design stops improving. It is as long as
 * the slowest design to settle needs: {@link Peer#SANDBOX_POOLED} waits for its pool before each
 * invocation ({@link #ready()}, not measured), so it runs about a tenth as many tasks per second of
 * warm-up as a design that runs back to back, and with a different text each time it was still
 * getting faster after 30 s (docs/performance.md, "Method notes"). Check the warm-up iterations of a new run: if
 * they still fall at the end, raise {@code -wi}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 40, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(1) // inherits the JIT flags benchmarks/run starts JMH with; GraalVM designs check them in the fork
@State(Scope.Benchmark)
public class PeersBenchmark {
  @Param({"RAW_SHARED_ENGINE", "RAW_STATEMENT_LIMIT", "FRESH_ENGINE_CONTEXT", "NASHORN", "RHINO", "SANDBOX",
      "SANDBOX_POOLED"})
  public Peer design;

  @Param
  public PeerTask task;

  @Param
  public PeerTask.SourceMode source;

  private PeerTrial trial;
  private long invocation;

  @Setup(Level.Trial)
  public void setUp() {
    trial = PeerTrial.open(design, task, source, Language.JAVASCRIPT);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (trial != null) {
      trial.close();
    }
  }

  /** Not measured: a pooled design waits for its pool to be full again. */
  @Setup(Level.Invocation)
  public void ready() {
    trial.awaitReady();
  }

  /** One task in a fresh environment, its answer checked. */
  @Benchmark
  public Object run() {
    return trial.run(++invocation);
  }

  /**
   * A diagnostic for a shared machine, not a substitute for the JMH run: every design, task and source
   * set up in one JVM and run round-robin, one task each per round, for {@code args[0]} seconds (120) of
   * warm-up and then {@code args[1]} (30) measured rounds; prints each one's median and p90 in ms. Load
   * from other processes then falls on all designs alike. The designs share one heap and one JIT, which
   * separate JMH forks do not.
   *
   * <pre>{@code
   * BENCH_MAIN=org.polyglotsandbox.benchmarks.PeersBenchmark benchmarks/run 120 30
   * }</pre>
   */
  public static void main(String[] args) throws NoSuchFieldException {
    int warmUpSeconds = args.length > 0 ? Integer.parseInt(args[0]) : 120;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    List<PeersBenchmark> all = new ArrayList<>();
    for (String d : PeersBenchmark.class.getField("design").getAnnotation(Param.class).value()) {
      for (PeerTask t : PeerTask.values()) {
        for (PeerTask.SourceMode m : PeerTask.SourceMode.values()) {
          PeersBenchmark b = new PeersBenchmark();
          b.design = Peer.valueOf(d);
          b.task = t;
          b.source = m;
          b.setUp();
          all.add(b);
        }
      }
    }
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmUpSeconds);
    int warmUpRounds = 0;
    while (System.nanoTime() < end) {
      all.forEach(PeersBenchmark::run);
      warmUpRounds++;
    }
    long[][] nanos = new long[all.size()][rounds];
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < all.size(); i++) {
        all.get(i).ready();
        long start = System.nanoTime();
        all.get(i).run();
        nanos[i][r] = System.nanoTime() - start;
      }
    }
    System.out.printf("%d warm-up rounds in %d s, then %d measured rounds; ms per task%n", warmUpRounds,
        warmUpSeconds, rounds);
    System.out.printf("%-21s %-4s %-7s %9s %9s%n", "design", "task", "source", "median", "p90");
    for (int i = 0; i < all.size(); i++) {
      long[] t = nanos[i].clone();
      Arrays.sort(t);
      PeersBenchmark b = all.get(i);
      System.out.printf("%-21s %-4s %-7s %9.3f %9.3f%n", b.design, b.task, b.source, t[t.length / 2] / 1e6,
          t[(int) Math.ceil(t.length * 0.9) - 1] / 1e6);
    }
    all.forEach(PeersBenchmark::tearDown);
  }
}
