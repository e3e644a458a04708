package org.polyglotsandbox.internal.boundary;

/** A guest value held something other than plain data where only plain data may cross. */
public final class NotPlainDataException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NotPlainDataException(String message) {
    super(message, null, false, false);
  }
}
