package org.polyglotsandbox.internal.limits;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;

/**
 * The JVM-wide heap guard: every running guest of every sandbox counted against one budget, a fraction
 * of the maximum heap ({@link Runtime#maxMemory()}), on a daemon thread of its own that looks more
 * often the faster the guests allocate (every 1 to {@value Watchdog#PERIOD_MILLIS} ms), and is woken by
 * every garbage collection and by the heap pools' usage thresholds.
 *
 * <p>GraalVM CE cannot say how much of the heap a context holds, so each run is charged what its thread
 * allocated since it took the run (its context's creation included): an upper bound of what it holds,
 * exact for a guest that keeps everything. Each collection then credits the runs: what survived it, less
 * the host's own share (the lowest heap reading after a collection in the last
 * {@value #HOST_WINDOW_SECONDS} s), is all the runs can hold, and their charges are scaled down to it in
 * proportion. The host's share plus the charges is the estimate of the live heap; between collections
 * it grows by every byte the runs allocate.
 *
 * <ul>
 *   <li>When the estimate passes the kill line, or the heap after a collection passes nine tenths, the
 *       runs whose programs allocated the most are stopped ({@link Limit#MEMORY}), as many as it takes
 *       to get a tenth of the heap below that line, never one whose program allocated less than
 *       1/{@value #SMALLEST_VICTIM_SHARE} of the heap; while the heap stays over, each look stops more.
 *       The kill line is the budget, lowered by what the guests allocated in the last
 *       {@value #CANCEL_LATENCY_MILLIS} ms (they may allocate as much again in the time a cancellation
 *       may take to stop them on a busy machine; at most two fifths of the heap) and kept a tenth of the
 *       heap below its end. A window, not a peak rate: one large allocation, or a bomb that has ended,
 *       must not lower the line for the runs after it.
 *   <li>Once the estimate is halfway from the host's share to the kill line, or while a run stopped
 *       for memory has not yet ended, no new run starts beside running ones ({@link #admitsNewRuns()});
 *       listeners hear when that ends.
 *   <li>In the {@value #RELEASE_WAIT_SECONDS} s after a stop, new runs also wait while the heap after the
 *       last collection is over that halfway line: the stopped runs are off the books once they end, but
 *       what they held is garbage that young collections do not reach. Once nothing stopped is left
 *       running, a full collection is asked for ({@link System#gc()}, at most every
 *       {@value #COLLECTION_REQUEST_MILLIS} ms) so that the next reading shows it freed.
 *   <li>A reserve of heap (a 32nd, at most 32 MiB) is given back when a collection leaves the heap past
 *       nine tenths, or when stopping or closing a guest meets an {@link OutOfMemoryError}
 *       ({@link #releaseReserve()}): unwinding a stopped guest and closing its context allocate. It is
 *       taken again once the pressure is over and a collection since has shown room for it.
 *   <li>While a run stopped for memory has not yet closed its context, not even a run alone starts
 *       ({@link #admitsRunAlone()}): a run's turn is given back when its result is out, before its
 *       context is closed, and the next run would otherwise fill the heap beside what the stopped one
 *       still holds. At most
 *       {@value #RELEASE_WAIT_SECONDS} s after the stop: a guest thread that never ends must not hold
 *       every later run.
 * </ul>
 *
 * <p>A look allocates nothing once its buffers have grown to the number of runs: it is most needed when
 * the heap has nothing left to give.
 *
 * <p>In a JVM with several sandboxes the lowest threshold among the running guests applies.
 */
final class HeapSentinel {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  private static final HeapSentinel INSTANCE = new HeapSentinel();
  static final long HOST_WINDOW_SECONDS = 30;
  static final long CANCEL_LATENCY_MILLIS = 250;
  static final int SMALLEST_VICTIM_SHARE = 64;
  static final long RELEASE_WAIT_SECONDS = 10;
  static final long COLLECTION_REQUEST_MILLIS = 500;
  /** Looks in the last {@value #CANCEL_LATENCY_MILLIS} ms, at most: at least 1 ms apart. */
  private static final int GROWTH_SLOTS = 512;
  private static final long MIN_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long MAX_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(Watchdog.PERIOD_MILLIS);
  private static final long MIB = 1 << 20;
  /** The reserve: a 32nd of the heap, at most 32 MiB, in chunks small enough for any collector's regions. */
  static final long RESERVE_MAX_BYTES = 32 * MIB;
  private static final int RESERVE_CHUNK_BYTES = 256 * 1024;

  /** One run under guard. */
  private static final class Entry {
    final RunMeter meter;
    final double threshold;
    /** Bytes of the charge that collections showed cannot be live; guarded by the sentinel. */
    long credit;
    long atLastCheck;
    volatile boolean stoppedHere;
    /** When the sentinel stopped it, and what its program had allocated then; guarded by the sentinel. */
    long stoppedAtNanos;
    long allocatedAtStop;

    Entry(RunMeter meter, double threshold) {
      this.meter = meter;
      this.threshold = threshold;
    }

    long live() {
      return Math.max(0, meter.chargedBytes() - credit);
    }

    boolean stopped() {
      return meter.guard().isCancelled();
    }
  }

  /** A heap reading after a collection. */
  private record Reading(long nanos, long used) {}

  private final long maxHeap = Runtime.getRuntime().maxMemory();
  private final Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
      .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
  private final Map<RunMeter, Entry> runs = new ConcurrentHashMap<>();
  private final List<Runnable> reliefListeners = new CopyOnWriteArrayList<>();
  /** Heap readings after collections, oldest first, within the host window; guarded by this. */
  private final ArrayDeque<Reading> readings = new ArrayDeque<>();
  private final Thread thread;
  private volatile long usedAfterLastCollection;
  private volatile boolean pressure;
  /** Whether the sentinel parks with no run to guard, until {@link #add} wakes it. */
  private volatile boolean idle;
  /**
   * Heap held back for the way out of a full heap: dropped when the heap after a collection passes the
   * hard line, or when a stop or a close meets an {@link OutOfMemoryError}, so that stopping guests, unwinding
   * their threads and closing their contexts (all of which allocate) can finish; taken again once the
   * pressure is over and a later collection has shown room. Null while released.
   */
  private volatile byte[][] reserve;
  private final int reserveChunks;
  /** When the reserve was last given back, and when the last collection ended ({@link System#nanoTime()}). */
  private volatile long reserveReleasedNanos;
  private volatile long lastCollectionNanos;
  /** Whether a run stopped for memory (within the release wait) still holds its context. */
  private volatile boolean releasePending;
  /** Set by a look that ended the pressure, for the loop to tell the listeners. */
  private boolean relieved;
  /** Set by a look that wants a full collection ({@link #collectNow()}), for the loop to ask for it. */
  private boolean collectionWanted;
  /** When the sentinel last stopped a run, or 0; written under this. */
  private volatile long lastStopNanos;
  /** When the sentinel last asked for a full collection; guarded by this. */
  private long lastCollectionRequestNanos;
  private long lastCheckNanos = System.nanoTime();
  /**
   * What the runs allocated at each look in the last {@value #CANCEL_LATENCY_MILLIS} ms: a ring, oldest at
   * {@code growthHead}; guarded by this.
   */
  private final long[] growthNanos = new long[GROWTH_SLOTS];
  private final long[] growthBytes = new long[GROWTH_SLOTS];
  private int growthHead;
  private int growthCount;
  private long recentGrowthSum;
  /** What the runs allocated (as the looks saw it) since the last collection; guarded by this. */
  private long grownSinceCollection;
  /** A look's buffers, grown to the number of runs; guarded by this. */
  private Entry[] entries = new Entry[16];
  private long[] liveBuf = new long[16];
  private long[] programBuf = new long[16];
  private boolean[] pickedBuf = new boolean[16];

  private HeapSentinel() {
    reserveChunks = (int) Math.max(1, Math.min(RESERVE_MAX_BYTES, maxHeap / 32) / RESERVE_CHUNK_BYTES);
    reserveReleasedNanos = System.nanoTime() - 1;
    lastCollectionNanos = System.nanoTime();
    takeReserve();
    long usedNow = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    readings.add(new Reading(System.nanoTime(), usedNow)); // garbage included: an over-estimate
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener((n, handback) -> {
          if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            onCollection(GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData()));
          }
        }, null, null);
      }
    }
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      long max = pool.getUsage().getMax();
      // Only where nobody set one: the thresholds are the JVM's, and the embedder may use them too.
      if (pool.getType() == MemoryType.HEAP && pool.isUsageThresholdSupported() && max > 0
          && pool.getUsageThreshold() == 0) {
        pool.setUsageThreshold(max / 2);
      }
    }
    if (ManagementFactory.getMemoryMXBean() instanceof NotificationEmitter emitter) {
      emitter.addNotificationListener((n, handback) -> wake(),
          n -> MemoryNotificationInfo.MEMORY_THRESHOLD_EXCEEDED.equals(n.getType()), null);
    }
    // What a stop needs, used once now: its first use must not fall on a heap that is running out.
    detail(0, 0, 0);
    thread = Thread.ofPlatform().name("polyglot-sandbox-heap-sentinel").daemon(true).unstarted(this::loop);
    thread.setPriority(Thread.MAX_PRIORITY);
    thread.start();
  }

  static HeapSentinel get() {
    return INSTANCE;
  }

  /**
   * Takes the heap in use now, garbage included, as the host's share until a collection shows less:
   * called when a sandbox is built, so that the engine and its warm-up count as the host's.
   */
  void noteHostBaseline() {
    long usedNow = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    synchronized (this) {
      readings.clear();
      readings.add(new Reading(System.nanoTime(), usedNow));
    }
  }

  /**
   * Guards one run until {@link #remove}; {@code threshold} is its sandbox's budget, a fraction of the heap.
   * Wakes the sentinel if it is idle, under pressure, or in the {@value #RELEASE_WAIT_SECONDS} s after it
   * stopped a run (when held runs start together into a heap a bomb has just left); otherwise its next look,
   * at most {@link Watchdog#PERIOD_MILLIS} ms away and sooner the faster the runs allocate, sees the new
   * run (waking it for every run cost 10-13 µs of its CPU per run at 3,000-4,000 runs a second;
   * RESULTS.md, 2026-12-02 evening).
   */
  void add(RunMeter meter, double threshold) {
    runs.put(meter, new Entry(meter, threshold));
    long stopped = lastStopNanos;
    if (idle || pressure
        || (stopped != 0 && System.nanoTime() - stopped < TimeUnit.SECONDS.toNanos(RELEASE_WAIT_SECONDS))) {
      wake();
    }
  }

  /** Ends a run's charge: what it held is unreachable now. */
  void remove(RunMeter meter) {
    Entry e = runs.remove(meter);
    if (e != null && e.stoppedHere && LOG.isLoggable(System.Logger.Level.DEBUG)) {
      // How long a stop took, and what the guest allocated meanwhile: what the kill line must leave room for.
      LOG.log(System.Logger.Level.DEBUG, "heap sentinel: stopped run " + meter.guard().runId() + " ended "
          + (System.nanoTime() - e.stoppedAtNanos) / 1_000_000 + " ms after its stop, its program allocating "
          + (meter.allocatedBytes() - e.allocatedAtStop) / MIB + " MiB more");
    }
    if (e != null && pressure) {
      wake(); // its memory may have been the pressure
    }
  }

  /** Whether a new run may start beside the running ones: false while the heap is near its budget. */
  boolean admitsNewRuns() {
    return !pressure;
  }

  /** Whether a run may start when none is running: false while a run stopped for memory holds its context. */
  boolean admitsRunAlone() {
    return !releasePending;
  }

  /**
   * Gives the reserve back to the heap: called where stopping or closing a guest met an
   * {@link OutOfMemoryError}, and by the sentinel itself when the heap after a collection passes its hard
   * line. Allocates nothing.
   */
  void releaseReserve() {
    reserveReleasedNanos = System.nanoTime();
    reserve = null;
  }

  /** Whether the reserve is held now (false while released). */
  boolean holdsReserve() {
    return reserve != null;
  }

  /**
   * Takes the reserve if it is not held and a collection since it was given back has been seen (the
   * callers check that it showed room); gives up quietly when the heap has no room for it.
   */
  private void takeReserve() {
    if (reserve != null || lastCollectionNanos - reserveReleasedNanos <= 0) {
      return;
    }
    try {
      byte[][] chunks = new byte[reserveChunks][];
      for (int i = 0; i < chunks.length; i++) {
        chunks[i] = new byte[RESERVE_CHUNK_BYTES];
      }
      reserve = chunks;
    } catch (OutOfMemoryError noRoom) {
      // taken again on a later look
    }
  }

  /** Runs {@code listener} (on the sentinel's thread; it must be quick) each time the pressure ends. */
  void onRelief(Runnable listener) {
    reliefListeners.add(listener);
  }

  void removeReliefListener(Runnable listener) {
    reliefListeners.remove(listener);
  }

  private void wake() {
    LockSupport.unpark(thread);
  }

  private void onCollection(GarbageCollectionNotificationInfo info) {
    long used = 0;
    for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(pool.getKey())) {
        used += pool.getValue().getUsed();
      }
    }
    long now = System.nanoTime();
    synchronized (this) {
      grownSinceCollection = 0;
      readings.add(new Reading(now, used));
      while (readings.size() > 1
          && now - readings.peekFirst().nanos() > TimeUnit.SECONDS.toNanos(HOST_WINDOW_SECONDS)) {
        readings.pollFirst();
      }
      // What survived, less the host's share, is all the runs can hold: scale their charges down to it.
      long canHold = Math.max(0, used - hostEstimate());
      long total = 0;
      for (Entry e : runs.values()) {
        total += e.live();
      }
      if (total > canHold) {
        double keep = (double) canHold / total;
        for (Entry e : runs.values()) {
          e.credit += (long) (e.live() * (1 - keep));
        }
      }
    }
    usedAfterLastCollection = used;
    lastCollectionNanos = now;
    wake();
  }

  /** The host's own live heap, at most: the lowest reading after a collection in the window. Holds this. */
  private long hostEstimate() {
    long min = Long.MAX_VALUE;
    for (Reading r : readings) {
      min = Math.min(min, r.used());
    }
    return min;
  }

  private void loop() {
    while (true) {
      long period = MAX_PERIOD_NANOS;
      try {
        if (runs.isEmpty()) {
          if ((pressure || releasePending) && garbageOfStoppedRunsLeft(System.nanoTime())) {
            collectNow(); // before the held runs all start into a heap full of what the stopped ones left
          }
          if (pressure || releasePending) {
            synchronized (this) {
              pressure = false;
              releasePending = false;
            }
            tellRelief();
          }
          if (usedAfterLastCollection < maxHeap / 2) {
            takeReserve();
          }
          // Set before the second look at the runs, and read by add() after its put: either this sees the
          // new run, or add() sees the flag and wakes it (both are volatile, so one of them must).
          idle = true;
          if (runs.isEmpty()) {
            LockSupport.park(this);
          }
          idle = false;
          continue;
        }
        period = check();
        if (collectionWanted) {
          collectionWanted = false;
          collectNow();
        }
        if (relieved) {
          relieved = false;
          tellRelief();
        }
      } catch (RuntimeException | OutOfMemoryError e) {
        // A failed check must never end the guard.
        try {
          LOG.log(System.Logger.Level.WARNING, "heap check failed", e);
        } catch (Throwable ignored) {
          // Logging needs memory too.
        }
      }
      LockSupport.parkNanos(this, period);
    }
  }

  /** One look at every run and the heap; returns how long until the next. */
  private synchronized long check() {
    long now = System.nanoTime();
    int n = 0;
    for (Entry e : runs.values()) {
      if (n == entries.length) {
        grow(n * 2);
      }
      entries[n++] = e;
    }
    Entry[] all = entries;
    long[] live = liveBuf;
    long[] program = programBuf;
    long total = 0;
    long grew = 0;
    double threshold = 1.0;
    boolean stoppedPending = false;
    long releaseWait = TimeUnit.SECONDS.toNanos(RELEASE_WAIT_SECONDS);
    for (int i = 0; i < n; i++) {
      Entry e = all[i];
      long charged = e.meter.chargedBytes();
      live[i] = Math.max(0, charged - e.credit);
      program[i] = e.meter.allocatedBytes();
      grew += Math.max(0, charged - e.atLastCheck);
      e.atLastCheck = charged;
      total += live[i];
      threshold = Math.min(threshold, e.threshold);
      stoppedPending |= e.stoppedHere && now - e.stoppedAtNanos < releaseWait;
    }
    double seconds = Math.max(1, now - lastCheckNanos) / 1e9;
    lastCheckNanos = now;
    long window = TimeUnit.MILLISECONDS.toNanos(CANCEL_LATENCY_MILLIS);
    addGrowth(now, grew);
    grownSinceCollection += grew;
    while (growthCount > 0 && now - growthNanos[growthHead] > window) {
      dropOldestGrowth();
    }
    // Bytes per second, for when to look next: the faster of now and the window's average.
    double rate = Math.max(grew / seconds, recentGrowthSum * 1e9 / window);
    long host = hostEstimate();
    long afterCollection = usedAfterLastCollection;
    // After a stop, what the stopped runs held is garbage that young collections do not reach, off the books
    // once they end: until a full collection has freed it, the heap holds at least what the last collection
    // left plus all the runs allocated since (seen without this: three bombs left running after a stop took
    // the heap from 256 to 376 of 384 MiB in 180 ms while the estimate counted only their own charges).
    long booked = host + total;
    long estimate = booked;
    if (garbageOfStoppedRunsLeft(now)) {
      estimate = Math.max(booked, afterCollection + grownSinceCollection);
    }
    long budget = (long) (threshold * maxHeap);
    long margin = maxHeap / 10;
    long inFlight = Math.min(maxHeap * 2 / 5, recentGrowthSum);
    long killLine = Math.min(budget, maxHeap - margin - inFlight);
    long hardLine = maxHeap - margin;
    if (afterCollection > hardLine) {
      // What the collector could not free is near the heap's end: the guests stopped now (and those
      // stopped before) need room to unwind and close.
      releaseReserve();
    }
    if (estimate > killLine) {
      stoppedPending |= stopHeaviest(n, now, estimate, killLine - margin, budget);
    } else if (afterCollection > hardLine) {
      stoppedPending |= stopHeaviest(n, now, afterCollection, hardLine - margin, budget);
    }
    Arrays.fill(entries, 0, n, null); // a run that ended must not stay reachable from here
    // New runs wait once the runs hold half of what they may hold below the kill line, and until the runs
    // stopped for memory have ended: with the heap that full the collector takes more time than the
    // guests, and new runs would add to what the stopped ones have not yet given back.
    long holdLine = host + (killLine - host) / 2;
    // The runs a stop ended are off the books, but what they held is garbage that young collections do
    // not reach: new runs wait until a collection shows the heap below the hold line again (a full one
    // is asked for once nothing stopped is left), or they start into a heap that is still nearly full
    // (seen: eight bombs admitted at 300 of 384 MiB, the heap out a few hundred ms later).
    boolean garbageLeft = afterCollection > holdLine && garbageOfStoppedRunsLeft(now);
    // (Not while the running runs book more than the hold line themselves: a collection would not bring it below.)
    if (garbageLeft && !stoppedPending && booked <= holdLine) {
      collectionWanted = true; // collectNow() keeps the requests apart
    }
    setPressure(estimate > holdLine || afterCollection > hardLine || stoppedPending || garbageLeft, stoppedPending);
    if (reserve == null && !pressure && afterCollection < holdLine) {
      takeReserve();
    }
    // Look again before the guests could allocate a quarter of what is left below the kill line.
    long headroom = Math.max(0, killLine - estimate);
    long period = rate <= 0 ? MAX_PERIOD_NANOS : (long) (headroom / rate / 4 * 1e9);
    return Math.max(MIN_PERIOD_NANOS, Math.min(MAX_PERIOD_NANOS, period));
  }

  /**
   * Whether what runs stopped for memory held may still fill the heap: a stop in the last
   * {@value #RELEASE_WAIT_SECONDS} s, and the heap after the last collection above half of it.
   */
  private boolean garbageOfStoppedRunsLeft(long now) {
    return lastStopNanos != 0 && now - lastStopNanos < TimeUnit.SECONDS.toNanos(RELEASE_WAIT_SECONDS)
        && usedAfterLastCollection > maxHeap / 2;
  }

  /**
   * Asks for a full collection, on the sentinel's thread (it waits for it), at most every
   * {@value #COLLECTION_REQUEST_MILLIS} ms and only after a stop: so that the next reading shows what the
   * stopped runs left as freed. A JVM run with {@code -XX:+DisableExplicitGC} ignores it; the hold then
   * ends with the release wait.
   */
  private void collectNow() {
    synchronized (this) {
      long now = System.nanoTime();
      if (now - lastCollectionRequestNanos <= TimeUnit.MILLISECONDS.toNanos(COLLECTION_REQUEST_MILLIS)) {
        return;
      }
      lastCollectionRequestNanos = now;
    }
    System.gc();
  }

  /** Grows a look's buffers to {@code size} runs. Holds this. */
  private void grow(int size) {
    entries = Arrays.copyOf(entries, size);
    liveBuf = Arrays.copyOf(liveBuf, size);
    programBuf = Arrays.copyOf(programBuf, size);
    pickedBuf = new boolean[size];
  }

  /** Records what the runs allocated up to the look at {@code nanos}; the oldest drops out when full. Holds this. */
  private void addGrowth(long nanos, long bytes) {
    if (growthCount == GROWTH_SLOTS) {
      dropOldestGrowth();
    }
    int slot = (growthHead + growthCount) % GROWTH_SLOTS;
    growthNanos[slot] = nanos;
    growthBytes[slot] = bytes;
    growthCount++;
    recentGrowthSum += bytes;
  }

  private void dropOldestGrowth() {
    recentGrowthSum -= growthBytes[growthHead];
    growthHead = (growthHead + 1) % GROWTH_SLOTS;
    growthCount--;
  }

  /**
   * Stops the guests whose programs allocated the most, among the first {@code n} of the look's buffers,
   * until {@code level} less what they hold is at most {@code target}. Runs already stopped still hold
   * their memory until they end, so they free nothing here. Holds this.
   *
   * @return whether it stopped any
   */
  private boolean stopHeaviest(int n, long now, long level, long target, long budget) {
    long smallest = maxHeap / SMALLEST_VICTIM_SHARE;
    boolean[] picked = pickedBuf;
    Arrays.fill(picked, 0, n, false);
    boolean any = false;
    while (level > target) {
      int heaviest = -1;
      for (int i = 0; i < n; i++) {
        if (!picked[i] && (heaviest < 0 || programBuf[i] > programBuf[heaviest])) {
          heaviest = i;
        }
      }
      if (heaviest < 0 || programBuf[heaviest] < smallest) {
        break; // the rest allocated less: stopping them would not free the heap
      }
      picked[heaviest] = true;
      Entry e = entries[heaviest];
      if (e.stopped()) {
        continue;
      }
      e.stoppedHere = true;
      e.stoppedAtNanos = now;
      e.allocatedAtStop = programBuf[heaviest];
      lastStopNanos = now;
      any = true;
      e.meter.guard().trip(Limit.MEMORY, detail(level, budget, programBuf[heaviest]), Layer.WATCHDOG, true);
      if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
        LOG.log(System.Logger.Level.DEBUG, "heap sentinel stopped run " + e.meter.guard().runId() + ": level "
            + level / MIB + " MiB, target " + target / MIB + " MiB, its program allocated "
            + programBuf[heaviest] / MIB + " MiB, charged live " + liveBuf[heaviest] / MIB + " MiB, host "
            + hostEstimate() / MIB + " MiB, after last collection " + usedAfterLastCollection / MIB + " MiB");
      }
      level -= liveBuf[heaviest];
    }
    return any;
  }

  private String detail(long level, long budget, long allocated) {
    return "host heap near its limit (about " + level / MIB + " MiB live, budget " + budget / MIB + " MiB, "
        + Math.round(100.0 * budget / Math.max(1, maxHeap)) + "% of the maximum heap); this run allocated"
        + " the most (" + allocated / MIB + " MiB)";
  }

  private void setPressure(boolean now, boolean releaseNow) {
    if ((now != pressure || releaseNow != releasePending) && LOG.isLoggable(System.Logger.Level.DEBUG)) {
      LOG.log(System.Logger.Level.DEBUG, "heap sentinel: pressure " + now + ", stopped runs pending " + releaseNow
          + ", after last collection " + usedAfterLastCollection / MIB + " MiB, host " + hostEstimate() / MIB
          + " MiB, runs " + runs.size());
    }
    relieved |= (pressure && !now) || (releasePending && !releaseNow);
    pressure = now;
    releasePending = releaseNow;
  }

  /** Tells the listeners the pressure ended; on the sentinel's thread, outside its lock. */
  private void tellRelief() {
    for (Runnable r : reliefListeners) {
      try {
        r.run();
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "heap relief listener failed", e);
      }
    }
  }
}
