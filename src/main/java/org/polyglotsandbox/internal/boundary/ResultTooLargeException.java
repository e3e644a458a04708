package org.polyglotsandbox.internal.boundary;

/** The guest's result exceeded a result limit while being copied out. */
public final class ResultTooLargeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ResultTooLargeException(String message) {
    super(message, null, false, false);
  }
}
