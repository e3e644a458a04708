package org.polyglotsandbox.cli;

/**
 * The sandbox could not start, or could not keep its audit log, for a reason the message explains;
 * exit status 5, no stack trace.
 */
final class StartException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  StartException(String message, Throwable cause) {
    super(message, cause);
  }
}
