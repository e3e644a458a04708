package org.polyglotsandbox;

import java.time.Duration;
import java.util.Objects;

/**
 * Where guest code runs: in the application's own JVM ({@link #inProcess()}, the default), or in
 * <em>worker</em> processes ({@link #process()}): separate JVMs the sandbox starts, each inside an
 * operating-system wall of its own.
 *
 * <p>With process isolation every run executes in a worker that runs the same engine room as in-process
 * runs do (a fresh context and file system per run, the same policy, limits, tools, inputs, output
 * listeners, audit events and {@link ExecutionResult}); the embedder's code does not change. What it adds:
 * <ul>
 *   <li>a second wall that does not depend on GraalVM's: the worker runs under {@code bubblewrap} in new
 *       user, PID, network, IPC, UTS, mount and cgroup namespaces with no capabilities, a read-only root
 *       holding only the JDK, the sandbox's jars and the mounted host files, a private {@code /tmp}, no
 *       network but loopback, and a seccomp filter that refuses {@code execve}, {@code ptrace}, sockets
 *       and the rest of the usual container denylist;</li>
 *   <li>hard stops: a run past its wall-time or CPU cap plus {@link Builder#killGrace}, a worker whose heap
 *       ran out, a crashed or silent worker: the host kills the worker's processes, answers every run that
 *       was on it at once, and starts a replacement;</li>
 *   <li>memory a guest holds is the worker's, capped by its heap ({@link Builder#workerHeapBytes}) and, where
 *       the host lets one be made, a cgroup; the host JVM's heap does not grow with guests.</li>
 * </ul>
 * The price: a worker costs a JVM's memory, a run's inputs, result and tool calls cross a pipe, and a
 * killed worker takes a second or so to replace ({@code benchmarks/RESULTS.md} has the figures).
 *
 * <p>Where the operating system cannot give the wall (no {@code bwrap}, user namespaces refused, a JDK
 * older than 22 for the seccomp filter), {@link PolyglotSandbox.Builder#build()} refuses with a message
 * naming what is missing, unless the embedder accepts a {@linkplain Builder#weakWall() weaker wall}: a
 * plain child JVM with resource limits.
 */
public final class Isolation {
  private static final Isolation IN_PROCESS = new Isolation(false, 0, 0, 0, 0, 0, Duration.ZERO, Duration.ZERO,
      false, Duration.ZERO);

  private final boolean process;
  private final int workers;
  private final int spareWorkers;
  private final long workerHeapBytes;
  private final int runsPerWorker;
  private final int maxRunsPerWorker;
  private final Duration workerStartTimeout;
  private final Duration killGrace;
  private final boolean weakWall;
  private final Duration silenceTimeout;

  private Isolation(boolean process, int workers, int spareWorkers, long workerHeapBytes, int runsPerWorker,
      int maxRunsPerWorker, Duration workerStartTimeout, Duration killGrace, boolean weakWall,
      Duration silenceTimeout) {
    this.process = process;
    this.workers = workers;
    this.spareWorkers = spareWorkers;
    this.workerHeapBytes = workerHeapBytes;
    this.runsPerWorker = runsPerWorker;
    this.maxRunsPerWorker = maxRunsPerWorker;
    this.workerStartTimeout = workerStartTimeout;
    this.killGrace = killGrace;
    this.weakWall = weakWall;
    this.silenceTimeout = silenceTimeout;
  }

  /** Guest code runs in the application's own JVM, on threads of the sandbox: the default. */
  public static Isolation inProcess() {
    return IN_PROCESS;
  }

  /** Process isolation with the defaults {@link Builder} lists. */
  public static Isolation process() {
    return processBuilder().build();
  }

  /** Process isolation, configured. */
  public static Builder processBuilder() {
    return new Builder();
  }

  /** Whether runs execute in worker processes. */
  public boolean isProcess() {
    return process;
  }

  /** Workers that take runs; 0 in-process. */
  public int workers() {
    return workers;
  }

  /** Workers kept started and waiting beyond {@link #workers()}, to replace one that is killed or retired. */
  public int spareWorkers() {
    return spareWorkers;
  }

  /** Each worker's maximum heap ({@code -Xmx}), in bytes; 0 in-process. */
  public long workerHeapBytes() {
    return workerHeapBytes;
  }

  /** Runs one worker executes at once; 0 in-process. */
  public int runsPerWorker() {
    return runsPerWorker;
  }

  /** Runs a worker takes before it is retired and replaced; 0 in-process. */
  public int maxRunsPerWorker() {
    return maxRunsPerWorker;
  }

  /** How long a worker may take from its start until it is ready; zero in-process. */
  public Duration workerStartTimeout() {
    return workerStartTimeout;
  }

  /** How long past a run's wall-time or CPU cap the host waits before it kills the worker; zero in-process. */
  public Duration killGrace() {
    return killGrace;
  }

  /** How long a busy worker may send nothing (it reports every 100 ms) before it is held dead; zero in-process. */
  public Duration silenceTimeout() {
    return silenceTimeout;
  }

  /** Whether the embedder accepts a plain child JVM with resource limits where the full wall is unavailable. */
  public boolean acceptsWeakWall() {
    return weakWall;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Isolation i && process == i.process && workers == i.workers && spareWorkers == i.spareWorkers
        && workerHeapBytes == i.workerHeapBytes && runsPerWorker == i.runsPerWorker
        && maxRunsPerWorker == i.maxRunsPerWorker && workerStartTimeout.equals(i.workerStartTimeout)
        && killGrace.equals(i.killGrace) && weakWall == i.weakWall && silenceTimeout.equals(i.silenceTimeout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(process, workers, spareWorkers, workerHeapBytes, runsPerWorker, maxRunsPerWorker,
        workerStartTimeout, killGrace, weakWall, silenceTimeout);
  }

  @Override
  public String toString() {
    if (!process) {
      return "in-process";
    }
    return "process (workers=" + workers + ", spareWorkers=" + spareWorkers + ", workerHeap="
        + (workerHeapBytes >> 20) + " MiB, runsPerWorker=" + runsPerWorker + ", maxRunsPerWorker=" + maxRunsPerWorker
        + ", workerStartTimeout=" + workerStartTimeout + ", killGrace=" + killGrace
        + (weakWall ? ", weak wall accepted" : "") + ")";
  }

  /**
   * Configures process isolation. Defaults: 2 workers, 1 spare, a 512 MiB heap per worker, 1 run at a
   * time per worker, 200 runs before a worker is retired, 120 s for a worker to start (they start one at a time), a kill grace of
   * 500 ms, 10 s of silence before a busy worker is held dead, and the full wall required.
   */
  public static final class Builder {
    /** The most workers one sandbox starts. */
    public static final int MAX_WORKERS = 256;
    private int workers = 2;
    private int spareWorkers = 1;
    private long workerHeapBytes = 512L << 20;
    private int runsPerWorker = 1;
    private int maxRunsPerWorker = 200;
    private Duration workerStartTimeout = Duration.ofSeconds(120);
    private Duration killGrace = Duration.ofMillis(500);
    private Duration silenceTimeout = Duration.ofSeconds(10);
    private boolean weakWall;

    private Builder() {}

    /** Workers that take runs, 1 to {@value #MAX_WORKERS}. */
    public Builder workers(int workers) {
      if (workers < 1 || workers > MAX_WORKERS) {
        throw new IllegalArgumentException("workers must be 1 to " + MAX_WORKERS + ", was " + workers);
      }
      this.workers = workers;
      return this;
    }

    /** Started workers waiting to replace one that is killed or retired, 0 to {@value #MAX_WORKERS}. */
    public Builder spareWorkers(int spares) {
      if (spares < 0 || spares > MAX_WORKERS) {
        throw new IllegalArgumentException("spareWorkers must be 0 to " + MAX_WORKERS + ", was " + spares);
      }
      this.spareWorkers = spares;
      return this;
    }

    /**
     * Each worker's maximum heap, 128 MiB to 64 GiB. A worker whose heap runs out exits at once; its runs
     * end {@link Outcome#LIMIT_EXCEEDED} with {@link Limit#MEMORY}. Keep it above the policy's
     * {@link Limits#maxAllocatedBytes()} bound on what one run holds times {@link #runsPerWorker}.
     */
    public Builder workerHeapBytes(long bytes) {
      if (bytes < (128L << 20) || bytes > (64L << 30)) {
        throw new IllegalArgumentException("workerHeapBytes must be 128 MiB to 64 GiB, was " + bytes);
      }
      this.workerHeapBytes = bytes;
      return this;
    }

    /**
     * Runs one worker executes at once, 1 to 64. With more than one, a hard stop (a run past its caps, a
     * heap that ran out) ends the other runs on that worker too: they end {@link Outcome#CANCELLED}, saying
     * why.
     */
    public Builder runsPerWorker(int runs) {
      if (runs < 1 || runs > 64) {
        throw new IllegalArgumentException("runsPerWorker must be 1 to 64, was " + runs);
      }
      this.runsPerWorker = runs;
      return this;
    }

    /** Runs a worker takes before it is retired and replaced by a fresh process, 1 to 1,000,000. */
    public Builder maxRunsPerWorker(int runs) {
      if (runs < 1 || runs > 1_000_000) {
        throw new IllegalArgumentException("maxRunsPerWorker must be 1 to 1000000, was " + runs);
      }
      this.maxRunsPerWorker = runs;
      return this;
    }

    /** How long a worker may take to start and warm up, 1 s to 10 min. */
    public Builder workerStartTimeout(Duration timeout) {
      this.workerStartTimeout = within("workerStartTimeout", timeout, Duration.ofSeconds(1), Duration.ofMinutes(10));
      return this;
    }

    /**
     * How long past a run's wall-time or CPU cap the host waits for the worker's own answer before it kills
     * the worker, 100 ms to 60 s. The worker's engine normally stops a guest at its cap; the kill is for a
     * guest inside a builtin that polls no safepoint, or a worker that no longer answers.
     */
    public Builder killGrace(Duration grace) {
      this.killGrace = within("killGrace", grace, Duration.ofMillis(100), Duration.ofSeconds(60));
      return this;
    }

    /** How long a worker with runs may send nothing before it is held dead and killed, 1 s to 10 min. */
    public Builder silenceTimeout(Duration timeout) {
      this.silenceTimeout = within("silenceTimeout", timeout, Duration.ofSeconds(1), Duration.ofMinutes(10));
      return this;
    }

    /**
     * Accepts a weaker wall where the full one is unavailable: a plain child JVM with resource limits
     * (open files, file size, no core dumps) and the JVM's caps, without namespaces or the seccomp filter.
     * The policy's report and the model description then say so.
     */
    public Builder weakWall() {
      this.weakWall = true;
      return this;
    }

    public Isolation build() {
      return new Isolation(true, workers, spareWorkers, workerHeapBytes, runsPerWorker, maxRunsPerWorker,
          workerStartTimeout, killGrace, weakWall, silenceTimeout);
    }

    private static Duration within(String name, Duration d, Duration min, Duration max) {
      Objects.requireNonNull(d, name);
      if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
        throw new IllegalArgumentException(name + " must be " + min + " to " + max + ", was " + d);
      }
      return d;
    }
  }
}
