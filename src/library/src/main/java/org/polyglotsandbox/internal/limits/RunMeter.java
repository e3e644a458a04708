package org.polyglotsandbox.internal.limits;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.polyglotsandbox.internal.pool.RunThreads;

/**
 * Measures one run's thread: CPU time and heap allocation since the guest program started. Started and
 * finished on the guest thread; read from the monitor thread in between.
 */
public final class RunMeter {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private final RunGuard guard;
  private final Duration maxCpu;
  private final long maxAllocated;
  // Made now, not when a limit trips: string concatenation is bootstrapped on first use, and that first
  // use must not fall on a heap that is running out.
  private final String cpuDetail;
  private final String memoryDetail;
  private volatile long threadId = -1;
  /** The guest thread and its allocation when it took the run, before making the context; see {@link #chargedBytes}. */
  private volatile long chargedThreadId = -1;
  private volatile long chargedBase;
  private volatile long chargedAtEnd = -1;
  private long cpuBase;
  private long allocatedBase;
  private volatile long cpuAtEnd = -1;
  private volatile long allocatedAtEnd = -1;
  /** Lowers the run's thread past its sandbox's CPU threshold; null where nothing does (see {@link #start}). */
  private volatile RunThreads.Demotion demotion;

  public RunMeter(RunGuard guard, Duration maxCpu, long maxAllocated) {
    this.guard = guard;
    this.maxCpu = maxCpu;
    this.maxAllocated = maxAllocated;
    this.cpuDetail = "CPU time exceeded " + maxCpu.toMillis() + " ms";
    this.memoryDetail = "allocated more than " + maxAllocated + " bytes";
    guard.meteredBy(this);
  }

  /**
   * Starts counting the run's share of the heap; call on the guest thread when it takes the run, before
   * it makes the context, whose own footprint is the run's too.
   */
  public void startCharging() {
    chargedBase = THREADS.getCurrentThreadAllocatedBytes();
    chargedThreadId = Thread.currentThread().threadId();
  }

  /**
   * What the heap guard counts against the budget: the guest thread's allocation since
   * {@link #startCharging()} (context creation included), or since {@link #start()} without it. An upper
   * bound of what the run holds, garbage included. Read from any thread.
   */
  long chargedBytes() {
    long end = chargedAtEnd;
    if (end >= 0) {
      return end;
    }
    long id = chargedThreadId;
    if (id < 0) {
      return allocatedBytes();
    }
    return Math.max(0, THREADS.getThreadAllocatedBytes(id) - chargedBase);
  }

  /** Takes the baselines; call on the guest thread just before the program starts. */
  public void start() {
    cpuBase = THREADS.getCurrentThreadCpuTime();
    allocatedBase = THREADS.getCurrentThreadAllocatedBytes();
    demotion = RunThreads.demotionOfCurrentRun();
    threadId = Thread.currentThread().threadId();
  }

  /** Takes the final readings; call on the guest thread when the program (and copy-out) is done. */
  public void finish() {
    if (chargedThreadId >= 0) {
      chargedAtEnd = THREADS.getCurrentThreadAllocatedBytes() - chargedBase;
    }
    if (threadId >= 0) {
      cpuAtEnd = THREADS.getCurrentThreadCpuTime() - cpuBase;
      allocatedAtEnd = THREADS.getCurrentThreadAllocatedBytes() - allocatedBase;
    }
  }

  /** CPU time used so far (or in total, once finished); zero before the start. */
  public Duration cpuTime() {
    if (cpuAtEnd >= 0) {
      return Duration.ofNanos(cpuAtEnd);
    }
    long id = threadId;
    return id < 0 ? Duration.ZERO : Duration.ofNanos(Math.max(0, THREADS.getThreadCpuTime(id) - cpuBase));
  }

  /** Bytes allocated so far (or in total, once finished); zero before the start. */
  public long allocatedBytes() {
    if (allocatedAtEnd >= 0) {
      return allocatedAtEnd;
    }
    long id = threadId;
    return id < 0 ? 0 : Math.max(0, THREADS.getThreadAllocatedBytes(id) - allocatedBase);
  }

  boolean isRunning() {
    return threadId >= 0 && cpuAtEnd < 0;
  }

  RunGuard guard() {
    return guard;
  }

  /** Trips the CPU or memory limit if this run is past it, and interrupts an inline tool call past its timeout. */
  void check() {
    if (!isRunning()) {
      return;
    }
    guard.checkInlineCall(System.nanoTime());
    Duration cpu = cpuTime();
    RunThreads.Demotion d = demotion;
    if (d != null) {
      d.check(cpu.toNanos());
    }
    if (cpu.compareTo(maxCpu) > 0) {
      guard.trip(org.polyglotsandbox.Limit.CPU_TIME, cpuDetail, org.polyglotsandbox.Layer.WATCHDOG, true);
    }
    long allocated = allocatedBytes();
    if (allocated > maxAllocated) {
      guard.trip(org.polyglotsandbox.Limit.MEMORY, memoryDetail, org.polyglotsandbox.Layer.WATCHDOG, true);
    }
  }
}
