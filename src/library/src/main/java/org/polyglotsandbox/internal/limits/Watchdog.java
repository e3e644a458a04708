package org.polyglotsandbox.internal.limits;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.graalvm.polyglot.ResourceLimits;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.internal.text.Durations;

/**
 * Every time limit of every run, in one place: the wall-clock deadline, the point past it where a guest
 * that ignores cancellation is abandoned, CPU time, heap allocation and inline tool calls past their
 * timeout, checked every {@value #PERIOD_MILLIS} ms on one daemon thread; and
 * the statement limit, which GraalVM counts itself ({@link #statementLimit}).
 *
 * <p>Wall-clock time comes from a {@link Ticker}, so a test can move time by hand and call
 * {@link #tick()} instead of sleeping. CPU time and allocation are the guest thread's own, read from
 * the JVM ({@link RunMeter}).
 *
 * <p>The host heap is guarded JVM-wide by the {@link HeapSentinel}, on a thread of its own: every
 * watched run counts against one budget, the heaviest allocators are stopped when the heap is over it,
 * and {@link #admitsNewRuns()} holds new runs back until it recovers.
 */
public final class Watchdog implements AutoCloseable {
  /** How often running guests are checked; bounds how far past a limit a guest gets. */
  public static final long PERIOD_MILLIS = 10;

  /** A source of nanoseconds for the wall clock, as {@link System#nanoTime()} gives them. */
  @FunctionalInterface
  public interface Ticker {
    Ticker SYSTEM = System::nanoTime;

    long read();
  }

  /** One run under watch, from its start until {@link #stop()}. */
  public final class Watch {
    private final RunGuard guard;
    private final RunMeter meter;
    private final Duration wallTime;
    private final long deadline;
    private final long grace;
    /**
     * The deadline plus the grace, or sooner: the grace from the first check that saw the run cancelled.
     * Only the watchdog's thread reads and writes it.
     */
    private long abandonAt;
    private final Runnable onAbandon;

    private Watch(RunGuard guard, RunMeter meter, Duration wallTime, Duration grace, Runnable onAbandon) {
      long now = ticker.read();
      this.guard = guard;
      this.meter = meter;
      this.wallTime = wallTime;
      this.deadline = now + wallTime.toNanos();
      this.grace = grace.toNanos();
      this.abandonAt = deadline + this.grace;
      this.onAbandon = onAbandon;
    }

    /** Trips the wall-time limit now, as the deadline would. */
    public void tripDeadline() {
      guard.trip(Limit.WALL_TIME, "wall time exceeded " + Durations.format(wallTime), Layer.WATCHDOG, true);
    }

    /** Ends the watch: the run has its result. Idempotent. */
    public void stop() {
      watches.remove(this);
    }

    /**
     * Ends the run's share of the heap budget: its context is closed, nothing it allocated is reachable.
     * Called by the guest thread at the very end, or where the run never got one; a guest that was
     * abandoned keeps its share until its thread returns. Idempotent.
     */
    public void release() {
      stop();
      heap.remove(meter);
    }

    private void check(long now) {
      // A guest told to stop (its CPU or heap cap, a cancel, the sandbox closing) has the grace from then,
      // not from its deadline: one that ignores it then hands its caller the result that much sooner. The
      // first check that sees it sets the time; later ones, with a later now, never move it.
      if (guard.isCancelled() && now + grace - abandonAt < 0) {
        abandonAt = now + grace;
      }
      if (now - abandonAt >= 0) {
        if (now - deadline >= 0) {
          tripDeadline();
        }
        // Ended only once the abandon is done: if it throws (the heap may have no room for the run's
        // result), the next look tries again, or the caller would wait for a guest that never returns.
        onAbandon.run();
        stop();
        return;
      }
      if (now - deadline >= 0) {
        tripDeadline();
      }
      if (meter.isRunning()) {
        guard.checkInlineCall(System.nanoTime()); // inline deadlines are taken from System.nanoTime()
        meter.check();
      }
    }
  }

  /**
   * A deadline with no run behind it (yet): a run's start, bounded by its start timeout. Past it,
   * {@code onTimeout} runs once, on the watchdog thread.
   */
  public final class Timer {
    private final long deadline;
    private final Runnable onTimeout;

    private Timer(Duration timeout, Runnable onTimeout) {
      this.deadline = ticker.read() + timeout.toNanos();
      this.onTimeout = onTimeout;
    }

    /** Ends the timer without running it. Idempotent. */
    public void stop() {
      timers.remove(this);
    }

    private void check(long now) {
      // Removed only once onTimeout is done: if it throws (the heap may have no room), the next look runs it
      // again, so it must do nothing the second time that it did the first.
      if (now - deadline >= 0 && timers.contains(this)) {
        onTimeout.run();
        timers.remove(this);
      }
    }
  }

  private final Ticker ticker;
  private final double heapThreshold;
  private final Set<Timer> timers = ConcurrentHashMap.newKeySet();
  private final HeapSentinel heap = HeapSentinel.get();
  private final java.util.List<Runnable> reliefListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
  private final ScheduledThreadPoolExecutor thread;
  /**
   * Where contexts are closed to cancel them: never the watchdog's own thread, because
   * {@code close(true)} waits for the guest thread, and a guest stuck in an inline tool handler that
   * ignores interrupts would hold the watchdog, and with it every other run's limits.
   */
  private final ExecutorService cancellers;
  private volatile Thread watchdogThread;
  /** The process's CPU over the last 100 ms or more, sampled on every tick. */
  private final CpuLoad cpuLoad = new CpuLoad(TimeUnit.MILLISECONDS.toNanos(100));
  /** The process's CPU time, or null where the JVM does not give it. */
  private static final com.sun.management.OperatingSystemMXBean OS =
      java.lang.management.ManagementFactory.getOperatingSystemMXBean()
          instanceof com.sun.management.OperatingSystemMXBean os ? os : null;

  /**
   * @param heapThreshold the fraction of the maximum heap that the host and all running guests may hold
   *     together (see {@link HeapSentinel})
   * @param periodic whether to check every {@value #PERIOD_MILLIS} ms on a thread of its own; a test
   *     that moves the ticker by hand calls {@link #tick()} itself
   */
  public Watchdog(Ticker ticker, double heapThreshold, boolean periodic) {
    this.ticker = ticker;
    this.heapThreshold = heapThreshold;
    this.thread = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "polyglot-sandbox-watchdog");
      t.setDaemon(true);
      watchdogThread = t;
      return t;
    });
    thread.setRemoveOnCancelPolicy(true);
    AtomicInteger cancellerNumber = new AtomicInteger();
    this.cancellers = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "polyglot-sandbox-cancel-" + cancellerNumber.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    if (periodic) {
      thread.scheduleAtFixedRate(this::tick, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Watches one run: from now, {@code wallTime} until its deadline trips {@link Limit#WALL_TIME}, and
   * {@code grace} more until {@code onAbandon} runs (once, on the watchdog thread) for a guest that
   * ignored the cancellation, or {@code grace} from the first check that sees it cancelled if that comes
   * sooner (a CPU or heap cap, a cancel); meanwhile the meter's CPU and allocation caps once it has
   * started.
   */
  public Watch watch(RunGuard guard, RunMeter meter, Duration wallTime, Duration grace, Runnable onAbandon) {
    Watch w = new Watch(guard, meter, wallTime, grace, onAbandon);
    watches.add(w);
    heap.add(meter, heapThreshold);
    return w;
  }

  /**
   * Runs {@code onTimeout} once, on the watchdog thread, {@code timeout} from now, unless the timer is
   * {@linkplain Timer#stop() stopped} first; again at each later look while it throws (the heap can have no
   * room for what it does), so a second call must not redo what a first one that threw had done.
   * {@code onTimeout} must not block: it holds every run's limits.
   */
  public Timer after(Duration timeout, Runnable onTimeout) {
    Timer t = new Timer(timeout, onTimeout);
    timers.add(t);
    return t;
  }

  /**
   * Which sources' statements count: the guest's, not the sandbox's own code in the context (the
   * process shield, {@code readText}, the event loop, the output boundary, the tool wrappers: all built
   * {@code internal}), which runs before the program and would otherwise eat a small limit before its
   * first statement (a Python context's set-up took 5,000-10,000). A guest cannot make an internal
   * source. One instance for every context: GraalVM allows one predicate per engine.
   */
  private static final java.util.function.Predicate<org.graalvm.polyglot.Source> GUEST_SOURCES =
      source -> !source.isInternal();

  /**
   * The statement limit GraalVM enforces inside the context: past {@code maxStatements} of the guest's
   * own sources ({@link #GUEST_SOURCES}) the guest is stopped and the run ends {@link Limit#STATEMENTS}.
   */
  public static ResourceLimits statementLimit(long maxStatements, RunGuard guard) {
    return ResourceLimits.newBuilder()
        .statementLimit(maxStatements, GUEST_SOURCES)
        .onLimit(event -> guard.trip(Limit.STATEMENTS, "more than " + maxStatements + " statements",
            Layer.STATEMENT_LIMIT, false))
        .build();
  }

  /** One pass over every watched run. Never throws. */
  public void tick() {
    // Nothing may escape: a periodic task that throws once is never run again, and every run's limits
    // would be gone with it. Errors too: under an allocation bomb a check can meet an OutOfMemoryError.
    try {
      if (OS != null) {
        cpuLoad.sample(System.nanoTime(), OS::getProcessCpuTime);
      }
      long now = ticker.read();
      for (Timer t : timers) {
        try {
          t.check(now);
        } catch (Throwable e) {
          failed(e);
        }
      }
      for (Watch w : watches) {
        try {
          w.check(now);
        } catch (Throwable e) {
          failed(e);
        }
      }
    } catch (Throwable e) {
      failed(e);
    }
  }

  private static void failed(Throwable e) {
    try {
      if (e instanceof OutOfMemoryError) {
        // A guest's single huge allocation can fill the heap for a moment (docs/limits.md, 'A single huge allocation'); the
        // check runs again on the next tick, once that memory is garbage.
        System.getLogger("org.polyglotsandbox").log(System.Logger.Level.WARNING,
            "a resource check ran out of host heap; it runs again on the next tick");
        return;
      }
      System.getLogger("org.polyglotsandbox").log(System.Logger.Level.WARNING, "resource check failed", e);
    } catch (Throwable ignored) {
      // out of memory even for the log line: the next tick tries again
    }
  }

  /**
   * Whether a new run may start beside the running ones: false while the host heap is over budget or a
   * run stopped for memory has not yet ended.
   */
  public boolean admitsNewRuns() {
    return heap.admitsNewRuns();
  }

  /**
   * Whether a run may start when none is running: false while a run stopped for memory still holds its
   * context (for at most {@link HeapSentinel#RELEASE_WAIT_SECONDS} s after it was stopped).
   */
  public boolean admitsRunAlone() {
    return heap.admitsRunAlone();
  }

  /** Runs {@code listener} each time the heap pressure ends, until this watchdog is closed; it must be quick. */
  public void onHeapRelief(Runnable listener) {
    reliefListeners.add(listener);
    heap.onRelief(listener);
  }

  /** Takes the heap in use now as the host's own share (see {@link HeapSentinel}); call after a warm-up. */
  public void noteHostBaseline() {
    heap.noteHostBaseline();
  }

  /** Where contexts are closed to cancel them: off the guest threads and off the watchdog thread. */
  public Executor canceller() {
    return cancellers;
  }

  /**
   * Called where the sandbox's own work (stopping a guest, closing its context, finishing its run) met an
   * {@link OutOfMemoryError}: gives the heap guard's reserve back to the heap so that the work can be
   * done again and the guest's memory freed. Allocates nothing.
   */
  public static void heapExhausted() {
    HeapSentinel.get().releaseReserve();
  }

  /**
   * Closes a run's context with cancellation, again while the heap is out of room (a context left open
   * holds all its guest allocated, for good).
   *
   * @return what close threw though the context is closed (a limit it rethrows), or null
   * @throws OutOfMemoryError if the heap stayed full through every try (about 10 s)
   */
  public static Throwable closeCancelled(org.graalvm.polyglot.Context context) {
    return Cancellation.closeWithCancellation(context);
  }

  /** Whether the calling thread is the watchdog's (where no embedder code may run). */
  public boolean isWatchdogThread() {
    return Thread.currentThread() == watchdogThread;
  }

  /**
   * How many cores this JVM kept busy over the last 100 ms or so (every thread: guests, the JIT, GC), or
   * NaN where that is not known (the JVM gives no process CPU time, or the watchdog has not ticked yet).
   */
  public double busyCores() {
    return cpuLoad.cores();
  }

  /** Runs being watched now. */
  public int watching() {
    return watches.size();
  }

  @Override
  public void close() {
    reliefListeners.forEach(heap::removeReliefListener);
    thread.shutdown();
    cancellers.shutdown(); // closings already handed over still run; threads idle 60 s, then end
  }
}
