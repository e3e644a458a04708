package org.polyglotsandbox;

/** How a run ended. */
public enum Outcome {
  /** The program finished (or exited with status 0); {@link ExecutionResult#value()} holds its last value. */
  OK,
  /** The program raised an error it did not handle, exited with a non-zero status, or hit a denial. */
  GUEST_ERROR,
  /** The program did not parse. */
  SYNTAX_ERROR,
  /** A resource cap stopped the program; {@link ExecutionResult#limit()} names it. */
  LIMIT_EXCEEDED,
  /** The sandbox itself failed; the message says so without host detail, and the host log has it. */
  INTERNAL_ERROR
}
