package org.polyglotsandbox;

import java.time.Instant;
import java.util.Objects;

/** Something the sandbox enforced during a run, in the order it happened. */
public sealed interface SandboxEvent {
  /** When it happened. */
  Instant time();

  /** The layer that enforced it. */
  Layer layer();

  /**
   * Guest code attempted an operation the policy does not allow, and it was refused.
   *
   * @param target what the operation was aimed at, in guest terms (a guest path, a host name); never a
   *     host path of the sandbox's own
   */
  record DeniedOperation(Instant time, Operation operation, String target, Layer layer) implements SandboxEvent {
    public DeniedOperation {
      Objects.requireNonNull(time, "time");
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(target, "target");
      Objects.requireNonNull(layer, "layer");
    }
  }

  /** A resource cap stopped the run. */
  record LimitExceeded(Instant time, Limit limit, String detail, Layer layer) implements SandboxEvent {
    public LimitExceeded {
      Objects.requireNonNull(time, "time");
      Objects.requireNonNull(limit, "limit");
      Objects.requireNonNull(detail, "detail");
      Objects.requireNonNull(layer, "layer");
    }
  }
}
