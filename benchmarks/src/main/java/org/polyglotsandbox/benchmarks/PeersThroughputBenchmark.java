package org.polyglotsandbox.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.polyglotsandbox.Language;

/**
 * Tasks per second with two threads calling one runner of each JavaScript {@link Peer design} at once
 * (one engine, one sandbox; Nashorn gets one script engine per thread because its engines are not
 * thread-safe). By default task B with a text never seen before, the case of generated code on a
 * server; {@code -p task=A,B,C -p source=SAME,UNIQUE} widens it. Every invocation checks the answer.
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * benchmarks/run PeersThroughputBenchmark -rf json -rff benchmarks/target/peers-throughput.json
 * }</pre>
 *
 * <p>5 trials of 20 x 1 s warm-up and 5 x 2 s measurement, about 3 minutes (warm-up as in {@link PeersBenchmark}). On 2 cores the two
 * benchmark threads share the machine with the compiler threads, so this is the throughput of the
 * whole machine, not of two spare cores. {@code -t 8} runs eight client threads. On a machine shared
 * with other work, a design with more threads gets a larger share of it, so compare designs by
 * {@link ThroughputRounds}' CPU per task too.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 20, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(1)
@Threads(2)
@State(Scope.Benchmark)
public class PeersThroughputBenchmark {
  @Param({"RAW_SHARED_ENGINE", "FRESH_ENGINE_CONTEXT", "NASHORN", "RHINO", "SANDBOX", "SANDBOX_POOLED"})
  public Peer design;

  @Param({"B"})
  public PeerTask task;

  @Param({"UNIQUE"})
  public PeerTask.SourceMode source;

  private PeerTrial trial;
  private final AtomicLong invocations = new AtomicLong();

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

  /** One task in a fresh environment, its answer checked; two threads call this at once. */
  @Benchmark
  public Object run() {
    return trial.run(invocations.incrementAndGet());
  }
}
