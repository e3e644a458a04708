package org.polyglotsandbox.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * The memory process isolation costs and saves, for a policy that allows JavaScript and Python:
 * <ul>
 *   <li>{@code worker}: the resident memory of one idle worker JVM ({@code VmRSS}, with {@code RssAnon}
 *       and {@code RssFile}, from {@code /proc/PID/status} of the {@code java} process below this JVM), a
 *       sandbox with {@code workers(1).spareWorkers(0)} and {@code warmContexts(0)} or {@code (1)}, once
 *       it is ready and its RSS has settled (changed by under 2 MiB in 5 s; at most 2 minutes);</li>
 *   <li>what that memory is made of: a JVM started with the worker's own command line (read from
 *       {@code /proc}) plus {@code -XX:NativeMemoryTracking=summary}, unwalled, with this class as its main
 *       class, builds the sandbox the worker builds and prints its RSS, heap and native memory by category,
 *       idle and again after a full collection;</li>
 *   <li>{@code host}: this side's cost after the same {@code runs} runs (task B, a new text each time,
 *       JavaScript and Python in turn), in-process against process isolation, each in a JVM of its own
 *       started with this JVM's flags: the host's used heap after a full collection, its committed heap
 *       and its RSS, and the worker's RSS after those runs.</li>
 * </ul>
 * Designs and set-ups alternate within each round. Each row has the 1-minute load average.
 *
 * <pre>{@code
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.WorkerMemory benchmarks/run [rounds] [runs]
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.WorkerMemory benchmarks/run 2 200
 * }</pre>
 */
public final class WorkerMemory {
  private WorkerMemory() {}

  private static final double MIB = 1024.0 * 1024.0;

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--host")) {
      host(args[1], Integer.parseInt(args[2]));
      return;
    }
    if (args.length > 0 && args[0].equals("--probe")) {
      probe(args[1]);
      return;
    }
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    System.out.println("# idle worker, policy JavaScript + Python; MiB from /proc/PID/status");
    System.out.println("round\twarmContexts\tVmRSS\tRssAnon\tRssFile\tVmHWM\tsettled after s\tload");
    for (int round = 1; round <= rounds; round++) {
      for (int warm : new int[] {0, 1}) {
        try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(WorkerStartup.policy("js+python"))
            .warmContexts(warm).isolation(Isolation.processBuilder().workers(1).spareWorkers(0).build()).build()) {
          long pid = WorkerStartup.workerJvm().pid();
          long start = System.nanoTime();
          Map<String, Double> status = settle(pid);
          System.out.printf(Locale.ROOT, "%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.2f%n", round, warm, status.get("VmRSS"),
              status.get("RssAnon"), status.get("RssFile"), status.get("VmHWM"), (System.nanoTime() - start) / 1e9,
              ProcessIsolationRounds.load());
        }
      }
    }
    System.out.println("# what an idle worker's memory is made of: a JVM started with the worker's command line and"
        + " -XX:NativeMemoryTracking=summary, unwalled, builds the sandbox the worker builds; MiB committed, before and"
        + " after a full collection");
    List<String> worker;
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(WorkerStartup.policy("js+python"))
        .isolation(Isolation.processBuilder().workers(1).spareWorkers(0).build()).build()) {
      worker = WorkerStartup.cmdline(WorkerStartup.workerJvm().pid());
    }
    for (int round = 1; round <= rounds; round++) {
      probeChild(worker, round);
    }
    System.out.printf("# the host after %d runs (task B, new texts, JavaScript and Python in turn), warmContexts(1);"
        + " MiB%n", runs);
    System.out.println("round\tdesign\thost heap used after GC\thost heap committed\thost VmRSS\tworker VmRSS\tload");
    for (int round = 1; round <= rounds; round++) {
      List<String> designs = round % 2 == 1 ? List.of("in-process", "process") : List.of("process", "in-process");
      for (String design : designs) {
        System.out.println(round + "\t" + hostChild(design, runs) + "\t" + ProcessIsolationRounds.load());
      }
    }
  }

  /** Runs {@link #probe} with the worker's command line and native memory tracking, and prints its lines. */
  private static void probeChild(List<String> worker, int round) throws IOException, InterruptedException {
    int main = worker.indexOf(WorkerStartup.WALLED_MAIN);
    if (main < 0) {
      throw new IllegalStateException("the worker's command has no " + WorkerStartup.WALLED_MAIN + ": " + worker);
    }
    List<String> command = new ArrayList<>(worker.subList(0, main));
    command.add(1, "-XX:NativeMemoryTracking=summary");
    command.addAll(List.of(WorkerMemory.class.getName(), "--probe", "js+python"));
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        System.out.println(round + "\t" + line);
      }
    }
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException("the memory probe failed");
    }
  }

  /** The probe JVM: the worker's sandbox, then its memory by NMT category, before and after a full GC. */
  private static void probe(String policy) throws Exception {
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(WorkerStartup.policy(policy)).build()) {
      Thread.sleep(5_000);
      report("idle");
      for (int i = 0; i < 3; i++) {
        System.gc();
        Thread.sleep(200);
      }
      Thread.sleep(2_000);
      report("after GC");
    }
    System.exit(0);
  }

  private static void report(String when) throws Exception {
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%s\tVmRSS %.0f\theap used %.0f\theap committed %.0f",
        when, status(ProcessHandle.current().pid()).get("VmRSS"), heap.getUsed() / MIB, heap.getCommitted() / MIB));
    String nmt = (String) ManagementFactory.getPlatformMBeanServer().invoke(
        new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
        new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("-\\s+(.+?) \\(reserved=\\d+KB, committed=(\\d+)KB\\)")
        .matcher(nmt);
    while (m.find()) {
      double mib = Long.parseLong(m.group(2)) / 1024.0;
      if (mib >= 2) {
        line.append(String.format(Locale.ROOT, "\t%s %.0f", m.group(1).trim(), mib));
      }
    }
    java.util.regex.Matcher total = java.util.regex.Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB")
        .matcher(nmt);
    if (total.find()) {
      line.append(String.format(Locale.ROOT, "\tNMT total %.0f", Long.parseLong(total.group(1)) / 1024.0));
    }
    System.out.println(line);
  }

  /** Polls the process's status every 500 ms until its RSS moved under 2 MiB in 5 s, at most 2 minutes. */
  private static Map<String, Double> settle(long pid) throws IOException, InterruptedException {
    List<Double> rss = new ArrayList<>();
    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    Map<String, Double> status;
    do {
      Thread.sleep(500);
      status = status(pid);
      rss.add(status.get("VmRSS"));
    } while (System.nanoTime() < end && (rss.size() < 11
        || Math.abs(rss.get(rss.size() - 1) - rss.get(rss.size() - 11)) >= 2));
    return status;
  }

  /** The memory lines of /proc/PID/status, in MiB. */
  static Map<String, Double> status(long pid) throws IOException {
    Map<String, Double> m = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      String[] kv = line.split(":\\s+");
      if (kv.length == 2 && kv[1].endsWith(" kB")) {
        m.put(kv[0], Long.parseLong(kv[1].substring(0, kv[1].length() - 3).trim()) / 1024.0);
      }
    }
    return m;
  }

  /** Runs {@link #host} in a JVM of its own with this JVM's flags; returns its one line of figures. */
  private static String hostChild(String design, int runs) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElseThrow());
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), WorkerMemory.class.getName(), "--host",
        design, Integer.toString(runs)));
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String last = null;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        last = line;
      }
    }
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0 || last == null) {
      p.destroyForcibly();
      throw new IllegalStateException("the " + design + " host failed: " + last);
    }
    return last;
  }

  /** The host JVM: {@code runs} runs, then its heap and RSS (and its worker's) after a full collection. */
  private static void host(String design, int runs) throws Exception {
    Isolation isolation = switch (design) {
      case "in-process" -> Isolation.inProcess();
      // Never retired: by default a worker is replaced after 200 runs, and the RSS read would be a new one's.
      case "process" -> Isolation.processBuilder().workers(1).spareWorkers(0).maxRunsPerWorker(1_000_000).build();
      default -> throw new IllegalArgumentException("design must be in-process or process, not " + design);
    };
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(WorkerStartup.policy("js+python")).warmContexts(1)
        .isolation(isolation).build()) {
      PeerTask task = PeerTask.B;
      for (int i = 0; i < runs; i++) {
        Language language = i % 2 == 0 ? Language.JAVASCRIPT : Language.PYTHON;
        ExecutionResult r = sandbox.run(language, PeerTask.SourceMode.UNIQUE.text(task.code(language), language, i));
        if (!r.isOk()) {
          throw new IllegalStateException("run " + i + " failed: " + r);
        }
        Answers.require(design, task, r.value(), task.expected);
      }
      for (int i = 0; i < 3; i++) {
        System.gc();
        Thread.sleep(200);
      }
      MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
      double worker = design.equals("process") ? status(WorkerStartup.workerJvm().pid()).get("VmRSS") : Double.NaN;
      System.out.printf(Locale.ROOT, "%s\t%.0f\t%.0f\t%.0f\t%s%n", design, heap.getUsed() / MIB, heap.getCommitted() / MIB,
          status(ProcessHandle.current().pid()).get("VmRSS"), Double.isNaN(worker) ? "" : String.format(Locale.ROOT,
              "%.0f", worker));
    }
  }
}
