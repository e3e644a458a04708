package org.polyglotsandbox.benchmarks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;
import org.polyglotsandbox.micrometer.SandboxMetrics;
import org.polyglotsandbox.micrometer.SandboxObservations;

/**
 * The meters' own time in each run, measured inside the run's path rather than as a difference of two noisy
 * latencies: observers are told in the order they were added, so a clock observer before and after
 * {@link SandboxMetrics} (and {@link SandboxObservations}) brackets exactly their work at the run's start and
 * end. Prints, for task B ({@link PeerTask#B}, JavaScript, warm pool) after a warm-up, the median and 99th
 * percentile of that time and of the whole call, their ratio, and the whole call on a second sandbox without
 * observers, called in turn with the first. {@link MetersOverheadBenchmark} is the
 * JMH comparison of whole calls; on a loaded machine its spread hides a 2% difference, this does not.
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.MetersCostPerRun benchmarks/run [runs [observations]]
 * }</pre>
 */
public final class MetersCostPerRun {
  private MetersCostPerRun() {}

  /** Clock readings of one run, at its start and its end, before and after the observers between. */
  private static final class Clock {
    long startBefore;
    long startAfter;
    long endBefore;
    long endAfter;
  }

  public static void main(String[] args) {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
            .limits(Limits.builder().wallTime(Duration.ofSeconds(10)).build()).build())
        .warmContexts(2).build()) {
      Clock clock = new Clock();
      sandbox.addRunObserver(script -> {
        clock.startBefore = System.nanoTime();
        return (result, failure) -> clock.endBefore = System.nanoTime();
      });
      SandboxMetrics.bind(sandbox, new SimpleMeterRegistry());
      boolean observations = args.length > 1 && args[1].equals("observations");
      if (observations) {
        SandboxObservations.bind(sandbox, MetersOverheadBenchmark.observationRegistry());
      }
      sandbox.addRunObserver(script -> {
        clock.startAfter = System.nanoTime();
        return (result, failure) -> clock.endAfter = System.nanoTime();
      });
      String code = PeerTask.B.code(Language.JAVASCRIPT);
      long[] meters = new long[runs];
      long[] calls = new long[runs];
      long[] bare = new long[runs];
      try (PolyglotSandbox plain = PolyglotSandbox.builder()
          .policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
              .limits(Limits.builder().wallTime(Duration.ofSeconds(10)).build()).build())
          .warmContexts(2).build()) {
        // The same task on a sandbox without observers, call for call in turn, so that the machine's load
        // drifts over both alike.
        for (int i = -runs / 2; i < runs; i++) {   // the first half-count is warm-up
          long t0 = System.nanoTime();
          check(sandbox.run(Language.JAVASCRIPT, code));
          long t1 = System.nanoTime();
          check(plain.run(Language.JAVASCRIPT, code));
          long t2 = System.nanoTime();
          if (i >= 0) {
            meters[i] = (clock.startAfter - clock.startBefore) + (clock.endAfter - clock.endBefore);
            calls[i] = t1 - t0;
            bare[i] = t2 - t1;
          }
        }
      }
      Arrays.sort(meters);
      Arrays.sort(calls);
      Arrays.sort(bare);
      System.out.printf(Locale.ROOT, "%d runs of task B with %s: call median %.1f us, p99 %.1f us;"
              + " without observers, in turn: median %.1f us, p99 %.1f us; the observers' own time median %.2f us,"
              + " p99 %.2f us; median share %.2f%%%n",
          runs, observations ? "meters and observations" : "meters", calls[runs / 2] / 1e3, calls[runs * 99 / 100] / 1e3,
          bare[runs / 2] / 1e3, bare[runs * 99 / 100] / 1e3,
          meters[runs / 2] / 1e3, meters[runs * 99 / 100] / 1e3, 100.0 * meters[runs / 2] / calls[runs / 2]);
    }
  }

  private static void check(ExecutionResult r) {
    if (!r.isOk() || ((Number) r.value()).longValue() != PeerTask.B.expected) {
      throw new IllegalStateException("task B answered " + r);
    }
  }
}
