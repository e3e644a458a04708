package org.polyglotsandbox.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.Tool;

/**
 * A plugin-host soak: client threads submit tasks to one long-lived sandbox for a while,
 * first good tasks only ("calm"), then the same good tasks with a share of hostile ones ("hostile"),
 * then good tasks only again ("after", to show the sandbox recovered). Not a JMH benchmark: it
 * measures a server over minutes, not one operation.
 *
 * <p>Every good task has a known answer, checked: a wrong value or outcome is a <em>wrong answer</em>;
 * a task whose result does not arrive within {@link #LOST_AFTER} is <em>lost</em>. Hostile tasks may
 * end any way but {@code INTERNAL_ERROR} and, unless a kind may finish (a lie the sandbox does not believe),
 * {@code OK}; either is counted as <em>unexpected</em>. The
 * report gives good-task latency (p50, p99) per phase and the ratio hostile/calm, the heap after a full
 * GC and the thread count at start and end (GraalPy's {@code python-actions-pool} threads apart), and
 * exits 1 if any answer was wrong, lost or unexpected.
 *
 * <pre>{@code
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.Soak benchmarks/run [threads] [seconds per phase] [hostile share]
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.Soak benchmarks/run 8 120 0.2
 * }</pre>
 */
public final class Soak {
  private static final Duration LOST_AFTER = Duration.ofSeconds(90);
  private static final int ROWS = 50;

  private Soak() {}

  /** A task a client submits: a good one with its answer, a hostile one with whether it may end {@code OK}. */
  private record Task(String kind, boolean hostile, Script script, Object expected) {}

  /** What one phase measured. */
  private static final class Tally {
    final String phase;
    final LongAdder good = new LongAdder();
    final LongAdder hostile = new LongAdder();
    final LongAdder wrong = new LongAdder();
    final LongAdder lost = new LongAdder();
    final LongAdder unexpected = new LongAdder();
    final LongAdder busy = new LongAdder();
    final Map<String, Map<Outcome, LongAdder>> outcomes = new ConcurrentHashMap<>();
    final List<Long> goodNanos = java.util.Collections.synchronizedList(new ArrayList<>());
    final List<String> firstProblems = java.util.Collections.synchronizedList(new ArrayList<>());

    Tally(String phase) {
      this.phase = phase;
    }

    void outcome(String kind, Outcome o) {
      outcomes.computeIfAbsent(kind, k -> new ConcurrentHashMap<>()).computeIfAbsent(o, x -> new LongAdder())
          .increment();
    }

    void problem(String what) {
      if (firstProblems.size() < 10) {
        firstProblems.add(what);
      }
    }

    long percentile(double p) {
      long[] sorted = goodNanos.stream().mapToLong(Long::longValue).sorted().toArray();
      return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))];
    }
  }

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 120;
    double share = args.length > 2 ? Double.parseDouble(args[2]) : 0.2;
    if (threads < 1 || seconds < 1 || share < 0 || share >= 1) {
      throw new IllegalArgumentException("usage: Soak [threads >= 1] [seconds per phase >= 1]"
          + " [hostile share in [0, 1)]; got " + Arrays.toString(args));
    }
    Path data = Files.createTempDirectory("soak-data");
    StringBuilder csv = new StringBuilder("n\n");
    long csvTotal = 0;
    for (int i = 1; i <= 200; i++) {
      csv.append(i * 3).append('\n');
      csvTotal += i * 3;
    }
    Files.writeString(data.resolve("numbers.csv"), csv);
    Tool echo = Tool.builder("echo").description("returns its arguments")
        .parameters("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}")
        .handler(a -> Map.of("n", a.get("n")))
        .build();
    Policy policy = Policy.builder()
        .allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
        .mount(Mount.readOnly(data, "/data"))
        .allowTools("echo")
        .limits(Limits.builder().wallTime(Duration.ofSeconds(3)).maxCpuTime(Duration.ofSeconds(3)).build())
        .build();
    System.out.printf(Locale.ROOT, "soak: %d client threads, %d s per phase, hostile share %.0f%%, %d cores,"
        + " max heap %d MiB%n", threads, seconds, share * 100, Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory() >> 20);
    long buildStart = System.nanoTime();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).tool(echo)
        .maxConcurrentRuns(threads).maxWaitingRuns(threads * 4).warmUp(Duration.ofSeconds(20)).build()) {
      RuntimeCheck.require("Soak", sandbox.runtimeName(), sandbox.isOptimizingRuntime());
      System.out.printf(Locale.ROOT, "build() with a 20 s warm-up: %.1f s%n", (System.nanoTime() - buildStart) / 1e9);
      String start = snapshot("start");
      List<Tally> tallies = new ArrayList<>();
      final long total = csvTotal;
      for (String phase : List.of("calm", "hostile", "after")) {
        double phaseShare = phase.equals("hostile") ? share : 0;
        tallies.add(phase(sandbox, phase, threads, seconds, phaseShare, total));
      }
      String end = snapshot("end");
      report(tallies, start, end);
      boolean failed = tallies.stream().anyMatch(t -> t.wrong.sum() + t.lost.sum() + t.unexpected.sum() > 0);
      if (failed) {
        System.exit(1);
      }
    } finally {
      Files.deleteIfExists(data.resolve("numbers.csv"));
      Files.deleteIfExists(data);
    }
    System.out.println(snapshot("closed"));
  }

  private static Tally phase(PolyglotSandbox sandbox, String name, int threads, int seconds, double share,
      long csvTotal) throws InterruptedException {
    Tally tally = new Tally(name);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    CountDownLatch done = new CountDownLatch(threads);
    AtomicLong seq = new AtomicLong();
    for (int t = 0; t < threads; t++) {
      long seed = 31L * t + name.hashCode();
      Thread client = new Thread(() -> {
        SplittableRandom random = new SplittableRandom(seed);
        try {
          while (System.nanoTime() < end) {
            Task task = random.nextDouble() < share ? hostile(random) : good(random, seq.incrementAndGet(), csvTotal);
            submit(sandbox, task, tally);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          done.countDown();
        }
      }, "soak-client-" + t);
      client.start();
    }
    done.await();
    return tally;
  }

  private static void submit(PolyglotSandbox sandbox, Task task, Tally tally) throws InterruptedException {
    long t0 = System.nanoTime();
    Future<ExecutionResult> future = sandbox.runAsync(task.script());
    ExecutionResult r;
    try {
      r = future.get(LOST_AFTER.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RejectedExecutionException) {
        // Admission said no: the client backs off; nothing ran, nothing was lost.
        tally.busy.increment();
        Thread.sleep(5);
        return;
      }
      tally.lost.increment();
      tally.problem(task.kind() + ": no result (" + e.getCause() + ")");
      return;
    } catch (TimeoutException e) {
      tally.lost.increment();
      tally.problem(task.kind() + ": no result within " + LOST_AFTER.toSeconds() + " s");
      return;
    }
    long nanos = System.nanoTime() - t0;
    tally.outcome(task.kind(), r.outcome());
    if (task.hostile()) {
      tally.hostile.increment();
      boolean mayFinish = task.expected() == Boolean.TRUE;
      if (r.outcome() == Outcome.INTERNAL_ERROR || (r.outcome() == Outcome.OK && !mayFinish)) {
        tally.unexpected.increment();
        tally.problem(task.kind() + ": " + r.outcome() + " " + r.errorMessage().orElse(null));
      }
      return;
    }
    tally.good.increment();
    tally.goodNanos.add(nanos);
    if (r.outcome() != Outcome.OK || !Objects.equals(r.value(), task.expected())) {
      tally.wrong.increment();
      tally.problem(task.kind() + ": " + r.outcome() + " value " + r.value() + " expected " + task.expected()
          + r.errorMessage().map(m -> " error " + m).orElse(""));
    }
  }

  private static Task good(SplittableRandom random, long seq, long csvTotal) {
    List<Map<String, Object>> rows = new ArrayList<>(ROWS);
    long sum = 0;
    for (int i = 0; i < ROWS; i++) {
      long n = random.nextInt(1000);
      sum += n;
      rows.add(Map.of("n", n));
    }
    Map<String, Object> inputs = Map.of("rows", rows);
    // A number in each text, so the engine's code cache does not serve every run (as an agent's code).
    return switch (random.nextInt(5)) {
      case 0 -> new Task("js-sum", false, Script.of(Language.JAVASCRIPT,
          "rows.reduce((a, r) => a + r.n, 0) + " + seq + " - " + seq).withInputs(inputs), sum);
      case 1 -> new Task("py-sum", false, Script.of(Language.PYTHON,
          "sum(r['n'] for r in rows) + " + seq + " - " + seq).withInputs(inputs), sum);
      case 2 -> new Task("js-tool", false, Script.of(Language.JAVASCRIPT,
          "tools.echo({n: " + seq + "}).n"), seq);
      case 3 -> new Task("py-tool", false, Script.of(Language.PYTHON,
          "tools.echo(n=" + seq + ")['n']"), seq);
      default -> new Task("py-file", false, Script.of(Language.PYTHON,
          "import csv\nwith open('/data/numbers.csv') as f:\n    total = sum(int(r['n']) for r in csv.DictReader(f))\n"
              + "total + " + seq + " - " + seq), csvTotal);
    };
  }

  private static final String[][] HOSTILE = {
      {"js-loop", "js", "while (true) {}"},
      {"py-loop", "python", "while True:\n    pass"},
      {"js-array-bomb", "js", "const a = []; while (true) a.push(new Array(100000).fill(1));"},
      {"js-string-bomb", "js", "let s = 'x'; const keep = []; while (true) { s = s + s; keep.push(s + '!'); }"},
      {"py-list-bomb", "python", "a = []\nwhile True:\n    a.append([0] * 100000)"},
      {"py-bytes-bomb", "python", "a = []\nwhile True:\n    a.append(bytes(10**6))"},
      {"js-output-flood", "js", "while (true) console.log('x'.repeat(1000));"},
      {"js-recursion", "js", "function f(n) { return f(n + 1) + 1; } f(0)"},
      {"py-recursion", "python", "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1) + 1\nf(0)"},
      {"js-cycle", "js", "const a = {}; a.self = a; a"},
      {"js-lying-proxy", "js", "let n = 0; new Proxy({}, {ownKeys() { return ['k' + (n++)]; },"
          + " getOwnPropertyDescriptor() { return {value: n, enumerable: true, configurable: true}; },"
          + " get() { throw new Error('no'); }})"},
      // GraalPy copies a list subclass from its storage, not through the lying methods: OK with [] is right.
      {"py-lying-len", "python", "class L(list):\n    def __len__(self):\n        return 3\n"
          + "    def __getitem__(self, i):\n        raise IndexError(i)\nL()", "may finish"},
      {"js-denied-file", "js", "readText('/etc/passwd')"},
      {"py-denied-file", "python", "open('/etc/passwd').read()"},
      {"js-huge-error", "js", "throw new Error('x'.repeat(10000000))"},
  };

  private static Task hostile(SplittableRandom random) {
    String[] h = HOSTILE[random.nextInt(HOSTILE.length)];
    Language language = h[1].equals("js") ? Language.JAVASCRIPT : Language.PYTHON;
    return new Task(h[0], true, Script.of(language, h[2]), h.length > 3);
  }

  private static String snapshot(String when) {
    System.gc();
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    int actions = 0;
    int all = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      all++;
      if (t.getName().startsWith("python-actions-pool")) {
        actions++;
      }
    }
    return String.format(Locale.ROOT, "%-6s heap after GC %d MiB, %d threads (%d python-actions-pool)",
        when, heap.getUsed() >> 20, all, actions);
  }

  private static void report(List<Tally> tallies, String start, String end) {
    System.out.println();
    System.out.printf(Locale.ROOT, "%-8s %8s %8s %6s %5s %10s %5s %9s %9s%n", "phase", "good", "hostile", "wrong",
        "lost", "unexpected", "busy", "p50 ms", "p99 ms");
    for (Tally t : tallies) {
      System.out.printf(Locale.ROOT, "%-8s %8d %8d %6d %5d %10d %5d %9.2f %9.2f%n", t.phase, t.good.sum(),
          t.hostile.sum(), t.wrong.sum(), t.lost.sum(), t.unexpected.sum(), t.busy.sum(), t.percentile(0.5) / 1e6,
          t.percentile(0.99) / 1e6);
    }
    Tally calm = tallies.get(0);
    Tally hostile = tallies.get(1);
    System.out.printf(Locale.ROOT, "good-task latency, hostile/calm: p50 %.2fx, p99 %.2fx%n",
        (double) hostile.percentile(0.5) / calm.percentile(0.5), (double) hostile.percentile(0.99) / calm.percentile(0.99));
    System.out.println(start);
    System.out.println(end);
    for (Tally t : tallies) {
      Map<String, Map<Outcome, Long>> sorted = new TreeMap<>();
      t.outcomes.forEach((kind, m) -> {
        Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
        m.forEach((o, n) -> counts.put(o, n.sum()));
        sorted.put(kind, counts);
      });
      System.out.println("outcomes (" + t.phase + "): " + sorted);
      t.firstProblems.forEach(p -> System.out.println("  problem: " + p));
    }
  }
}
