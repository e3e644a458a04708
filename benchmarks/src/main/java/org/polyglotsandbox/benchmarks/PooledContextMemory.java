package org.polyglotsandbox.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * The host heap an idle pooled Python context holds: a sandbox with {@code warmContexts(n)}, once its pool is full, against the same sandbox with
 * {@code warmContexts(0)}, in one JVM, for three set-ups: nothing imported ahead, {@code json}, and
 * pyparsing from a read-only mount ({@code pythonPath} + {@code pythonImports}). The heap is measured
 * after a full collection ({@code System.gc()} three times, 200 ms apart), used bytes from the
 * {@code MemoryMXBean}; each set-up is measured in alternation, {@code rounds} times. Not JMH: the
 * quantity is retained memory, not time.
 *
 * <pre>{@code
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.PooledContextMemory benchmarks/run 4 3
 * }</pre>
 *
 * Arguments: contexts per pool (default 4), rounds (default 3), the pyparsing directory (default
 * Debian's {@code python3-pyparsing}).
 *
 * <p>{@code churn N SETUP} instead builds and closes N sandboxes of one set-up ({@code none},
 * {@code json} or {@code pyparsing}; pool of 0, one run each) and prints the used heap after a full
 * collection after each: memory that grows with every sandbox closed would be a leak.
 *
 * <pre>{@code
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.PooledContextMemory benchmarks/run churn 12 pyparsing
 * }</pre>
 */
public final class PooledContextMemory {
  private PooledContextMemory() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("churn")) {
      churn(Integer.parseInt(args[1]), args[2], policy(Path.of(DEBIAN_PYPARSING)));
      return;
    }
    int contexts = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Policy policy = policy(Path.of(args.length > 2 ? args[2] : DEBIAN_PYPARSING));
    List<String> setups = List.of("none", "json", "pyparsing");
    System.out.printf("# %d pooled Python contexts, %d rounds; MiB of used heap after a full GC%n", contexts, rounds);
    System.out.println("round\tset-up\tpool of 0\tpool of " + contexts + "\tper context");
    for (int round = 1; round <= rounds; round++) {
      for (String setup : setups) {
        double empty = retained(policy, setup, 0);
        double full = retained(policy, setup, contexts);
        double each = (full - empty) / contexts;
        System.out.printf("%d\t%s\t%.1f\t%.1f\t%.1f%n", round, setup, empty, full, each);
      }
    }
  }

  private static final String DEBIAN_PYPARSING = "/usr/lib/python3/dist-packages/pyparsing";

  private static Policy policy(Path pyparsing) {
    if (!Files.isDirectory(pyparsing)) {
      throw new IllegalStateException(pyparsing + " is not a directory: install python3-pyparsing or pass it");
    }
    return Policy.builder().allowLanguages(Language.PYTHON)
        .mount(Mount.readOnly(pyparsing, "/pkgs/pyparsing"))
        .limits(Limits.builder().wallTime(Duration.ofMinutes(5)).maxCpuTime(Duration.ofMinutes(5))
            .maxFiles(10_000).maxFileBytes(256L << 20).build())
        .build();
  }

  private static void churn(int sandboxes, String setup, Policy policy) throws InterruptedException {
    System.out.println("# sandboxes built and closed\tMiB used after a full GC (" + setup + ")");
    for (int i = 1; i <= sandboxes; i++) {
      try (PolyglotSandbox sandbox = builder(policy, setup, 0).build()) {
        if (!sandbox.run(Language.PYTHON, "import sys\nlen(sys.modules)").isOk()) {
          throw new IllegalStateException("the run failed");
        }
      }
      System.out.printf("%d\t%.1f%n", i, usedAfterGc());
    }
  }

  private static PolyglotSandbox.Builder builder(Policy policy, String setup, int n) {
    PolyglotSandbox.Builder b = PolyglotSandbox.builder().policy(policy).warmContexts(n);
    switch (setup) {
      case "json" -> b.pythonImports("json");
      case "pyparsing" -> b.pythonPath("/pkgs").pythonImports("pyparsing");
      default -> { }
    }
    return b;
  }

  private static double usedAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
  }

  /** MiB of used heap after a full collection, with a sandbox of {@code setup} whose pool of {@code n} is full. */
  private static double retained(Policy policy, String setup, int n) throws InterruptedException {
    try (PolyglotSandbox sandbox = builder(policy, setup, n).build()) {
      long end = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (sandbox.warmContexts(Language.PYTHON) < n) {
        if (System.nanoTime() > end) {
          throw new IllegalStateException("the pool did not fill within 5 minutes");
        }
        Thread.sleep(50);
      }
      Thread.sleep(500); // the refill thread's last context is handed over; nothing else is running
      return usedAfterGc();
    }
  }
}
