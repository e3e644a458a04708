package org.polyglotsandbox.internal.limits;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;

/**
 * The sandbox's periodic check (every {@value #PERIOD_MILLIS} ms on the watchdog thread) of every
 * running guest's CPU time and allocation, and of the host heap: when the heap is fuller than the
 * threshold after a collection, the run that allocated the most is stopped, one per collection, so that
 * one guest cannot starve the host or its neighbours.
 */
public final class ResourceMonitor implements Runnable {
  /** How often running guests are checked; bounds how far past a CPU or memory cap a guest gets. */
  public static final long PERIOD_MILLIS = 10;

  private final Set<RunMeter> running = ConcurrentHashMap.newKeySet();
  private final double heapThreshold;
  private final HeapPressure heap = HeapPressure.get();
  private long actedOnCollection = -1;

  /** @param heapThreshold fraction of the maximum heap in use after a collection that counts as pressure */
  public ResourceMonitor(double heapThreshold) {
    this.heapThreshold = heapThreshold;
  }

  public void add(RunMeter meter) {
    running.add(meter);
  }

  public void remove(RunMeter meter) {
    running.remove(meter);
  }

  @Override
  public void run() {
    try {
      RunMeter largest = null;
      for (RunMeter m : running) {
        m.check();
        if (m.isRunning() && (largest == null || m.allocatedBytes() > largest.allocatedBytes())) {
          largest = m;
        }
      }
      long collections = heap.collections();
      double used = heap.usedAfterLastCollection();
      if (largest != null && used > heapThreshold && collections != actedOnCollection) {
        actedOnCollection = collections;
        largest.guard().trip(Limit.MEMORY, String.format("host heap under pressure (%.0f%% in use after"
            + " garbage collection); this run allocated the most", used * 100), Layer.WATCHDOG, true);
      }
    } catch (RuntimeException e) {
      // A failed check must never kill the periodic task.
      System.getLogger("org.polyglotsandbox").log(System.Logger.Level.WARNING, "resource check failed", e);
    }
  }
}
