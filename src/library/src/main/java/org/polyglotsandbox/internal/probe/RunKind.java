package org.polyglotsandbox.internal.probe;

import java.time.Duration;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Limits;

/**
 * The kinds of run the escape probe makes in a language, each with its own limits (one sandbox holds
 * them all: {@link #ceiling}). The access probes get the policy's limits with time and allocation
 * raised, so a slow machine cannot make a probe inconclusive; each bomb gets limits that keep the cap
 * it attacks short and the others out of its way.
 */
enum RunKind {
  /** The access, state and exit probes: the policy's limits, time, statements and allocation raised. */
  ACCESS,
  /** Bombs of the statement, memory, output, result, file and tool-call caps (the policy's, or shorter). */
  COUNTS,
  /** The CPU bomb: a one-second CPU cap. */
  CPU,
  /** The wall-time bomb: a one-second wall clock. */
  WALL,
  /**
   * The stack bomb: only the stack. Unbounded recursion must end on the stack limit, and compiled frames
   * are small, so reaching and unwinding the end of the stack can take more than a second of CPU.
   */
  STACK_DEPTH;

  /** The kind of a bomb's run: {@code limit} is the one that must stop it, null for a refused result. */
  static RunKind ofBomb(Limit limit) {
    if (limit == null) {
      return COUNTS; // a result for the output boundary to refuse
    }
    return switch (limit) {
      case CPU_TIME -> CPU;
      case STACK -> STACK_DEPTH;
      case WALL_TIME -> WALL;
      default -> COUNTS;
    };
  }

  /**
   * This kind's limits for a policy's. For the bombs: the caps under test short, the wall clock and
   * CPU generous (so a busy machine cannot make another cap trip first), file caps and stack as the
   * policy has them.
   */
  Limits limits(Limits l) {
    if (this == ACCESS) {
      return l.toBuilder()
          .wallTime(max(l.wallTime(), Duration.ofMinutes(2)))
          .maxCpuTime(max(l.maxCpuTime(), Duration.ofMinutes(2)))
          .maxStatements(Math.max(l.maxStatements(), 1_000_000_000L))
          .maxAllocatedBytes(Math.max(l.maxAllocatedBytes(), 16L << 30))
          .build();
    }
    Limits.Builder b = l.toBuilder()
        .wallTime(Duration.ofMinutes(1))
        .maxCpuTime(Duration.ofMinutes(1))
        .maxStatements(Long.MAX_VALUE)
        .maxAllocatedBytes(Math.max(l.maxAllocatedBytes(), 64L << 30)); // churn, not live data: the heap guard stays
    return switch (this) {
      case COUNTS -> b.maxStatements(Math.min(l.maxStatements(), 100_000L))
          .maxAllocatedBytes(Math.min(l.maxAllocatedBytes(), 512L << 20))
          .maxOutputBytes(Math.min(l.maxOutputBytes(), 64L << 10))
          .maxResultNodes(Math.min(l.maxResultNodes(), 10_000))
          .build();
      case CPU -> b.maxCpuTime(min(l.maxCpuTime(), Duration.ofSeconds(1))).build();
      case WALL -> b.wallTime(min(l.wallTime(), Duration.ofSeconds(1))).build();
      case STACK_DEPTH, ACCESS -> b.build();
    };
  }

  /**
   * The limits of the one sandbox the escape probe runs a language in: for each limit, the highest any
   * kind has for {@code l}, so that every kind's {@link #limits} are within it.
   */
  static Limits ceiling(Limits l) {
    Duration wall = l.wallTime();
    Duration cpu = l.maxCpuTime();
    long statements = l.maxStatements();
    long allocated = l.maxAllocatedBytes();
    for (RunKind k : values()) {
      Limits m = k.limits(l);
      wall = max(wall, m.wallTime());
      cpu = max(cpu, m.maxCpuTime());
      statements = Math.max(statements, m.maxStatements());
      allocated = Math.max(allocated, m.maxAllocatedBytes());
    }
    // The other limits no kind raises above the policy's.
    return l.toBuilder().wallTime(wall).maxCpuTime(cpu).maxStatements(statements).maxAllocatedBytes(allocated)
        .build();
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
