package org.polyglotsandbox.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * A compute-heavy guest (the sum of {@code (i*i) % 7} for {@code i < 1e6}, about 17 ms) sandboxed and
 * raw, and the CPU the sandbox's watchdog thread spends meanwhile. The watchdog checks every running
 * guest's CPU time and allocation every 10 ms and fires deadlines; its own cost is reported as the
 * secondary metric {@code watchdogCpuPercent}: CPU time of the {@code polyglot-sandbox-watchdog}
 * thread as a percentage of the benchmark thread's wall time. Target: under 3%.
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * benchmarks/run WatchdogOverheadBenchmark
 * }</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(1)
@State(Scope.Benchmark)
public class WatchdogOverheadBenchmark {
  static final String COMPUTE = "let s = 0; for (let i = 0; i < 1e6; i++) { s += (i * i) % 7; } s;";
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  @Param
  public Design design;

  private Design.Runner runner;
  private long expected;

  @Setup(Level.Trial)
  public void setUp() {
    runner = design.open(Language.JAVASCRIPT, COMPUTE);
    for (long i = 0; i < 1_000_000; i++) {
      expected += (i * i) % 7;
    }
    Answers.check(design, "COMPUTE_1E6", runner.run(), expected);
  }

  /** The watchdog's CPU over each measured iteration, as a percentage of the iteration's wall time. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class WatchdogCpu {
    public double watchdogCpuPercent;
    private long cpuAtStart;
    private long wallAtStart;

    @Setup(Level.Iteration)
    public void start() {
      cpuAtStart = watchdogCpuNanos();
      wallAtStart = System.nanoTime();
    }

    @TearDown(Level.Iteration)
    public void stop() {
      long wall = System.nanoTime() - wallAtStart;
      watchdogCpuPercent = wall <= 0 ? 0 : 100.0 * (watchdogCpuNanos() - cpuAtStart) / wall;
    }
  }

  @Benchmark
  public Object compute(WatchdogCpu counters) {
    return runner.run();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    runner.close();
  }

  static long watchdogCpuNanos() {
    long total = 0;
    for (ThreadInfo t : THREADS.dumpAllThreads(false, false, 0)) {
      if (t.getThreadName().startsWith("polyglot-sandbox-watchdog")) {
        total += Math.max(0, THREADS.getThreadCpuTime(t.getThreadId()));
      }
    }
    return total;
  }
}
