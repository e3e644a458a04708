package org.polyglotsandbox;

/**
 * An independent layer of enforcement; each denial and limit names the layer that acted.
 *
 * @since 0.1.0
 */
public enum Layer {
  /** GraalVM's {@code SandboxPolicy.CONSTRAINED} validation of engine and context settings. */
  GRAALVM_CONSTRAINED("graalvm-constrained"),
  /** The context's permissions: no host access, processes, threads, native code, sockets, environment. */
  CONTEXT_PERMISSIONS("context-permissions"),
  /** The per-run in-memory file system that checks every file operation against the mounts. */
  VIRTUAL_FILE_SYSTEM("virtual-file-system"),
  /** The watchdog that enforces deadlines and cancels runs. */
  WATCHDOG("watchdog"),
  /** GraalVM's statement counter ({@code ResourceLimits}). */
  STATEMENT_LIMIT("statement-limit"),
  /** The boundary that bounds output streams and copies results out as plain values. */
  OUTPUT_BOUNDARY("output-boundary"),
  /** The gateway through which guest code calls allowed {@link Tool}s: copies, validates, times and counts. */
  TOOL_GATEWAY("tool-gateway"),
  /**
   * A fresh context and a fresh in-memory file system for every run, destroyed when it ends, so that
   * nothing one run leaves behind reaches the next.
   */
  RUN_ISOLATION("run-isolation"),
  /**
   * The sandbox's replacements, installed in every Python context before guest code runs, for GraalPy
   * functions that would change state the whole JVM process shares (signal handlers, timers, the
   * default time zone) or show the host's identity (user, process id, kernel, host name).
   */
  PROCESS_SHIELD("process-shield"),
  /**
   * With process isolation ({@link PolyglotSandbox.Isolation#process()}): the worker process a run executes in, its
   * operating-system wall (namespaces, seccomp filter, resource limits, cgroup), its JVM's caps, and the
   * host's hard stop that kills a worker whose run went past its caps or whose heap ran out.
   */
  PROCESS_ISOLATION("process-isolation");

  private final String id;

  Layer(String id) {
    this.id = id;
  }

  /**
   * A stable name for reports and JSON.
   *
   * @since 0.1.0
   */
  public String id() {
    return id;
  }
}
