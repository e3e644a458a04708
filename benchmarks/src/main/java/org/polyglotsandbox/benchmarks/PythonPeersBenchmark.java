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
 * {@link PeersBenchmark} for Python: latency of one task in a brand-new GraalPy environment, for the
 * designs that run Python ({@link Peer#RAW_SHARED_ENGINE}, {@link Peer#FRESH_ENGINE_CONTEXT} as
 * LangChain4j configures it for Python, {@link Peer#SANDBOX}), the three tasks in Python and both
 * source modes. Every invocation checks the answer.
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * benchmarks/run PythonPeersBenchmark -rf json -rff benchmarks/target/python-peers.json
 * benchmarks/plot benchmarks/target/python-peers.json benchmarks/target/python-peers.png
 * }</pre>
 *
 * <p>18 trials of 12 x 2 s warm-up and 5 x 4 s measurement, about 20 minutes on 2 cores. A GraalPy
 * context costs around 100 ms even on a shared engine, so iterations are longer than the JavaScript
 * ones to hold enough samples; the first Python context in a JVM takes seconds and happens in the
 * trial's setup, before the warm-up. {@link Peer#SANDBOX_POOLED} waits for its pool before each
 * invocation (not measured).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 12, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 4, timeUnit = TimeUnit.SECONDS)
@Fork(1)
@State(Scope.Benchmark)
public class PythonPeersBenchmark {
  @Param({"RAW_SHARED_ENGINE", "FRESH_ENGINE_CONTEXT", "SANDBOX", "SANDBOX_POOLED"})
  public Peer design;

  @Param
  public PeerTask task;

  @Param
  public PeerTask.SourceMode source;

  private PeerTrial trial;
  private long invocation;

  @Setup(Level.Trial)
  public void setUp() {
    trial = PeerTrial.open(design, task, source, Language.PYTHON);
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
}
