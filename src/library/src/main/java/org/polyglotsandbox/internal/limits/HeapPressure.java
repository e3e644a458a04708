package org.polyglotsandbox.internal.limits;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * How full the host heap is after garbage collection, the only reading that is not mostly garbage.
 * JVM-wide: listens to every collector's notifications once.
 */
final class HeapPressure {
  private static final HeapPressure INSTANCE = new HeapPressure();

  private final Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
      .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
  private final long maxHeap = Runtime.getRuntime().maxMemory();
  private final AtomicLong collections = new AtomicLong();
  private volatile double usedAfterGc;

  private HeapPressure() {
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener((n, handback) -> {
          if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            onCollection(GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData()));
          }
        }, null, null);
      }
    }
  }

  static HeapPressure get() {
    return INSTANCE;
  }

  private void onCollection(GarbageCollectionNotificationInfo info) {
    long used = 0;
    for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(pool.getKey())) {
        used += pool.getValue().getUsed();
      }
    }
    usedAfterGc = maxHeap <= 0 ? 0 : (double) used / maxHeap;
    collections.incrementAndGet();
  }

  /** The fraction of the maximum heap in use after the most recent collection. */
  double usedAfterLastCollection() {
    return usedAfterGc;
  }

  /** How many collections have been seen; a new reading comes with each. */
  long collections() {
    return collections.get();
  }
}
