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
 * The cost of one sandboxed JavaScript run, end to end, against the raw GraalVM floor in the same run:
 * {@link Design#SANDBOX} ({@code PolyglotSandbox.run} on a sandbox built once per trial) versus
 * {@link Design#RAW_SHARED_ENGINE} (a CONSTRAINED context on one shared engine, created, evaluated and
 * closed per call). A placeholder: the pool, peer sandboxes and more tasks come later.
 *
 * <p>Run from the repository root (it installs the library, packages the jar and starts it with the
 * optimizing Truffle runtime, which each fork checks before measuring):
 *
 * <pre>{@code
 * benchmarks/run SandboxRunBenchmark
 * }</pre>
 *
 * <p>It takes about two minutes on 2 cores: four forks of 5 x 2 s warm-up and 5 x 2 s measurement.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(1) // inherits the JIT flags benchmarks/run starts JMH with; RuntimeCheck verifies them in the fork
@State(Scope.Benchmark)
public class SandboxRunBenchmark {

  /** The guest programs, each with the value it must return. */
  public enum Task {
    /** The smallest program: the run's fixed cost. */
    SIX_TIMES_SEVEN("6*7", 42),
    /** Builds 100 order rows of {id, price, qty} and returns the total of price * qty. */
    ORDER_TOTAL_100_ROWS("""
        const rows = [];
        for (let i = 0; i < 100; i++) {
          rows.push({ id: i, price: (i % 7) + 1, qty: (i % 5) + 1 });
        }
        let total = 0;
        for (const row of rows) {
          total += row.price * row.qty;
        }
        total;
        """, orderTotal(100));

    final String code;
    final long expected;

    Task(String code, long expected) {
      this.code = code;
      this.expected = expected;
    }
  }

  @Param
  public Design design;

  @Param
  public Task task;

  private Design.Runner runner;

  @Setup(Level.Trial)
  public void setUp() {
    runner = design.open(Language.JAVASCRIPT, task.code);
    Answers.check(design, task.name(), runner.run(), task.expected);
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

  /** The total of price * qty over rows i = 0..n-1 with price = i % 7 + 1 and qty = i % 5 + 1. */
  static long orderTotal(int rows) {
    long total = 0;
    for (int i = 0; i < rows; i++) {
      total += (long) (i % 7 + 1) * (i % 5 + 1);
    }
    return total;
  }
}
