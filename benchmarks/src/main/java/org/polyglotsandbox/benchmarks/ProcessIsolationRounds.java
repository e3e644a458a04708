package org.polyglotsandbox.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * {@link ProcessIsolationBenchmark}'s two questions asked in rounds in one JVM, so that a shared machine's
 * changing load meets both designs alike: the same sandbox in-process and with process isolation (2
 * workers, no spare, never retired), both open at once, warmed up together, then measured in rounds in
 * ABBA order. Each round gives each design:
 * <ul>
 *   <li>latency: for {@code seconds}, one caller, a pause of {@code pauseMillis} before each run (in-process
 *       it also waits until its pool is full), task B with a new text; the median, p90 and p99 of the
 *       caller's time, and the median of what the result's {@code usage()} does not account for (the
 *       caller's time less the run's queue, set-up and wall time): for the in-process design the hand-offs to
 *       and from the run thread, for process isolation those plus the channel both ways;</li>
 *   <li>throughput: for {@code seconds}, two callers back to back; tasks per second and the CPU per task,
 *       from {@code /proc}: of this JVM, and with process isolation of every process below it too (the
 *       workers' JVMs, bwrap).</li>
 * </ul>
 * Each line carries the 1-minute load average. The report ends with the median over rounds of each
 * round's difference of latency medians and ratio of throughputs. Not JMH: JMH runs each design in its
 * own fork, one after the other, which on a loaded 2-core machine compares different loads.
 *
 * <pre>{@code
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.ProcessIsolationRounds benchmarks/run [rounds] [seconds] [warm-up seconds] [pauseMillis]
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.ProcessIsolationRounds benchmarks/run 6 5 120 10
 * }</pre>
 */
public final class ProcessIsolationRounds {
  private ProcessIsolationRounds() {}

  private static final Language LANGUAGE = Language.JAVASCRIPT;
  private static final PeerTask TASK = PeerTask.B;
  private static final AtomicLong TEXTS = new AtomicLong();

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 6;
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 5;
    double warmUpSeconds = args.length > 2 ? Double.parseDouble(args[2]) : 120;
    int pauseMillis = args.length > 3 ? Integer.parseInt(args[3]) : 10;
    Map<String, PolyglotSandbox> designs = new LinkedHashMap<>();
    try {
      designs.put("in-process", open(Isolation.inProcess()));
      designs.put("process", open(Isolation.processBuilder().workers(2).spareWorkers(0).maxRunsPerWorker(1_000_000)
          .build()));
      for (var d : designs.entrySet()) {
        System.out.println("# " + d.getKey() + ": " + d.getValue().isolationInForce() + "; runtime "
            + d.getValue().runtimeName());
      }
      long slices = Math.max(1, Math.round(warmUpSeconds / 4));
      for (long s = 0; s < slices; s++) {
        for (PolyglotSandbox sandbox : designs.values()) {
          burst(sandbox, 2, warmUpSeconds / slices / designs.size() / 2);
          latency(sandbox, warmUpSeconds / slices / designs.size() / 2, pauseMillis);
        }
      }
      System.out.printf("# %d rounds of %.0f s per design and question, pause %d ms, %.0f s warm-up; task B, UNIQUE%n",
          rounds, seconds, pauseMillis, warmUpSeconds);
      System.out.println("round\tdesign\tload\tlatency n\tmedian ms\tp90 ms\tp99 ms\tunaccounted median ms"
          + "\tload\ttasks/s\tCPU ms/task");
      List<String> names = new ArrayList<>(designs.keySet());
      double[][] medians = new double[rounds][2];
      double[][] rates = new double[rounds][2];
      double[][] p99s = new double[rounds][2];
      double[][] cpu = new double[rounds][2];
      for (int round = 0; round < rounds; round++) {
        int[] order = round % 2 == 0 ? new int[] {0, 1} : new int[] {1, 0};
        for (int i : order) {
          PolyglotSandbox sandbox = designs.get(names.get(i));
          double loadLatency = load();
          Latencies l = latency(sandbox, seconds, pauseMillis);
          double loadBurst = load();
          Burst b = burst(sandbox, 2, seconds);
          medians[round][i] = l.percentile(0.5);
          p99s[round][i] = l.percentile(0.99);
          rates[round][i] = b.tasksPerSecond();
          cpu[round][i] = b.cpuMillisPerTask();
          System.out.printf(Locale.ROOT, "%d\t%s\t%.2f\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.0f\t%.3f%n", round + 1,
              names.get(i), loadLatency, l.count(), l.percentile(0.5), l.percentile(0.9), l.percentile(0.99),
              l.unaccountedMedian(), loadBurst, b.tasksPerSecond(), b.cpuMillisPerTask());
        }
      }
      double[] deltas = new double[rounds];
      double[] p99Deltas = new double[rounds];
      double[] ratios = new double[rounds];
      double[] cpuRatios = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        deltas[r] = medians[r][1] - medians[r][0];
        p99Deltas[r] = p99s[r][1] - p99s[r][0];
        ratios[r] = rates[r][1] / rates[r][0];
        cpuRatios[r] = cpu[r][1] / cpu[r][0];
      }
      System.out.printf(Locale.ROOT, "# process - in-process, latency median: %.3f ms (rounds %.3f to %.3f); p99: %.3f ms"
          + " (%.3f to %.3f)%n", median(deltas), min(deltas), max(deltas), median(p99Deltas), min(p99Deltas),
          max(p99Deltas));
      System.out.printf(Locale.ROOT, "# process / in-process, tasks per second at 2 threads: %.2fx (rounds %.2f to %.2f);"
          + " CPU per task: %.2fx (%.2f to %.2f)%n", median(ratios), min(ratios), max(ratios), median(cpuRatios),
          min(cpuRatios), max(cpuRatios));
    } finally {
      designs.values().forEach(PolyglotSandbox::close);
    }
  }

  private static PolyglotSandbox open(Isolation isolation) {
    PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(Peer.policy(LANGUAGE)).warmContexts(1)
        .isolation(isolation).build();
    try {
      run(sandbox);
      RuntimeCheck.require("PolyglotSandbox " + isolation, sandbox.runtimeName(), sandbox.isOptimizingRuntime());
      return sandbox;
    } catch (RuntimeException e) {
      sandbox.close();
      throw e;
    }
  }

  private static ExecutionResult run(PolyglotSandbox sandbox) {
    ExecutionResult r = sandbox.run(LANGUAGE, PeerTask.SourceMode.UNIQUE.text(TASK.code(LANGUAGE), LANGUAGE,
        TEXTS.incrementAndGet()));
    if (!r.isOk()) {
      throw new IllegalStateException("the run failed: " + r);
    }
    Answers.require("sandbox", TASK, r.value(), TASK.expected);
    return r;
  }

  /** The caller's time of each run, and of what its usage does not account for, in nanoseconds. */
  private record Latencies(long[] total, long[] unaccounted, int count) {
    double percentile(double p) {
      return percentileMillis(total, count, p);
    }

    double unaccountedMedian() {
      return percentileMillis(unaccounted, count, 0.5);
    }

    private static double percentileMillis(long[] values, int count, double p) {
      long[] sorted = Arrays.copyOf(values, count);
      Arrays.sort(sorted);
      return sorted[Math.min(count - 1, (int) Math.ceil(p * count) - 1)] / 1e6;
    }
  }

  private static Latencies latency(PolyglotSandbox sandbox, double seconds, int pauseMillis) {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    long[] total = new long[1024];
    long[] unaccounted = new long[1024];
    int n = 0;
    while (System.nanoTime() < end) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pauseMillis));
      long poolDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (inProcess(sandbox) && sandbox.warmContexts(LANGUAGE) < 1) {
        if (System.nanoTime() > poolDeadline) {
          throw new IllegalStateException("the warm pool did not refill within 60 s");
        }
        LockSupport.parkNanos(100_000);
      }
      long start = System.nanoTime();
      ExecutionResult r = run(sandbox);
      long took = System.nanoTime() - start;
      if (n == total.length) {
        total = Arrays.copyOf(total, 2 * n);
        unaccounted = Arrays.copyOf(unaccounted, 2 * n);
      }
      ExecutionResult.Usage u = r.usage();
      total[n] = took;
      unaccounted[n] = took - u.wallTime().toNanos() - u.setupTime().toNanos() - u.queueTime().toNanos();
      n++;
    }
    return new Latencies(total, unaccounted, n);
  }

  private record Burst(long tasks, double seconds, double cpuSeconds) {
    double tasksPerSecond() {
      return tasks / seconds;
    }

    double cpuMillisPerTask() {
      return cpuSeconds * 1e3 / tasks;
    }
  }

  /** {@code threads} callers back to back for {@code seconds}. */
  private static Burst burst(PolyglotSandbox sandbox, int threads, double seconds) throws InterruptedException {
    AtomicLong tasks = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch go = new CountDownLatch(1);
    long[] window = new long[2];
    List<Thread> clients = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      clients.add(Thread.ofPlatform().name("client-" + t).start(() -> {
        try {
          go.await();
          while (System.nanoTime() < window[1]) {
            run(sandbox);
            tasks.incrementAndGet();
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    boolean tree = !inProcess(sandbox);
    double cpuBefore = cpuSeconds(tree);
    window[0] = System.nanoTime();
    window[1] = window[0] + (long) (seconds * 1e9);
    go.countDown();
    for (Thread c : clients) {
      c.join();
    }
    long ended = System.nanoTime();
    double cpuAfter = cpuSeconds(tree);
    if (failure.get() != null) {
      throw new IllegalStateException("a client failed", failure.get());
    }
    return new Burst(tasks.get(), (ended - window[0]) / 1e9, cpuAfter - cpuBefore);
  }

  private static boolean inProcess(PolyglotSandbox sandbox) {
    return sandbox.isolationInForce().startsWith("in-process");
  }

  /**
   * CPU seconds of this JVM (utime + stime, 10 ms ticks) and, with {@code tree}, of every live process below
   * it. In-process designs are charged this JVM only: the other design's idle workers are not theirs.
   */
  static double cpuSeconds(boolean tree) {
    double total = processCpuSeconds(ProcessHandle.current().pid());
    if (tree) {
      for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
        total += processCpuSeconds(p.pid());
      }
    }
    return total;
  }

  static double processCpuSeconds(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    } catch (IOException | RuntimeException e) {
      return 0; // the process has ended
    }
  }

  static double load() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  private static double median(double[] a) {
    double[] s = a.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static double min(double[] a) {
    return Arrays.stream(a).min().orElse(Double.NaN);
  }

  private static double max(double[] a) {
    return Arrays.stream(a).max().orElse(Double.NaN);
  }
}
