package org.polyglotsandbox.internal.worker;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time of a worker's sandbox threads as the host's kernel counts it, read from {@code /proc}: what the
 * host trusts when a worker's own beats stop or lie. A worker JVM names its threads after the sandbox's
 * ({@code polyglot-sandbox-run-1}, cut by Linux to 15 characters), which sets them apart from the JVM's
 * compiler and collector threads.
 */
final class ProcCpu {
  /** The first 15 characters of every sandbox thread's name, as {@code /proc/.../comm} holds them. */
  private static final String SANDBOX_THREAD = "polyglot-sandbo";
  /** Clock ticks per second of {@code /proc/.../stat} times; 100 on every Linux the JDK runs on. */
  private static final long TICK_NANOS = 10_000_000L;

  private ProcCpu() {}

  /** Per thread id, the CPU time in nanoseconds of each sandbox thread of process {@code pid}; empty if it is gone. */
  static Map<Long, Long> sandboxThreads(long pid) {
    Map<Long, Long> cpu = new HashMap<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (IOException gone) {
          continue;
        }
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open || !stat.substring(open + 1, close).startsWith(SANDBOX_THREAD)) {
          continue;
        }
        // After the command: state (field 3) ... utime (14) and stime (15).
        String[] f = stat.substring(close + 2).split(" ");
        if (f.length > 12) {
          cpu.put(Long.parseLong(task.getFileName().toString()),
              (Long.parseLong(f[11]) + Long.parseLong(f[12])) * TICK_NANOS);
        }
      }
    } catch (IOException | RuntimeException e) {
      // the process is gone, or /proc is not there: the worker's own beats remain
    }
    return cpu;
  }

  /** The CPU time {@code now} holds beyond {@code before}, thread by thread (a thread new since counts whole). */
  static long since(Map<Long, Long> before, Map<Long, Long> now) {
    long total = 0;
    for (Map.Entry<Long, Long> t : now.entrySet()) {
      total += Math.max(0, t.getValue() - before.getOrDefault(t.getKey(), 0L));
    }
    return total;
  }

  /** The worker JVM in a launched process's tree: the process itself, or the deepest {@code java} below it. */
  static long jvmPid(Process process) {
    return process.descendants().filter(p -> p.info().command().orElse("").endsWith("/java"))
        .mapToLong(ProcessHandle::pid).max().orElse(process.pid());
  }
}
