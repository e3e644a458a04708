package org.polyglotsandbox.benchmarks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
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
import org.polyglotsandbox.micrometer.SandboxMetrics;
import org.polyglotsandbox.micrometer.SandboxObservations;

/**
 * What polyglot-sandbox-micrometer costs a run: task B ({@link PeerTask#B}, 100 rows summed in JavaScript,
 * from the warm pool) on a sandbox with no observer, with its meters in a {@link SimpleMeterRegistry}
 * ({@link SandboxMetrics}), and with the meters and an Observation per run in a registry with one handler
 * ({@link SandboxObservations}; a handler that does nothing, so the cost measured is the module's and
 * Micrometer's, not a tracer's). Target: the meters cost at most 2% of task B's latency.
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

  @Setup(Level.Trial)
  public void setUp() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
            .limits(Limits.builder().wallTime(Duration.ofSeconds(10)).build()).build())
        .warmContexts(2)
        .build();
    if (attached != Attached.NONE) {
      SandboxMetrics.bind(sandbox, new SimpleMeterRegistry());
    }
    if (attached == Attached.METERS_AND_OBSERVATIONS) {
      ObservationRegistry registry = ObservationRegistry.create();
      registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {
        @Override
        public boolean supportsContext(Observation.Context context) {
          return true;
        }
      });
      SandboxObservations.bind(sandbox, registry);
    }
    code = PeerTask.B.code(Language.JAVASCRIPT);
    check(sandbox.run(Language.JAVASCRIPT, code));
  }

  @Benchmark
  public Object taskB() {
    return check(sandbox.run(Language.JAVASCRIPT, code));
  }

  private static ExecutionResult check(ExecutionResult r) {
    if (!r.isOk() || ((Number) r.value()).longValue() != PeerTask.B.expected) {
      throw new IllegalStateException("task B answered " + r);
    }
    return r;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    sandbox.close();
  }
}
