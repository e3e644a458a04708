package org.polyglotsandbox;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Something the sandbox enforced during a run, in the order it happened.
 *
 * @since 0.1.0
 */
public sealed interface SandboxEvent {
  /**
   * When it happened.
   *
   * @since 0.1.0
   */
  Instant time();

  /**
   * The layer that enforced it.
   *
   * @since 0.1.0
   */
  Layer layer();

  /**
   * Guest code attempted an operation the policy does not allow, and it was refused.
   *
   * @param target what the operation was aimed at, in guest terms (a guest path, a host name); never a
   *     host path of the sandbox's own
   * @since 0.1.0
   */
  record DeniedOperation(Instant time, Operation operation, String target, Layer layer) implements SandboxEvent {
    /** @since 0.1.0 */
    public DeniedOperation {
      Objects.requireNonNull(time, "time");
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(target, "target");
      Objects.requireNonNull(layer, "layer");
    }
  }

  /**
   * A resource cap stopped the run.
   *
   * @since 0.1.0
   */
  record LimitExceeded(Instant time, Limit limit, String detail, Layer layer) implements SandboxEvent {
    /** @since 0.1.0 */
    public LimitExceeded {
      Objects.requireNonNull(time, "time");
      Objects.requireNonNull(limit, "limit");
      Objects.requireNonNull(detail, "detail");
      Objects.requireNonNull(layer, "layer");
    }
  }

  /**
   * The output boundary refused something the run produced; the first such event of a run that
   * otherwise finished decides its {@link Outcome#OUTPUT_REJECTED} outcome. Nothing of the refused
   * value reaches the {@link ExecutionResult}.
   *
   * @param path where: a JSONPath into the result such as {@code $.rows[3].price} (guest keys are
   *     sanitised and shortened), or the guest path of a declared output file
   * @param detail what was wrong, naming the cap, such as
   *     {@code "a string of 150 characters, longer than maxResultStringLength (100)"}
   * @since 0.1.0
   */
  record OutputRejected(Instant time, Reason reason, String path, String detail) implements SandboxEvent {
    /**
     * Why the output boundary refused it.
     *
     * @since 0.1.0
     */
    public enum Reason {
      /** The result held more than {@link Limits#maxResultNodes()} values. */
      TOO_MANY_VALUES,
      /** Lists and maps nested deeper than {@link Limits#maxResultDepth()}. */
      TOO_DEEP,
      /** A string, key or number was longer than {@link Limits#maxResultStringLength()}. */
      STRING_TOO_LONG,
      /** The result's strings and keys held more than {@link Limits#maxResultChars()} in total. */
      TOO_MUCH_TEXT,
      /** The result contained itself. */
      CYCLE,
      /** Guest code that ran while the value was read (a getter, {@code __repr__}, an iterator) raised. */
      UNREADABLE,
      /**
       * The result held a value still to be awaited: a JavaScript Promise or a Python coroutine nested
       * inside it (the program's own value is awaited; what it holds is not).
       */
      UNSETTLED,
      /** The result broke the script's result schema ({@link Script#withResultSchema}). */
      SCHEMA_VIOLATION,
      /** A declared output file was larger than {@link Limits#maxOutputFileBytes()} or the total cap. */
      FILE_TOO_LARGE,
      /** A declared output path was a directory, a link or something else than a regular file. */
      NOT_A_REGULAR_FILE,
      /** A required output file ({@link Script#withRequiredOutputFiles}) was not there. */
      MISSING_FILE
    }

    /** @since 0.1.0 */
    public OutputRejected {
      Objects.requireNonNull(time, "time");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(detail, "detail");
    }

    /**
     * Always {@link Layer#OUTPUT_BOUNDARY}.
     *
     * @since 0.1.0
     */
    @Override
    public Layer layer() {
      return Layer.OUTPUT_BOUNDARY;
    }

    /**
     * The path and the detail, as the run's error message gives them: {@code "$.a[2]: ..."}.
     *
     * @since 0.1.0
     */
    public String message() {
      return path + ": " + detail;
    }
  }

  /**
   * Guest code called an allowed {@link Tool}. (A call to a tool that is not allowed is a
   * {@link DeniedOperation} of {@link Operation#TOOL_CALL} instead.)
   *
   * @param argumentBytes the size of the arguments as UTF-8 JSON; 0 if they could not be copied out
   * @param duration from the call entering the gateway to its answer leaving it
   * @param status how the call ended
   * @since 0.1.0
   */
  record ToolCall(Instant time, String tool, long argumentBytes, Duration duration, Status status)
      implements SandboxEvent {
    /**
     * How a tool call ended (the sandbox's {@link Verdict} on it is always {@link Verdict#ALLOWED}).
     *
     * @since 0.1.0
     */
    public enum Status {
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

    /** @since 0.1.0 */
    public ToolCall {
      Objects.requireNonNull(time, "time");
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(duration, "duration");
      Objects.requireNonNull(status, "status");
    }

    /**
     * Always {@link Layer#TOOL_GATEWAY}.
     *
     * @since 0.1.0
     */
    @Override
    public Layer layer() {
      return Layer.TOOL_GATEWAY;
    }
  }
}
