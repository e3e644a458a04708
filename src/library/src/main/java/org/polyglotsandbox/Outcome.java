package org.polyglotsandbox;

/**
 * How a run ended.
 *
 * @since 0.1.0
 */
public enum Outcome {
  /** The program finished (or exited with status 0); {@link ExecutionResult#value()} holds its last value. */
  OK,
  /** The program raised an error it did not handle, exited with a non-zero status, or hit a denial. */
  GUEST_ERROR,
  /** The program did not parse. */
  SYNTAX_ERROR,
  /** A resource cap stopped the program; {@link ExecutionResult#limit()} names it. */
  LIMIT_EXCEEDED,
  /**
   * The program finished, but the output boundary refused what it produced: the value broke a result
   * limit ({@link Limits#maxResultNodes()} and related), contained a cycle, raised while it was read,
   * or broke the script's result schema; or a declared output file broke its limits or a required one
   * was missing. {@link ExecutionResult#outputRejection()} says where and why; the value is
   * {@code null}. The command line exits with status 4.
   */
  OUTPUT_REJECTED,
  /**
   * The host ended the run before the guest did: the sandbox was closed, the run's future was
   * cancelled, or the thread that called {@link PolyglotSandbox#run} was interrupted. Nothing the guest
   * did; the events it caused so far are kept. The command line exits with status 6.
   */
  CANCELLED,
  /** The sandbox itself failed; the message says so without host detail, and the host log has it. */
  INTERNAL_ERROR
}
