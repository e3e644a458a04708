package org.polyglotsandbox.cli;

/** A problem with what the user asked for; reported as one line, exit status 2. */
final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }
}
