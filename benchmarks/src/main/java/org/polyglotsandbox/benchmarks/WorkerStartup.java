package org.polyglotsandbox.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * How long one worker takes from spawn to ready, and what that time is made of. Each round, for each
 * policy (JavaScript; JavaScript and Python):
 * <ul>
 *   <li>{@code full wall}: {@code build()} of a sandbox with {@code workers(1).spareWorkers(0)} (no warm
 *       pool) in this JVM, which waits for the worker's ready frame; and, from {@code /proc} (10 ms ticks),
 *       how long after the call the worker's {@code java} process started (the wall's set-up: sh, env,
 *       prlimit, bwrap; with the weak wall the JVM is exec'd by the same process, so this is about 0) and
 *       how much CPU the worker JVM had used when it was ready (all its threads: JIT compilers too);</li>
 *   <li>{@code weak wall}: the same in a second host JVM in which bubblewrap is hidden (a private mount
 *       namespace with {@code /dev/null} bound over it, by {@code unshare -m}, so the full wall is
 *       unavailable and {@code weakWall()} gives a plain child JVM with rlimits); skipped where
 *       {@code unshare} cannot do that;</li>
 *   <li>elimination, unwalled child JVMs started with the full-wall worker's own command line (read from
 *       {@code /proc}) but this class as the main class: {@code jvm} (to {@code main}), {@code jvm+cds}
 *       (the same without the optimizing runtime's flags, which switch the JVM's class-data sharing off),
 *       {@code sandbox} (builds the in-process sandbox the worker builds: the time a worker needs without
 *       the wall and the channel) and {@code staged}, which prints when {@code main} began, when a GraalVM
 *       engine for the policy's languages was made, when a first context of each language had
 *       evaluated {@code 1}, and when the sandbox was then built (what its own warm-up adds).</li>
 * </ul>
 * Times are from {@link ProcessBuilder#start()} (or {@code build()}) to the line's arrival, in
 * milliseconds; each row has the 1-minute load average. The report ends with the median, min and max.
 *
 * <pre>{@code
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.WorkerStartup benchmarks/run [rounds] [js|js+python,...]
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.WorkerStartup benchmarks/run 10 js,js+python
 * }</pre>
 */
public final class WorkerStartup {
  private WorkerStartup() {}

  static final String WALLED_MAIN = "org.polyglotsandbox.internal.isolation.WalledMain";

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--probe")) {
      probe(args[1], languages(args[2]));
      return;
    }
    if (args.length > 0 && args[0].equals("--weak-host")) {
      weakHost();
      return;
    }
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    List<String> policies = List.of((args.length > 1 ? args[1] : "js,js+python").split(","));
    Map<String, List<Double>> results = new LinkedHashMap<>();
    try (WeakHost weak = WeakHost.start()) {
      System.out.println("round\tpolicy\tvariant\tms\tjava started after ms\tworker CPU s at ready\tload");
      for (int round = 1; round <= rounds; round++) {
        for (String policy : policies) {
          Started full = startWorker(policy, false);
          row(results, round, policy, "full wall", full.millis(), full.javaAfterMillis(), full.cpuSeconds());
          if (weak != null) {
            String[] w = weak.round(policy);
            row(results, round, policy, "weak wall", Double.parseDouble(w[0]), Double.parseDouble(w[1]),
                Double.parseDouble(w[2]));
          }
          List<String> command = full.command();
          row(results, round, policy, "jvm", probe(command, "jvm", policy, true).get("main"), Double.NaN, Double.NaN);
          row(results, round, policy, "jvm+cds", probe(command, "jvm", policy, false).get("main"), Double.NaN,
              Double.NaN);
          row(results, round, policy, "sandbox", probe(command, "sandbox", policy, true).get("built"), Double.NaN,
              Double.NaN);
          Map<String, Double> staged = probe(command, "staged", policy, true);
          for (Map.Entry<String, Double> e : staged.entrySet()) {
            row(results, round, policy, "staged " + e.getKey(), e.getValue(), Double.NaN, Double.NaN);
          }
        }
      }
    }
    System.out.println("# median (min-max) ms over the rounds");
    for (Map.Entry<String, List<Double>> e : results.entrySet()) {
      double[] v = e.getValue().stream().mapToDouble(Double::doubleValue).sorted().toArray();
      System.out.printf(Locale.ROOT, "# %s\t%.0f\t(%.0f-%.0f)%n", e.getKey(), median(v), v[0], v[v.length - 1]);
    }
  }

  private static void row(Map<String, List<Double>> results, int round, String policy, String variant, double millis,
      double javaAfter, double cpuSeconds) {
    System.out.printf(Locale.ROOT, "%d\t%s\t%s\t%.0f\t%s\t%s\t%.2f%n", round, policy, variant, millis,
        Double.isNaN(javaAfter) ? "" : String.format(Locale.ROOT, "%.0f", javaAfter),
        Double.isNaN(cpuSeconds) ? "" : String.format(Locale.ROOT, "%.2f", cpuSeconds), ProcessIsolationRounds.load());
    results.computeIfAbsent(policy + "\t" + variant, k -> new ArrayList<>()).add(millis);
  }

  static Language[] languages(String policy) {
    return switch (policy) {
      case "js" -> new Language[] {Language.JAVASCRIPT};
      case "js+python" -> new Language[] {Language.JAVASCRIPT, Language.PYTHON};
      default -> throw new IllegalArgumentException("policy must be js or js+python, not " + policy);
    };
  }

  static Policy policy(String name) {
    return policy(languages(name));
  }

  static Policy policy(Language[] languages) {
    Policy.Builder b = Policy.builder();
    for (Language l : languages) {
      b.allowLanguages(l);
    }
    return b.build();
  }

  /** A worker's start: build()'s time, when its java process began, the CPU it had used when ready, its command line. */
  private record Started(double millis, double javaAfterMillis, double cpuSeconds, List<String> command) {}

  private static Started startWorker(String policy, boolean weak) throws IOException {
    Isolation.Builder isolation = Isolation.processBuilder().workers(1).spareWorkers(0);
    if (weak) {
      isolation.weakWall();
    }
    double uptimeBefore = uptimeSeconds();
    long start = System.nanoTime();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy(policy)).isolation(isolation.build())
        .build()) {
      double millis = (System.nanoTime() - start) / 1e6;
      if (weak != sandbox.isolationInForce().contains("weak")) {
        throw new IllegalStateException("expected a " + (weak ? "weak" : "full") + " wall: "
            + sandbox.isolationInForce());
      }
      ProcessHandle java = workerJvm();
      double javaAfter = (startSeconds(java.pid()) - uptimeBefore) * 1e3;
      return new Started(millis, javaAfter, ProcessIsolationRounds.processCpuSeconds(java.pid()), cmdline(java.pid()));
    }
  }

  /** The one worker JVM below this JVM (a java process whose main class is the wall's). */
  static ProcessHandle workerJvm() {
    List<ProcessHandle> jvms = ProcessHandle.current().descendants()
        .filter(p -> p.info().command().orElse("").endsWith("/java"))
        .filter(p -> p.info().arguments().map(a -> List.of(a).contains(WALLED_MAIN)).orElse(false)).toList();
    if (jvms.size() != 1) {
      throw new IllegalStateException("expected one worker JVM below this one, found " + jvms.size());
    }
    return jvms.get(0);
  }

  static double uptimeSeconds() throws IOException {
    return Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
  }

  /** When process {@code pid} started, in seconds since boot (field 22 of its stat, 10 ms ticks). */
  static double startSeconds(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[19]) / 100.0;
  }

  static List<String> cmdline(long pid) throws IOException {
    String raw = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8);
    return List.of(raw.split("\0"));
  }

  /**
   * Starts {@code worker}'s command line with this class's probe in place of the worker's main class, and
   * returns when each line it printed arrived, in ms after the start. With {@code jit} false, the
   * optimizing runtime's flags are left out.
   */
  private static Map<String, Double> probe(List<String> worker, String stage, String policy, boolean jit)
      throws IOException, InterruptedException {
    int main = worker.indexOf(WALLED_MAIN);
    if (main < 0) {
      throw new IllegalStateException("the worker's command has no " + WALLED_MAIN + ": " + worker);
    }
    List<String> command = new ArrayList<>();
    for (String a : worker.subList(0, main)) {
      if (!jit && (a.equals("-XX:+EnableJVMCI") || a.startsWith("--upgrade-module-path"))) {
        continue;
      }
      command.add(a);
    }
    command.addAll(List.of(WorkerStartup.class.getName(), "--probe", stage, policy));
    Map<String, Double> lines = new LinkedHashMap<>();
    long start = System.nanoTime();
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        lines.put(line, (System.nanoTime() - start) / 1e6);
      }
    }
    if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0 || !lines.containsKey("end")) {
      p.destroyForcibly();
      throw new IllegalStateException("probe " + stage + " failed: " + lines.keySet());
    }
    lines.remove("end");
    return lines;
  }

  /** The probe JVM: what a worker does before its ready frame, a line printed after each step. */
  private static void probe(String stage, Language[] languages) {
    say("main");
    switch (stage) {
      case "jvm" -> { }
      case "sandbox" -> {
        try (PolyglotSandbox s = PolyglotSandbox.builder().policy(policy(languages))
            .build()) {
          say("built");
        }
      }
      case "staged" -> {
        String[] ids = Arrays.stream(languages).map(Language::id).toArray(String[]::new);
        try (Engine engine = Engine.newBuilder(ids).option("engine.WarnInterpreterOnly", "false").build()) {
          say("engine");
          for (String id : ids) {
            try (Context c = Context.newBuilder(id).engine(engine).build()) {
              c.eval(id, "1");
            }
            say("context " + id);
          }
        }
        try (PolyglotSandbox s = PolyglotSandbox.builder().policy(policy(languages))
            .build()) {
          say("built");
        }
      }
      default -> throw new IllegalArgumentException("unknown stage " + stage);
    }
    say("end");
    System.exit(0);
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /** A host JVM without bubblewrap, taking rounds on its standard input. */
  private static final class WeakHost implements AutoCloseable {
    private final Process process;
    private final PrintWriter in;
    private final BufferedReader out;

    private WeakHost(Process process) {
      this.process = process;
      this.in = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
      this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Starts it, or returns null (saying why) where bubblewrap cannot be hidden. */
    static WeakHost start() throws IOException {
      Path bwrap = Path.of("/usr/bin/bwrap");
      Path unshare = Path.of("/usr/bin/unshare");
      if (!Files.isExecutable(unshare) || !Files.isRegularFile(bwrap)) {
        System.out.println("# weak wall skipped: needs /usr/bin/unshare and /usr/bin/bwrap");
        return null;
      }
      List<String> command = new ArrayList<>(List.of(unshare.toString(), "-m", "/bin/sh", "-c",
          "mount --bind /dev/null " + bwrap + " && exec \"$0\" \"$@\""));
      command.add(ProcessHandle.current().info().command().orElseThrow());
      command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
      command.addAll(List.of("-cp", System.getProperty("java.class.path"), WorkerStartup.class.getName(),
          "--weak-host"));
      Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      WeakHost host = new WeakHost(p);
      String hello = host.out.readLine();
      if (!"ready".equals(hello)) {
        p.destroyForcibly();
        System.out.println("# weak wall skipped: the host without bubblewrap did not start (" + hello + ")");
        return null;
      }
      return host;
    }

    /** One worker start: build()'s ms and when its java began. */
    String[] round(String policy) throws IOException {
      in.println(policy);
      String line = out.readLine();
      if (line == null || line.startsWith("error")) {
        throw new IllegalStateException("the weak-wall host failed: " + line);
      }
      return line.split("\t");
    }

    @Override
    public void close() throws InterruptedException {
      in.close();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  private static void weakHost() throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    say("ready");
    for (String policy = in.readLine(); policy != null; policy = in.readLine()) {
      try {
        Started s = startWorker(policy, true);
        say(String.format(Locale.ROOT, "%.1f\t%.1f\t%.2f", s.millis(), s.javaAfterMillis(), s.cpuSeconds()));
      } catch (RuntimeException e) {
        say("error " + e);
      }
    }
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
