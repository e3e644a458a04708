package org.polyglotsandbox.cli;

/**
 * A policy file that cannot be used. The message is one line: the file, the field path and the
 * offending value, such as {@code policy.json: limits.wallTime: '2 sec' is not a duration (...)}.
 */
public final class PolicyFileException extends Exception {
  private static final long serialVersionUID = 1L;

  PolicyFileException(String message) {
    super(message);
  }
}
