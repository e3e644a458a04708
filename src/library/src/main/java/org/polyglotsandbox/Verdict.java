package org.polyglotsandbox;

import java.util.Locale;

/**
 * What the sandbox decides about an operation guest code attempts. One word for the decision
 * everywhere: a {@link PolicyReport.Entry} says in advance what the policy decides
 * ({@link #ALLOWED} or {@link #DENIED}); an {@link AuditEvent} says what the sandbox decided at run time
 * (also {@link #STOPPED}, when a limit ended the run).
 *
 * @since 0.1.0
 */
public enum Verdict {
  /** The operation is allowed: it goes through its layer (a tool call, whatever the tool answers). */
  ALLOWED,
  /** The operation is refused, and the guest sees the refusal. */
  DENIED,
  /** A limit ended the run: the operation was allowed, but there was no budget left for it. */
  STOPPED;

  /**
   * A stable name for reports, logs and JSON: {@code allowed}, {@code denied} or {@code stopped}.
   *
   * @since 0.1.0
   */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }
}
