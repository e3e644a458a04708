package org.polyglotsandbox.benchmarks;

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
 * The cost of one sandboxed Python run against the raw GraalVM floor in the same run, on the order-total
 * task of {@link SandboxRunBenchmark}. A Python context costs around 100 ms even on a shared engine, so
 * this class measures in milliseconds, with fewer and longer warm-up iterations. A placeholder like its
 * JavaScript sibling.
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * benchmarks/run PythonRunBenchmark
 * }</pre>
 *
 * <p>It takes under a minute on 2 cores: two forks of 3 x 3 s warm-up and 5 x 2 s measurement.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 3, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(1) // inherits the JIT flags benchmarks/run starts JMH with; RuntimeCheck verifies them in the fork
@State(Scope.Benchmark)
public class PythonRunBenchmark {
  private static final String ORDER_TOTAL_100_ROWS = """
      rows = [{'id': i, 'price': i % 7 + 1, 'qty': i % 5 + 1} for i in range(100)]
      total = 0
      for row in rows:
          total += row['price'] * row['qty']
      total
      """;

  @Param
  public Design design;

  private Design.Runner runner;

  @Setup(Level.Trial)
  public void setUp() {
    runner = design.open(Language.PYTHON, ORDER_TOTAL_100_ROWS);
    Answers.check(design, "ORDER_TOTAL_100_ROWS", runner.run(), SandboxRunBenchmark.orderTotal(100));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (runner != null) {
      runner.close();
    }
  }

  /** One complete run; JMH consumes the returned value, so nothing is dead code. */
  @Benchmark
  public Object run() {
    return runner.run();
  }
}
