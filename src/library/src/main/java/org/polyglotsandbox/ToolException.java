package org.polyglotsandbox;

/**
 * Thrown by a {@link Tool.Handler} to fail a call on purpose. The guest sees the message (as a
 * JavaScript {@code ToolError} or Python {@code ToolError}, a {@code RuntimeError}); write it for the
 * guest: no secrets, no host paths.
 */
public class ToolException extends Exception {
  private static final long serialVersionUID = 1L;

  public ToolException(String message) {
    super(message);
  }

  public ToolException(String message, Throwable cause) {
    super(message, cause);
  }
}
