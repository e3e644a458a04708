package org.polyglotsandbox;

import java.time.Duration;
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

  /**
   * Guest code called an allowed {@link Tool}. (A call to a tool that is not allowed is a
   * {@link DeniedOperation} of {@link Operation#TOOL_CALL} instead.)
   *
   * @param argumentBytes the size of the arguments as UTF-8 JSON; 0 if they could not be copied out
   * @param duration from the call entering the gateway to its answer leaving it
   */
  record ToolCall(Instant time, String tool, long argumentBytes, Duration duration, Verdict verdict)
      implements SandboxEvent {
    /** How a tool call ended. */
    public enum Verdict {
      /** The handler returned a valid result. */
      OK,
      /** The arguments were not plain data, too large, or broke the parameter schema; the handler did not run. */
      INVALID_ARGUMENTS,
      /** The handler threw. */
      FAILED,
      /** The handler did not answer within the tool's timeout and was abandoned. */
      TIMED_OUT,
      /** The handler returned something that is not plain data, too large, or breaks the result schema. */
      INVALID_RESULT,
      /** The call was over the tool's budget; the run ends with {@link Limit#TOOL_CALLS}. */
      OVER_BUDGET,
      /** The run was cancelled (deadline, another limit, the host) while the handler worked. */
      CANCELLED
    }

    public ToolCall {
      Objects.requireNonNull(time, "time");
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(duration, "duration");
      Objects.requireNonNull(verdict, "verdict");
    }

    /** Always {@link Layer#TOOL_GATEWAY}. */
    @Override
    public Layer layer() {
      return Layer.TOOL_GATEWAY;
    }
  }
}
