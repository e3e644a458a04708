package org.polyglotsandbox;

/**
 * A resource cap that can end a run with {@link Outcome#LIMIT_EXCEEDED}. (The caps on what a run
 * returns, {@link Limits#maxResultNodes()} and related, end it with {@link Outcome#OUTPUT_REJECTED}
 * instead: the program finished, only its output was refused.)
 *
 * @since 0.1.0
 */
public enum Limit {
  /** {@link Limits#maxStatements()}: guest statements executed, counted by GraalVM. */
  STATEMENTS("statements"),
  /** {@link Limits#wallTime()}: the whole run's wall-clock deadline, enforced by the watchdog. */
  WALL_TIME("wall_time"),
  /** {@link Limits#maxCpuTime()}: CPU time of the thread the guest runs on. */
  CPU_TIME("cpu_time"),
  /**
   * {@link Limits#maxAllocatedBytes()}: bytes the guest thread allocated, or the host heap came under
   * pressure while this run was the largest allocator.
   */
  MEMORY("memory"),
  /** {@link Limits#maxFileBytes()} and {@link Limits#maxFiles()}: the run's in-memory file system is full. */
  FILES("files"),
  /** {@link Limits#maxOutputBytes()}: bytes written to stdout and stderr together. */
  OUTPUT("output"),
  /**
   * {@link Limits#stackSize()}: recursion exhausted the run thread's stack. The guest sees its own
   * language's error first ({@code RangeError}, {@code RecursionError}) and may catch it; the run ends
   * with this limit when it does not.
   */
  STACK("stack"),
  /** {@link Tool#maxCallsPerRun()}: a guest called one tool more often than its per-run budget allows. */
  TOOL_CALLS("tool_calls");

  private final String id;

  Limit(String id) {
    this.id = id;
  }

  /**
   * A stable name for reports and JSON, such as {@code wall_time}.
   *
   * @since 0.1.0
   */
  public String id() {
    return id;
  }
}
