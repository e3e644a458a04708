package org.polyglotsandbox;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.polyglotsandbox.PolyglotSandbox.Isolation;

/**
 * Sixteen allocation bombs of each kind at once, beside good tasks, through process isolation, in rounds;
 * run by {@link ProcessBombsTest} in a JVM with a small heap. After each round it prints the host's heap in
 * use after a full collection and its resident memory: a line {@code round N: ...}. Exits 0 if every bomb
 * ended on its memory cap and every good task was right in every round, 1 otherwise.
 */
public final class ProcessBombsMain {
  private ProcessBombsMain() {}

  public static void main(String[] args) throws Exception {
    int rounds = Integer.parseInt(args[0]);
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(120)).maxCpuTime(Duration.ofSeconds(60))
            .maxAllocatedBytes(192L << 20).build())
        .build();
    boolean ok = true;
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy)
        .isolation(Isolation.processBuilder().workers(2).spareWorkers(1).workerHeapBytes(512L << 20).build())
        .warmContexts(1)
        .maxWaitingRuns(1024)
        .startTimeout(Duration.ofMinutes(10))
        .build()) {
      System.out.println("before: " + memory());
      for (int round = 1; round <= rounds; round++) {
        long start = System.nanoTime();
        List<CompletableFuture<ExecutionResult>> bombs = new ArrayList<>();
        List<CompletableFuture<ExecutionResult>> good = new ArrayList<>();
        List<Long> expected = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
          for (Map.Entry<String, Script> bomb : HeapBombsMain.bombs().entrySet()) {
            bombs.add(sandbox.runAsync(bomb.getValue()));
          }
          for (Language language : Language.values()) {
            good.add(sandbox.runAsync(HeapBombsMain.good(language, i)));
            expected.add(HeapBombsMain.expected(language, i));
          }
        }
        int memory = 0;
        for (CompletableFuture<ExecutionResult> f : bombs) {
          ExecutionResult r = f.join();
          if (r.outcome() == Outcome.LIMIT_EXCEEDED && r.limit().orElse(null) == Limit.MEMORY) {
            memory++;
          } else {
            System.out.println("bomb ended otherwise: " + r);
          }
        }
        int right = 0;
        for (int i = 0; i < good.size(); i++) {
          ExecutionResult r = good.get(i).join();
          if (r.isOk() && expected.get(i).equals(r.value())) {
            right++;
          } else {
            System.out.println("good task wrong: " + r);
          }
        }
        ok &= memory == bombs.size() && right == good.size();
        System.out.printf("round %d: bombs %d, on memory %d; good %d, right %d; %s; %.1f s%n", round, bombs.size(),
            memory, good.size(), right, memory(), (System.nanoTime() - start) / 1e9);
      }
      ExecutionResult after = sandbox.run(Language.PYTHON, "6 * 7");
      ok &= Long.valueOf(42).equals(after.value());
      System.out.println("after: " + after.outcome() + " " + after.value());
    }
    System.exit(ok ? 0 : 1);
  }

  /** The host's heap in use after a full collection, and its resident set, in MiB. */
  private static String memory() throws Exception {
    System.gc();
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20;
    long rss = 0;
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.replaceAll("[^0-9]", "")) >> 10;
      }
    }
    return "heap " + heap + " MiB, rss " + rss + " MiB";
  }
}
