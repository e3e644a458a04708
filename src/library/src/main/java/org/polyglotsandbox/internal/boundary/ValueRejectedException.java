package org.polyglotsandbox.internal.boundary;

import org.polyglotsandbox.SandboxEvent.OutputRejected.Reason;

/**
 * A guest value could not be copied out: it broke a cap, contained a cycle, or raised while it was
 * read. The message is ready to show; {@link #path()} and {@link #detail()} are its parts.
 */
public final class ValueRejectedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Reason reason;
  private final String path;
  private final String detail;

  ValueRejectedException(Reason reason, String path, String detail, String message) {
    super(message, null, false, false);
    this.reason = reason;
    this.path = path;
    this.detail = detail;
  }

  public Reason reason() {
    return reason;
  }

  /** Where in the value, as a JSONPath such as {@code $.rows[3].price}. */
  public String path() {
    return path;
  }

  /** What was wrong, naming the cap. */
  public String detail() {
    return detail;
  }
}
