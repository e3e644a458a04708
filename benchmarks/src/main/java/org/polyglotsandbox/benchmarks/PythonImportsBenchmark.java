package org.polyglotsandbox.benchmarks;

import java.time.Duration;
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
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * An agent's Python run that starts with {@code import json}, as a model's code often does: the time
 * from {@code run} to its result, from a sandbox whose warm pool has a context ready (as it has when the
 * model takes seconds to write the next program), with {@code pythonImports("json")} against the same
 * sandbox without it ({@code imports=none}). Each invocation runs a new text (a salt in a literal), so
 * no run's own code is cached; the wait for the pool's replacement context is not timed. After each
 * invocation the process CPU since the previous one (the run, the pool's replacement, JIT, GC) is printed,
 * so the CPU that moved into the pool shows too.
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * benchmarks/run PythonImportsBenchmark
 * }</pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 20)
@Fork(1) // inherits the JIT flags benchmarks/run starts JMH with
@State(Scope.Benchmark)
public class PythonImportsBenchmark {
  /** What the sandbox imports into each Python context: nothing, or json. */
  @Param({"none", "json"})
  public String imports;

  private PolyglotSandbox sandbox;
  private int salt;
  private long cpuMark;

  @Setup(Level.Trial)
  public void setUp() {
    Policy policy = Policy.builder().allowLanguages(Language.PYTHON)
        .limits(Limits.builder().wallTime(Duration.ofMinutes(2)).maxCpuTime(Duration.ofMinutes(2)).build())
        .build();
    PolyglotSandbox.Builder b = PolyglotSandbox.builder().policy(policy).warmContexts(1);
    if (imports.equals("json")) {
      b.pythonImports("json");
    }
    sandbox = b.build();
    cpuMark = ThroughputRounds.processCpu();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    sandbox.close();
  }

  /** Not timed: the pool's replacement for the last run's context is ready, as it is between an agent's calls. */
  @Setup(Level.Invocation)
  public void awaitPool() throws InterruptedException {
    awaitPooledPython(sandbox, Duration.ofMinutes(2));
  }

  /** Waits until {@code sandbox}'s pool has a Python context ready, polling every 5 ms, at most {@code within}. */
  static void awaitPooledPython(PolyglotSandbox sandbox, Duration within) throws InterruptedException {
    long end = System.nanoTime() + within.toNanos();
    while (sandbox.warmContexts(Language.PYTHON) < 1) {
      if (System.nanoTime() > end) {
        throw new IllegalStateException("the warm pool did not refill within " + within);
      }
      Thread.sleep(5);
    }
  }

  @TearDown(Level.Invocation)
  public void cpu() {
    long now = ThroughputRounds.processCpu();
    System.out.printf("%n# process CPU since the last invocation: %.0f ms%n", (now - cpuMark) / 1e6);
    cpuMark = now;
  }

  @Benchmark
  public Object jsonRun() {
    int n = salt++;
    ExecutionResult r = sandbox.run(Language.PYTHON, "import json\n"
        + "rows = [{'id': i, 'qty': i % 7} for i in range(20)]\n"
        + "json.loads(json.dumps({'total': sum(r['qty'] for r in rows), 'n': " + n + "}))['n']");
    if (!r.isOk() || !(r.value() instanceof Number v) || v.intValue() != n) {
      throw new IllegalStateException("wrong answer: " + r);
    }
    System.out.printf("%n# guest CPU %s, set-up %s%n", r.usage().cpuTime(), r.usage().setupTime());
    return r.value();
  }
}
