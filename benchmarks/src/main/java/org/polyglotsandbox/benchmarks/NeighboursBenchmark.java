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
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;

/**
 * How much a well-behaved task's latency grows while hostile guests run beside it on the same sandbox:
 * {@link Neighbours#NONE} (the task alone) against {@link Neighbours#HOSTILE} (one background thread
 * that runs a CPU bomb and an allocation bomb back to back, each stopped by its cap: 1 s CPU, 256 MiB
 * allocated, or {@code -p bombAllocatedMiB=N}; {@code -p bombs=CPU} or {@code ALLOCATION} for one of them).
 * The task is the 100-row order total in JavaScript. {@code -p lowerPriorityAfterMillis=100} builds the
 * sandbox with {@code lowerPriorityAfter}, which gives the bombs' threads nice 19 past 100 ms of CPU.
 * Target: latency with hostile neighbours under 2x latency alone (compare the medians and p99 of the
 * two rows).
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * benchmarks/run NeighboursBenchmark
 * }</pre>
 *
 * <p>On 2 cores the hostile thread holds one core; the JIT compiler threads share the other with the
 * task, so this measures the sandbox's isolation, not a machine with spare cores.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(1)
@State(Scope.Benchmark)
public class NeighboursBenchmark {
  /** What runs beside the measured task. */
  public enum Neighbours { NONE, HOSTILE }

  /** Which bombs the hostile thread runs, back to back. */
  public enum Bombs {
    CPU(0), ALLOCATION(1), BOTH(0, 1);

    final int[] indices;

    Bombs(int... indices) {
      this.indices = indices;
    }
  }

  private static final String TASK = SandboxRunBenchmark.Task.ORDER_TOTAL_100_ROWS.code;
  private static final long EXPECTED = SandboxRunBenchmark.Task.ORDER_TOTAL_100_ROWS.expected;
  private static final String[] BOMBS = {
    "let x = 0; for (;;) { x = (x + 1) | 0; }",
    "let keep = []; for (;;) keep.push(new Array(1e5).fill(0.5));",
  };

  @Param
  public Neighbours neighbours;

  /**
   * What each hostile run may allocate, in MiB (its own limit, below the policy's 256): the embedder's
   * sizing, which sets how much live data the allocation bomb leaves for each collection to copy.
   */
  @Param("256")
  public long bombAllocatedMiB;

  /** Which bombs run beside the task ({@code -p bombs=CPU} to see the CPU-bound neighbour alone). */
  @Param("BOTH")
  public Bombs bombs;

  /**
   * The sandbox's {@code lowerPriorityAfter} in milliseconds of a run's CPU time; 0 leaves it off (the
   * default). {@code -p lowerPriorityAfterMillis=0,100} compares the two in one run.
   */
  @Param("0")
  public long lowerPriorityAfterMillis;

  private PolyglotSandbox sandbox;
  private Thread hostile;
  private volatile boolean stop;
  private volatile String hostileFailure;

  @Setup(Level.Trial)
  public void setUp() {
    PolyglotSandbox.Builder builder = PolyglotSandbox.builder();
    if (lowerPriorityAfterMillis > 0) {
      builder.lowerPriorityAfter(Duration.ofMillis(lowerPriorityAfterMillis));
    }
    sandbox = builder.policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
            .limits(Limits.builder().maxStatements(Long.MAX_VALUE).wallTime(Duration.ofSeconds(5))
                .maxCpuTime(Duration.ofSeconds(1)).maxAllocatedBytes(256L << 20).build())
            .build())
        .build();
    RuntimeCheck.require("PolyglotSandbox", sandbox.runtimeName(), sandbox.isOptimizingRuntime());
    check(sandbox.run(Language.JAVASCRIPT, TASK));
    if (neighbours == Neighbours.HOSTILE) {
      hostile = Thread.ofPlatform().daemon().name("hostile-neighbour").start(() -> {
        for (int i = 0; !stop; i++) {
          ExecutionResult r = sandbox.run(Script.of(Language.JAVASCRIPT, BOMBS[bombs.indices[i % bombs.indices.length]])
              .withLimits(sandbox.policy().limits().toBuilder().maxAllocatedBytes(bombAllocatedMiB << 20).build()));
          if (r.outcome() != Outcome.LIMIT_EXCEEDED && !stop) {
            hostileFailure = "a hostile run was not stopped by a cap: " + r;
          }
        }
      });
    }
  }

  @Benchmark
  public Object wellBehaved() {
    return check(sandbox.run(Language.JAVASCRIPT, TASK));
  }

  private static Object check(ExecutionResult r) {
    if (!r.isOk() || !Long.valueOf(EXPECTED).equals(r.value())) {
      throw new IllegalStateException("the well-behaved task failed: " + r);
    }
    return r.value();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    stop = true;
    if (hostile != null) {
      hostile.join(10_000);
    }
    sandbox.close();
    if (hostileFailure != null) {
      throw new IllegalStateException(hostileFailure);
    }
  }
}
