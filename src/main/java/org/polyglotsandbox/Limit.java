package org.polyglotsandbox;

/** A resource cap that can end a run with {@link Outcome#LIMIT_EXCEEDED}. */
public enum Limit {
  /** {@link Limits#maxStatements()}: guest statements executed, counted by GraalVM. */
  STATEMENTS("statements"),
  /** {@link Limits#wallTime()}: the whole run's wall-clock deadline, enforced by the watchdog. */
  WALL_TIME("wall_time"),
  /** {@link Limits#maxOutputBytes()}: bytes written to stdout and stderr together. */
  OUTPUT("output"),
  /**
   * {@link Limits#stackSize()}: the run thread's stack was exhausted in a way the guest language did not
   * turn into its own error. Ordinary deep recursion ends as a guest error instead ({@code RangeError},
   * {@code RecursionError}), which the guest may catch.
   */
  STACK("stack"),
  /** {@link Limits#maxResultNodes()} and related: the result value was too large or too deep to copy out. */
  RESULT("result"),
  /** {@link Tool#maxCallsPerRun()}: a guest called one tool more often than its per-run budget allows. */
  TOOL_CALLS("tool_calls");

  private final String id;

  Limit(String id) {
    this.id = id;
  }

  /** A stable name for reports and JSON, such as {@code wall_time}. */
  public String id() {
    return id;
  }
}
