package org.polyglotsandbox.issues;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;

/**
 * Entry point for {@link Issue15HeapBombsTest}, run in a forked JVM with a small heap. For each scenario
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
        phase(sandbox, s[0], Integer.parseInt(s[1]), phase);
      }
    }
    System.out.println("DONE");
  }

  private static void phase(PolyglotSandbox sandbox, String kind, int bombs, Duration length) throws Exception {
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
        // The deadline still covers making the context (issue 15, item 3): on a machine this loaded a
        // Python context can take all of it, before the guest runs a line. That is not this item's.
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
    // (eight bombs can run the heap out: README, Known limits), so each step is tried again after it.
    for (Thread t : threads) {
      onMain(() -> {
        if (t.getState() == Thread.State.NEW) {
          t.start();
        }
        return null;
      });
    }
    Thread.sleep(length.toMillis());
    stop.set(true);
    for (Thread t : threads) {
      onMain(() -> {
        t.join(Duration.ofMinutes(1));
        if (t.isAlive()) {
          System.out.println("HUNG " + t.getName());
        }
        return null;
      });
    }
    // After the bombs, the same sandbox serves both languages, with inputs.
    ExecutionResult js = onMain(() -> sandbox.run(good(Language.JAVASCRIPT, 6)));
    ExecutionResult py = onMain(() -> sandbox.run(good(Language.PYTHON, 6)));
    onMain(() -> {
      Runtime rt = Runtime.getRuntime();
      System.out.println("PHASE " + kind + ":" + bombs + " goodOk=" + goodOk.sum() + " wrong=" + wrong.sum()
          + " good=" + new TreeMap<>(counts(goodOutcomes)) + " bombs=" + new TreeMap<>(counts(bombOutcomes))
          + " slowestGoodMs=" + slowestGood.get() + " after=" + verdict(js) + "/" + js.value() + ","
          + verdict(py) + "/" + py.value() + " heapUsedMiB=" + ((rt.totalMemory() - rt.freeMemory()) >> 20));
      System.out.flush();
      return null;
    });
  }

  private interface Step<T> {
    T call() throws Exception;
  }

  /**
   * {@code step} on the main thread, tried again after a pause if it met the host's OutOfMemoryError, which
   * is reported as {@code HOST-OOM main}; at most 10 tries.
   */
  private static <T> T onMain(Step<T> step) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        return step.call();
      } catch (OutOfMemoryError e) {
        System.out.println("HOST-OOM main");
        if (attempt == 10) {
          throw e;
        }
        Thread.sleep(500);
      }
    }
  }

  /** A good task with inputs: JavaScript multiplies, Python sums a list. */
  static Script good(Language language, long i) {
    return language == Language.JAVASCRIPT
        ? Script.of(Language.JAVASCRIPT, "a * b").withInputs(Map.of("a", i, "b", 7))
        : Script.of(Language.PYTHON, "sum(xs) + n").withInputs(Map.of("xs", List.of(1, 2, 3), "n", i));
  }

  static long expected(Language language, long i) {
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
            System.out.println("HOST-OOM " + name);
          }
        }
      } catch (Throwable t) {
        System.out.println("HOST-THROWABLE " + name + " " + t);
        System.out.flush();
      }
    }, name);
  }
}
