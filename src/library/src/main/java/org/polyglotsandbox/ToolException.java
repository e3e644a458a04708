package org.polyglotsandbox;

/**
 * Thrown by a {@link Tool.Handler} to fail a call on purpose. The guest sees the message (as a
 * JavaScript {@code ToolError} or Python {@code ToolError}, a {@code RuntimeError}); write it for the
 * guest: no secrets, no host paths.
 *
 * @since 0.1.0
 */
public class ToolException extends Exception {
  private static final long serialVersionUID = 1L;

  /** @since 0.1.0 */
  public ToolException(String message) {
    super(message);
  }

  /** @since 0.1.0 */
  public ToolException(String message, Throwable cause) {
    super(message, cause);
  }
}
