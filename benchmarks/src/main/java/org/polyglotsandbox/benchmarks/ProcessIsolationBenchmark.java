package org.polyglotsandbox.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * What process isolation costs a run, against the same sandbox in-process in the same JMH run: the
 * latency of one task through a warm worker ({@link #latency}, one caller, {@code SampleTime}: median and
 * p99) and the tasks per second of two callers at once ({@link #throughput}). Every design has the same
 * policy ({@link Peer#policy}) and {@code warmContexts(1)} (with process isolation that pool is inside
 * each worker); by default task B with a text never seen before, as {@link PeersThroughputBenchmark}
 * runs it. Every answer is checked. {@link WorkerStartup} and {@link WorkerMemory} measure a worker's
 * start and its memory.
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * benchmarks/run ProcessIsolationBenchmark -rf json -rff benchmarks/target/process-isolation.json
 * }</pre>
 *
 * <p>Six trials, about 12 minutes on 2 cores: {@link #latency} 60 x 1 s warm-up (back to back) and 5 x 4 s
 * measurement, {@link #throughput} 60 x 2 s warm-up and 5 x 2 s. The warm-ups are long because each
 * worker is a JVM of its own that compiles the sandbox's path for itself, with half the runs: with 20 s
 * of warm-up two workers were still getting faster in every measurement iteration (docs/performance.md).
 * {@code -p design=PROCESS} runs one design,
 * {@code -p language=PYTHON} Python's task B, {@code -p source=SAME} the same text each time.
 */
@Fork(1) // inherits the JIT flags benchmarks/run starts JMH with; each trial checks the runtime, the workers' too
public class ProcessIsolationBenchmark {

  /** Where the runs execute. */
  public enum Design {
    /** The default: guest code on the sandbox's threads in the benchmark's JVM. */
    IN_PROCESS {
      @Override
      Isolation isolation(int threads) {
        return Isolation.inProcess();
      }
    },
    /**
     * One worker per calling thread ({@code workers(threads)}), no spare, never retired
     * ({@code maxRunsPerWorker(1_000_000)}): the cost of the channel and the wall on a warm worker.
     */
    PROCESS {
      @Override
      Isolation isolation(int threads) {
        return Isolation.processBuilder().workers(threads).spareWorkers(0).maxRunsPerWorker(1_000_000).build();
      }
    },
    /**
     * {@link Isolation#process()} as it comes: 2 workers, 1 spare, each retired after 200 runs, so the
     * measurement includes fresh worker JVMs (started beside the runs, cold when they take their first).
     */
    PROCESS_DEFAULTS {
      @Override
      Isolation isolation(int threads) {
        return Isolation.process();
      }
    };

    abstract Isolation isolation(int threads);
  }

  /** A sandbox of one design, shared by the benchmark's threads. */
  @State(Scope.Benchmark)
  public abstract static class Trial {
    @Param({"IN_PROCESS", "PROCESS", "PROCESS_DEFAULTS"})
    public Design design;

    @Param({"B"})
    public PeerTask task;

    @Param({"UNIQUE"})
    public PeerTask.SourceMode source;

    @Param({"JAVASCRIPT"})
    public Language language;

    PolyglotSandbox sandbox;
    private String code;
    private final AtomicLong invocations = new AtomicLong();

    @Setup(Level.Trial)
    public void open(BenchmarkParams params) {
      code = task.code(language);
      sandbox = PolyglotSandbox.builder().policy(Peer.policy(language)).warmContexts(1)
          .isolation(design.isolation(params.getThreads())).build();
      try {
        Object first = run();
        RuntimeCheck.require("PolyglotSandbox " + design, sandbox.runtimeName(), sandbox.isOptimizingRuntime());
        System.out.println("# " + design + ": " + sandbox.isolationInForce());
        System.out.println("# " + design + " task " + task + " " + source + " " + language + " = " + first
            + " (checked)");
      } catch (RuntimeException e) {
        sandbox.close();
        throw e;
      }
    }

    @TearDown(Level.Trial)
    public void close() {
      if (sandbox != null) {
        sandbox.close();
      }
    }

    /** One run of text number n, its answer checked. */
    Object run() {
      ExecutionResult r = sandbox.run(language, source.text(code, language, invocations.incrementAndGet()));
      if (!r.isOk()) {
        throw new IllegalStateException(design + ": the run failed: " + r);
      }
      return Answers.require(design, task, r.value(), task.expected);
    }
  }

  /**
   * {@link #latency}'s trial: in measurement iterations, before each invocation (not measured) it waits
   * {@code pauseMillis}, time for the warm pool to make its next context in either design, so each run
   * finds one ready, as {@code PeersBenchmark}'s pooled design does; in-process it also waits until the
   * pool is full (with process isolation the pool is in the worker, out of the host's sight, hence the
   * pause). Warm-up iterations run back to back, so that the JIT sees many more runs.
   */
  @State(Scope.Benchmark)
  public static class Latency extends Trial {
    @Param({"10"})
    public int pauseMillis;

    private boolean measuring;

    @Setup(Level.Iteration)
    public void iteration(IterationParams params) {
      measuring = params.getType() == IterationType.MEASUREMENT;
    }

    @Setup(Level.Invocation)
    public void pause() {
      if (!measuring) {
        return;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pauseMillis));
      if (design == Design.IN_PROCESS) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (sandbox.warmContexts(language) < 1) {
          if (System.nanoTime() > end) {
            throw new IllegalStateException("the warm pool did not refill within 60 s");
          }
          LockSupport.parkNanos(100_000);
        }
      }
    }
  }

  /** {@link #throughput}'s trial: nothing between invocations. */
  @State(Scope.Benchmark)
  public static class Saturated extends Trial {}

  /** One run, one caller, one worker (with process isolation). */
  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 60, time = 1, timeUnit = TimeUnit.SECONDS)
  @Measurement(iterations = 5, time = 4, timeUnit = TimeUnit.SECONDS)
  @Threads(1)
  public Object latency(Latency trial) {
    return trial.run();
  }

  /** Runs back to back from two callers; with process isolation two workers. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Warmup(iterations = 60, time = 2, timeUnit = TimeUnit.SECONDS)
  @Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
  @Threads(2)
  public Object throughput(Saturated trial) {
    return trial.run();
  }
}
