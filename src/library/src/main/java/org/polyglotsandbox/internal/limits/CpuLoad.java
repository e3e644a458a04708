package org.polyglotsandbox.internal.limits;

/**
 * How many cores the process kept busy over its last complete window, from samples of its CPU time:
 * what the warm pool asks before it leaves an empty pool to the runs in flight (are they using the cores,
 * or waiting for tools and timers?). Not thread-safe for samples (one sampler: the watchdog's thread);
 * {@link #cores()} may be read from any thread.
 */
final class CpuLoad {
  private final long windowNanos;
  private long windowStart;
  private long cpuAtStart = -1;
  /** Cores busy over the last complete window; NaN before the first one (or where CPU time is unknown). */
  private volatile double cores = Double.NaN;

  /** @param windowNanos how long each measured window is at least */
  CpuLoad(long windowNanos) {
    this.windowNanos = windowNanos;
  }

  /**
   * Takes one sample at {@code nanos} ({@link System#nanoTime()}): reads the process's CPU nanoseconds
   * from {@code cpuNanosNow} only when a window starts or is complete, so a sampler that ticks more often
   * than the window asks the JVM no more often. A negative CPU time (not measurable here) leaves the load
   * unknown.
   */
  void sample(long nanos, java.util.function.LongSupplier cpuNanosNow) {
    if (cpuAtStart >= 0 && nanos - windowStart < windowNanos) {
      return;
    }
    long cpuNanos = cpuNanosNow.getAsLong();
    if (cpuNanos < 0) {
      cores = Double.NaN;
      cpuAtStart = -1;
      return;
    }
    if (cpuAtStart < 0 || cpuNanos < cpuAtStart) {
      windowStart = nanos;
      cpuAtStart = cpuNanos;
      return;
    }
    cores = (double) (cpuNanos - cpuAtStart) / (nanos - windowStart);
    windowStart = nanos;
    cpuAtStart = cpuNanos;
  }

  /** Cores busy over the last complete window, or NaN if none was measured. */
  double cores() {
    return cores;
  }
}
