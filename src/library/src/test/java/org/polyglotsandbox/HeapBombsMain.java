package org.polyglotsandbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Entry point for {@link HeapBombsTest}, run in a forked JVM with a small heap. For each scenario
 * ({@code kind:count}, such as {@code js-arrays:4}) it runs {@code count} allocation bombs of that kind
 * back to back on as many threads, for the phase's seconds, beside two threads of good tasks (one per
 * language, each with inputs, each checked for its answer), then checks the sandbox still serves. It
 * prints one {@code PHASE} line per scenario, {@code HOST-OOM} for an OutOfMemoryError a harness thread's own
 * call met (the thread goes on), and {@code UNCAUGHT} / {@code HOST-THROWABLE} for anything else a
 * host thread saw. Arguments: phase seconds, then the scenarios.
 */
public final class HeapBombsMain {
  /** Bombs that keep everything they allocate, in chunks small enough to be ordinary (not humongous) objects. */
  static final Map<String, Script> BOMBS = Map.of(
      "js-arrays", Script.of(Language.JAVASCRIPT, "let keep = []; for (;;) keep.push(new Array(1e4).fill(0.5));"),
      "js-strings", Script.of(Language.JAVASCRIPT,
          "let keep = []; for (let i = 0; ; i++) keep.push('x'.repeat(1e5) + i);"),
      "py-lists", Script.of(Language.PYTHON, "keep = []\nwhile True:\n    keep.append([0] * 10000)"),
      "py-bytes", Script.of(Language.PYTHON, "keep = []\nwhile True:\n    keep.append(bytes(100000))"));

  /** Whether the current phase has started its threads (the main thread's set-up is over); main thread only. */
  private static boolean phaseStarted;

  private HeapBombsMain() {}

  public static void main(String[] args) throws Exception {
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
      System.out.println("UNCAUGHT " + t.getName() + " " + e);
      System.out.flush();
    });
    Duration phase = Duration.ofSeconds(Long.parseLong(args[0]));
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON).build();
    long start = System.nanoTime();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).maxConcurrentRuns(16).build()) {
      System.out.println("BUILT " + (System.nanoTime() - start) / 1_000_000 + " ms");
      for (int i = 1; i < args.length; i++) {
        String[] s = args[i].split(":");
        // A phase's set-up (before its threads start) falls just after the last phase's bombs: try it again.
        for (int attempt = 1; ; attempt++) {
          try {
            phase(sandbox, s[0], Integer.parseInt(s[1]), phase);
            break;
          } catch (OutOfMemoryError e) {
            if (phaseStarted) {
              throw e;
            }
            mainMetHostOom(e, attempt);
          }
        }
      }
    }
    System.out.println("DONE");
  }

  private static void phase(PolyglotSandbox sandbox, String kind, int bombs, Duration length) throws Exception {
    phaseStarted = false;
    AtomicBoolean stop = new AtomicBoolean();
    Map<String, LongAdder> bombOutcomes = new ConcurrentHashMap<>();
    Map<String, LongAdder> goodOutcomes = new ConcurrentHashMap<>();
    LongAdder goodOk = new LongAdder();
    LongAdder wrong = new LongAdder();
    AtomicLong slowestGood = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int b = 0; b < bombs; b++) {
      threads.add(hostThread("bomb-" + b, stop, () -> {
        ExecutionResult r = sandbox.run(BOMBS.get(kind));
        bombOutcomes.computeIfAbsent(verdict(r), k -> new LongAdder()).increment();
      }));
    }
    for (Language language : List.of(Language.JAVASCRIPT, Language.PYTHON)) {
      AtomicLong task = new AtomicLong();
      threads.add(hostThread("good-" + language.id(), stop, () -> {
        long i = task.incrementAndGet();
        long t0 = System.nanoTime();
        ExecutionResult r = sandbox.run(good(language, i));
        slowestGood.accumulateAndGet((System.nanoTime() - t0) / 1_000_000, Math::max);
        // The deadline still covers making the context: on a machine this loaded a Python context can
        // take all of it, before the guest runs a line. That is not the bombs' doing.
        boolean neverRan = r.limit().orElse(null) == Limit.WALL_TIME && r.usage().cpuTime().toMillis() < 50;
        goodOutcomes.computeIfAbsent(neverRan ? "NOT_STARTED_IN_TIME" : verdict(r), k -> new LongAdder()).increment();
        if (neverRan) {
          System.out.println("GOOD-LATE " + language.id() + " wall=" + r.usage().wallTime().toMillis());
        } else if (r.isOk()) {
          goodOk.increment();
          if (!(r.value() instanceof Number n) || n.longValue() != expected(language, i)) {
            wrong.increment();
            System.out.println("WRONG " + language.id() + " " + i + " " + r.value());
          }
        } else {
          System.out.println("GOOD-FAILED " + language.id() + " " + r.outcome() + " " + r.limit().map(Limit::id)
              .orElse("-") + " " + r.errorMessage().orElse("") + " wall=" + r.usage().wallTime().toMillis() + " cpu=" + r.usage().cpuTime().toMillis());
        }
      }));
    }
    // From here on this (the main) thread may meet the host's OutOfMemoryError like any other host thread
    // (eight bombs can run the heap out: docs/limits.md). Every step is inside one retry loop, and each
    // can be taken again: an allocation anywhere (an iterator, a lambda, a string, a println) may meet the
    // error, and CI on d028336 saw the main thread die of one outside the steps that were tried again.
    ExecutionResult[] after = new ExecutionResult[2];
    long end = System.nanoTime() + length.toNanos();
    int step = 0;
    int failures = 0;
    while (step < 5) {
      try {
        switch (step) {
          case 0 -> {
            phaseStarted = true;
            for (int i = 0; i < threads.size(); i++) {
              if (threads.get(i).getState() == Thread.State.NEW) {
                threads.get(i).start();
              }
            }
          }
          case 1 -> {
            for (long left = end - System.nanoTime(); left > 0; left = end - System.nanoTime()) {
              Thread.sleep(Math.max(1, left / 1_000_000));
            }
            stop.set(true);
          }
          case 2 -> {
            for (int i = 0; i < threads.size(); i++) {
              Thread t = threads.get(i);
              t.join(Duration.ofMinutes(1));
              if (t.isAlive()) {
                System.out.println("HUNG " + t.getName());
              }
            }
          }
          case 3 -> {
            // After the bombs, the same sandbox serves both languages, with inputs.
            if (after[0] == null) {
              after[0] = sandbox.run(good(Language.JAVASCRIPT, 6));
            }
            if (after[1] == null) {
              after[1] = sandbox.run(good(Language.PYTHON, 6));
            }
          }
          default -> {
            Runtime rt = Runtime.getRuntime();
            ExecutionResult js = after[0];
            ExecutionResult py = after[1];
            System.out.println("PHASE " + kind + ":" + bombs + " goodOk=" + goodOk.sum() + " wrong=" + wrong.sum()
                + " good=" + new TreeMap<>(counts(goodOutcomes)) + " bombs=" + new TreeMap<>(counts(bombOutcomes))
                + " slowestGoodMs=" + slowestGood.get() + " after=" + verdict(js) + "/" + js.value() + ","
                + verdict(py) + "/" + py.value() + " heapUsedMiB=" + ((rt.totalMemory() - rt.freeMemory()) >> 20));
            System.out.flush();
          }
        }
        step++;
      } catch (OutOfMemoryError e) {
        mainMetHostOom(e, ++failures);
      }
    }
  }

  /**
   * The main thread met the host's OutOfMemoryError for the {@code attempt}th time in one step: says so and
   * pauses before the step is tried again, or rethrows it at the 20th.
   */
  private static void mainMetHostOom(OutOfMemoryError e, int attempt) throws InterruptedException {
    if (attempt >= 20) {
      throw e;
    }
    hostOom("main");
    Thread.sleep(500);
  }

  /** Says that host thread {@code name} met the host's OutOfMemoryError; saying it may meet the error too. */
  private static void hostOom(String name) {
    try {
      System.out.println("HOST-OOM " + name);
    } catch (OutOfMemoryError again) {
      // The count of errors the JVM reported (OnOutOfMemoryError) still shows it.
    }
  }

  /** The bombs by name, for other suites. */
  public static Map<String, Script> bombs() {
    return BOMBS;
  }

  /** A good task with inputs: JavaScript multiplies, Python sums a list. */
  public static Script good(Language language, long i) {
    return language == Language.JAVASCRIPT
        ? Script.of(Language.JAVASCRIPT, "a * b").withInputs(Map.of("a", i, "b", 7))
        : Script.of(Language.PYTHON, "sum(xs) + n").withInputs(Map.of("xs", List.of(1, 2, 3), "n", i));
  }

  public static long expected(Language language, long i) {
    return language == Language.JAVASCRIPT ? 7 * i : 6 + i;
  }

  private static String verdict(ExecutionResult r) {
    return r.outcome() + r.limit().map(l -> ":" + l.id()).orElse("");
  }

  private static Map<String, Long> counts(Map<String, LongAdder> m) {
    Map<String, Long> out = new TreeMap<>();
    m.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  /**
   * A harness thread that runs {@code step} until {@code stop}: an OutOfMemoryError its own call met is
   * reported as {@code HOST-OOM} and the thread goes on; anything else ends it as {@code HOST-THROWABLE}.
   */
  private static Thread hostThread(String name, AtomicBoolean stop, Runnable step) {
    return new Thread(() -> {
      try {
        while (!stop.get()) {
          try {
            step.run();
          } catch (OutOfMemoryError e) {
            hostOom(name);
          }
        }
      } catch (Throwable t) {
        System.out.println("HOST-THROWABLE " + name + " " + t);
        System.out.flush();
      }
    }, name);
  }
}
