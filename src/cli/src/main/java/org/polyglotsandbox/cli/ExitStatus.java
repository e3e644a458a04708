package org.polyglotsandbox.cli;

import org.polyglotsandbox.Outcome;

/** The exit status of {@code bin/sandbox}. The numbers are stable: scripts depend on them. */
enum ExitStatus {
  /** The program ran and finished. */
  OK(0),
  /** The program raised an error, exited with a non-zero status, or did not parse. */
  GUEST_ERROR(1),
  /** Bad command line, missing or unreadable file, unknown language, or a bad policy file. */
  USAGE(2),
  /** A limit stopped the program. */
  LIMIT_EXCEEDED(3),
  /** The program finished, but the output boundary rejected its result or an output file. */
  OUTPUT_REJECTED(4),
  /** The sandbox itself failed (a bug, or a broken installation). */
  INTERNAL_ERROR(5),
  /** The run was cancelled by the host (the command was interrupted). */
  CANCELLED(6);

  private final int code;

  ExitStatus(int code) {
    this.code = code;
  }

  int code() {
    return code;
  }

  /** The status for a run's outcome. */
  static ExitStatus of(Outcome outcome) {
    return switch (outcome) {
      case OK -> OK;
      case GUEST_ERROR, SYNTAX_ERROR -> GUEST_ERROR;
      case LIMIT_EXCEEDED -> LIMIT_EXCEEDED;
      case OUTPUT_REJECTED -> OUTPUT_REJECTED;
      case CANCELLED -> CANCELLED;
      case INTERNAL_ERROR -> INTERNAL_ERROR;
    };
  }
}
