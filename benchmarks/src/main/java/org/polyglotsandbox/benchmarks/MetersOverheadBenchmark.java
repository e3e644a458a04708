package org.polyglotsandbox.benchmarks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Locale;
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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.micrometer.SandboxMetrics;
import org.polyglotsandbox.micrometer.SandboxObservations;

/**
 * What polyglot-sandbox-micrometer costs a run: task B ({@link PeerTask#B}, 100 rows summed in JavaScript,
 * from the warm pool) on a sandbox with no observer, with its meters in a {@link SimpleMeterRegistry}
 * ({@link SandboxMetrics}), and with the meters and an Observation per run in a registry with one handler
 * ({@link SandboxObservations}; a handler that does nothing, so the cost measured is the module's and
 * Micrometer's, not a tracer's). Target: the meters cost at most 2% of task B's latency.
 *
 * <p>Whole calls with and without the meters differ by less than their run-to-run spread on two cores, so
 * each trial with something attached also measures the attached observers' own time inside every run:
 * observers are told in the order they were added, so a clock observer added before them and one added
 * after bracket exactly their work at the run's start and at its end. At the end of the trial it prints
 * that time per measured run, and its share of the trial's mean call ({@code # observers' own time}).
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * benchmarks/run MetersOverheadBenchmark
 * }</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
// Runs keep getting faster for half a minute while the JIT compiles the run's path (7 ms in the first
// second, under 0.5 ms after 20 s on two cores): a shorter warm-up measures the compiler, not the meters.
@Warmup(iterations = 40, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 10, time = 1, timeUnit = TimeUnit.SECONDS)
@Fork(2)
@State(Scope.Benchmark)
public class MetersOverheadBenchmark {
  /** What is attached to the sandbox. */
  public enum Attached {
    /** Nothing: no run observer. */
    NONE,
    /** {@link SandboxMetrics} in a {@link SimpleMeterRegistry}. */
    METERS,
    /** The meters and {@link SandboxObservations} in a registry with a handler that does nothing. */
    METERS_AND_OBSERVATIONS
  }

  @Param
  public Attached attached;

  private PolyglotSandbox sandbox;
  private String code;

  // The bracketing clock readings of the current run, and their sums over the measurement iterations.
  private long startBefore;
  private long startAfter;
  private long endBefore;
  private long endAfter;
  private boolean measuring;
  private long observedNanos;
  private long observedRuns;
  private long callNanos;

  @Setup(Level.Trial)
  public void setUp() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
            .limits(Limits.builder().wallTime(Duration.ofSeconds(10)).build()).build())
        .warmContexts(2)
        .build();
    if (attached != Attached.NONE) {
      sandbox.addRunObserver(script -> {
        startBefore = System.nanoTime();
        return (result, failure) -> endBefore = System.nanoTime();
      });
      SandboxMetrics.bind(sandbox, new SimpleMeterRegistry());
    }
    if (attached == Attached.METERS_AND_OBSERVATIONS) {
      SandboxObservations.bind(sandbox, observationRegistry());
    }
    if (attached != Attached.NONE) {
      sandbox.addRunObserver(script -> {
        startAfter = System.nanoTime();
        return (result, failure) -> endAfter = System.nanoTime();
      });
    }
    code = PeerTask.B.code(Language.JAVASCRIPT);
    check(sandbox.run(Language.JAVASCRIPT, code));
  }

  @Setup(Level.Iteration)
  public void iteration(IterationParams params) {
    measuring = params.getType() == IterationType.MEASUREMENT;
  }

  @Benchmark
  public Object taskB() {
    long t0 = System.nanoTime();
    ExecutionResult r = check(sandbox.run(Language.JAVASCRIPT, code));
    if (measuring && attached != Attached.NONE) {
      callNanos += System.nanoTime() - t0;
      observedNanos += (startAfter - startBefore) + (endAfter - endBefore);
      observedRuns++;
    }
    return r;
  }

  /** A registry with one handler that does nothing: the module's and Micrometer's cost, not a tracer's. */
  static ObservationRegistry observationRegistry() {
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {
      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }
    });
    return registry;
  }

  private static ExecutionResult check(ExecutionResult r) {
    if (!r.isOk() || ((Number) r.value()).longValue() != PeerTask.B.expected) {
      throw new IllegalStateException("task B answered " + r);
    }
    return r;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (observedRuns > 0) {
      System.out.printf(Locale.ROOT, "%n# observers' own time (%s): %.2f us per run over %d measured runs, %.2f%% of"
              + " their mean call of %.1f us%n", attached, observedNanos / 1e3 / observedRuns, observedRuns,
          100.0 * observedNanos / callNanos, callNanos / 1e3 / observedRuns);
    }
    sandbox.close();
  }
}
