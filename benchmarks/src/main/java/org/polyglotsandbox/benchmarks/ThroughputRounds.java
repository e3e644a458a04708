package org.polyglotsandbox.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.polyglotsandbox.Language;

/**
 * Saturated throughput of two or more JavaScript {@link Peer designs} measured alternately in one JVM:
 * the designs are opened once, warmed up together, then run in rounds, each round giving every design
 * the same number of seconds with {@code threads} client threads calling back to back, in ABBA order (A B, then B A), so that a change of the machine's load meets both designs alike.
 * Each round prints each design's tasks per second, the ratio to the first design, and the 1-minute load
 * average, then each design's CPU time per task: the whole process's (JIT compiler and GC included) and
 * that of each group of Java threads (the client threads, the sandbox's run threads, its warm-pool
 * thread, ...), and on Linux a second line: the process's CPU in the kernel ({@code system}, from
 * {@code /proc/self/stat}) and the JVM's own threads that are not Java threads (GC, JIT compilers), by
 * their OS names (from {@code /proc/self/task}, 10 ms ticks), and the heap all threads allocated per
 * task. On a saturated machine throughput is the cores divided by the CPU per task, so the CPU
 * per task is the steadier number when the load changes, and on a machine shared with other work the
 * only fair one: there a design with more runnable threads gets a larger share of the cores, and so more
 * tasks per second, for the same work. A thread group whose threads ended during a burst is left out of
 * that burst's breakdown. The report ends, per thread count, with the median ratio of tasks per second
 * of every pair of designs (each round's ratio taken within that round) and of tasks per CPU-second to
 * the first design. Not JMH: JMH runs each design in its
 * own fork, one after the other, which on a shared 2-core machine compares different loads.
 * {@link PeersThroughputBenchmark} is the JMH counterpart.
 *
 * <p>Client threads come from each design's {@link Peer.Runner#clientThreads()} (the sandbox's own
 * caller threads for {@link Peer#SANDBOX_CALLER_THREADS}), renamed {@code client-N}.
 *
 * <p>Task B with a text never seen before ({@link PeerTask.SourceMode#UNIQUE}), every answer checked.
 * Defaults: 2 and 8 threads, 4 rounds of 4 s, 160 s of warm-up (on a loaded 2-core machine the JIT was
 * still compiling the sandbox's path after 40,000 runs). Results: docs/performance.md, "Saturated throughput".
 *
 * <pre>{@code
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.ThroughputRounds benchmarks/run \
 *     [threads,...] [rounds] [seconds per design and round] [warm-up seconds] [design,...]
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.ThroughputRounds benchmarks/run 2,8 4 5 160 RAW_SHARED_ENGINE,SANDBOX_POOLED
 * }</pre>
 */
public final class ThroughputRounds {
  private ThroughputRounds() {}

  public static void main(String[] args) throws Exception {
    int[] threadCounts = Arrays.stream((args.length > 0 ? args[0] : "2,8").split(","))
        .mapToInt(Integer::parseInt).toArray();
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 4;
    double warmUpSeconds = args.length > 3 ? Double.parseDouble(args[3]) : 160;
    List<Peer> designs = Arrays.stream((args.length > 4 ? args[4] : "RAW_SHARED_ENGINE,SANDBOX_POOLED").split(","))
        .map(Peer::valueOf).toList();
    if (designs.size() < 2) {
      throw new IllegalArgumentException("give at least two designs to compare, not " + designs);
    }
    Map<Peer, PeerTrial> trials = new LinkedHashMap<>();
    try {
      for (Peer d : designs) {
        trials.put(d, PeerTrial.open(d, PeerTask.B, PeerTask.SourceMode.UNIQUE, Language.JAVASCRIPT));
      }
      AtomicLong texts = new AtomicLong(1);
      int maxThreads = Arrays.stream(threadCounts).max().orElse(2);
      // Warm-up in slices, every design in turn, so each one's code is compiled before the first round.
      long slices = Math.max(1, Math.round(warmUpSeconds / 2));
      for (long s = 0; s < slices; s++) {
        for (PeerTrial t : trials.values()) {
          burst(t, maxThreads, warmUpSeconds / slices / designs.size(), texts);
        }
      }
      System.out.printf(Locale.ROOT, "# warm-up done (%.0f s); load %s%n", warmUpSeconds, load());
      for (int threads : threadCounts) {
        List<Map<Peer, Double>> roundRates = new ArrayList<>();
        Map<Peer, List<Double>> cpus = new LinkedHashMap<>();
        Map<Peer, List<Double>> allocations = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
          List<Peer> order = new ArrayList<>(designs);
          if (round % 2 == 1) {
            java.util.Collections.reverse(order);
          }
          Map<Peer, Double> rates = new LinkedHashMap<>();
          Map<Peer, Burst> bursts = new LinkedHashMap<>();
          for (Peer d : order) {
            Burst b = burst(trials.get(d), threads, seconds, texts);
            bursts.put(d, b);
            rates.put(d, b.perSecond());
          }
          double first = rates.get(designs.get(0));
          StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "threads %d round %d:", threads, round + 1));
          for (Peer d : designs) {
            line.append(String.format(Locale.ROOT, " %s %.0f/s (%.2fx)", d, rates.get(d), rates.get(d) / first));
          }
          roundRates.add(rates);
          System.out.println(line + "; load " + load());
          for (Peer d : designs) {
            Burst b = bursts.get(d);
            cpus.computeIfAbsent(d, k -> new ArrayList<>()).add(b.cpuMicrosPerTask());
            allocations.computeIfAbsent(d, k -> new ArrayList<>()).add(b.allocatedKibPerTask());
            System.out.println(String.format(Locale.ROOT, "    %s CPU per task %.0f us, heap allocated %.0f KiB:", d,
                b.cpuMicrosPerTask(), b.allocatedKibPerTask()) + largestFirst(b.groupMicrosPerTask()));
            if (!b.osMicrosPerTask().isEmpty()) {
              System.out.println("      of which" + largestFirst(b.osMicrosPerTask()));
            }
          }
        }
        // Every pair, each round's ratio taken within the round (both designs met the same load).
        for (int i = 0; i < designs.size(); i++) {
          for (int j = i + 1; j < designs.size(); j++) {
            Peer base = designs.get(i);
            Peer other = designs.get(j);
            List<Double> ratios = roundRates.stream().map(r -> r.get(other) / r.get(base)).toList();
            System.out.printf(Locale.ROOT, "threads %d: %s / %s, median ratio %.2f (rounds: %s)%n", threads,
                other, base, median(ratios), ratios.stream().map(r -> String.format(Locale.ROOT, "%.2f", r)).toList());
          }
        }
        double baseCpu = median(cpus.get(designs.get(0)));
        for (Peer d : designs.subList(1, designs.size())) {
          double cpu = median(cpus.get(d));
          System.out.printf(Locale.ROOT, "threads %d: %s median CPU per task %.0f us against %.0f us for %s:"
              + " tasks per CPU-second %.2fx%n", threads, d, cpu, baseCpu, designs.get(0), baseCpu / cpu);
        }
        for (Peer d : designs) {
          System.out.printf(Locale.ROOT, "threads %d: %s median heap allocated per task %.0f KiB%n", threads, d,
              median(allocations.get(d)));
        }
      }
    } finally {
      trials.values().forEach(PeerTrial::close);
    }
  }

  private static double median(List<Double> values) {
    List<Double> v = new ArrayList<>(values);
    v.sort(null);
    int n = v.size();
    return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }

  /** " name µs" for each entry of at least 1 µs per task, the largest first. */
  private static String largestFirst(Map<String, Double> microsPerTask) {
    StringBuilder out = new StringBuilder();
    microsPerTask.entrySet().stream().filter(e -> e.getValue() >= 1)
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(e -> out.append(String.format(Locale.ROOT, " %s %.0f", e.getKey(), e.getValue())));
    return out.toString();
  }

  /** What one burst measured: tasks per second, and CPU per task (the process's, and by thread group). */
  private record Burst(double perSecond, double cpuMicrosPerTask, Map<String, Double> groupMicrosPerTask,
      Map<String, Double> osMicrosPerTask, double allocatedKibPerTask) {}

  /** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
  private static final double TICKS = 100;

  /**
   * From /proc (empty elsewhere): the process's kernel CPU ({@code system}) in ticks, and per OS thread
   * name without numbers, the CPU of the threads that are not the sandbox's or the clients'.
   */
  private static Map<String, Long> osTicks() {
    Map<String, Long> sums = new TreeMap<>();
    try {
      String[] self = afterName(Files.readString(Path.of("/proc/self/stat")));
      sums.put("system", Long.parseLong(self[12]));
      try (var tasks = Files.list(Path.of("/proc/self/task"))) {
        for (Path task : (Iterable<Path>) tasks::iterator) {
          String stat;
          try {
            stat = Files.readString(task.resolve("stat"));
          } catch (java.io.IOException ended) {
            continue;
          }
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+", "N");
          if (name.startsWith("polyglot-sandbo") || name.startsWith("client-")) {
            continue;
          }
          String[] f = afterName(stat);
          sums.merge("[" + name + "]", Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
        }
      }
    } catch (Exception e) {
      return Map.of();
    }
    return sums;
  }

  /** The fields of a /proc stat line after its name: index 0 is the state, 11 utime, 12 stime. */
  private static String[] afterName(String stat) {
    return stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** CPU nanoseconds so far of the JVM's live threads, summed by {@link #group}. */
  private static Map<String, Long> threadCpu() {
    Map<String, Long> sums = new TreeMap<>();
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info != null) {
        long cpu = THREADS.getThreadCpuTime(info.getThreadId());
        if (cpu > 0) {
          sums.merge(group(info.getThreadName()), cpu, Long::sum);
        }
      }
    }
    return sums;
  }

  /** A thread's group: its name without numbers (so the sandbox's run threads are one group). */
  private static String group(String name) {
    return name.replaceAll("[0-9]+", "N");
  }

  /** Heap bytes allocated so far by all the JVM's threads, ended ones included (-1 where unsupported). */
  private static long allocated() {
    return THREADS instanceof com.sun.management.ThreadMXBean t ? t.getTotalThreadAllocatedBytes() : -1;
  }

  /** The process's CPU time, all threads, in ns. */
  static long processCpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** {@code threads} threads calling {@code trial} back to back for {@code seconds}. */
  private static Burst burst(PeerTrial trial, int threads, double seconds, AtomicLong texts)
      throws InterruptedException {
    LongAdder done = new LongAdder();
    LongAdder clientCpu = new LongAdder();
    CountDownLatch start = new CountDownLatch(1);
    long[] window = new long[1];
    List<Thread> workers = new ArrayList<>();
    Throwable[] failure = new Throwable[1];
    for (int i = 0; i < threads; i++) {
      Thread worker = trial.clientThreads().newThread(() -> {
        try {
          start.await();
          long end = window[0];
          while (System.nanoTime() < end) {
            trial.run(texts.getAndIncrement());
            done.increment();
          }
          clientCpu.add(THREADS.getCurrentThreadCpuTime());
        } catch (Throwable t) {
          synchronized (failure) {
            failure[0] = t;
          }
        }
      });
      worker.setName("client-" + i);
      worker.start();
      workers.add(worker);
    }
    Map<String, Long> before = threadCpu();
    Map<String, Long> osBefore = osTicks();
    long cpu0 = processCpu();
    long allocated0 = allocated();
    long t0 = System.nanoTime();
    window[0] = t0 + (long) (seconds * 1e9);
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    long elapsed = System.nanoTime() - t0;
    long cpu = processCpu() - cpu0;
    long allocated = allocated() - allocated0;
    Map<String, Long> after = threadCpu();
    Map<String, Long> osAfter = osTicks();
    if (failure[0] != null) {
      throw new IllegalStateException("a client thread failed", failure[0]);
    }
    double tasks = Math.max(1, done.sum());
    Map<String, Double> groups = new TreeMap<>();
    groups.put("client-N", clientCpu.sum() / 1e3 / tasks);
    after.forEach((g, n) -> {
      long d = n - before.getOrDefault(g, 0L);
      if (d > 0 && !g.startsWith("client-")) {
        groups.put(g, d / 1e3 / tasks);
      }
    });
    Map<String, Double> os = new TreeMap<>();
    osAfter.forEach((g, n) -> {
      long d = n - osBefore.getOrDefault(g, 0L);
      if (d > 0) {
        os.put(g, d / TICKS * 1e6 / tasks);
      }
    });
    return new Burst(done.sum() / (elapsed / 1e9), cpu / 1e3 / tasks, groups, os, allocated / 1024.0 / tasks);
  }

  private static String load() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (Exception e) {
      return "?";
    }
  }
}
