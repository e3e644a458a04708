package org.polyglotsandbox.springai;

import java.util.List;
import java.util.Objects;
import org.polyglotsandbox.AuditEvent;
import org.polyglotsandbox.ExecutionResult;

/**
 * One run that an agent asked for through a {@link SandboxToolCallback}: the conversation it belongs to,
 * the tool and the sandbox's result, whose {@link ExecutionResult#runId()} ties it to the sandbox's own
 * audit listener and JDK Flight Recorder events.
 *
 * @param conversationId the {@code ToolContext}'s {@code ChatMemory.CONVERSATION_ID} as text, or null
 *     when the call carried none
 * @param tool {@code run_javascript} or {@code run_python}
 * @param result what the run returned
 * @since 0.1.0
 */
public record SandboxRun(String conversationId, String tool, ExecutionResult result) {
  /** @since 0.1.0 */
  public SandboxRun {
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(result, "result");
  }

  /**
   * The run's audit events (denials, tripped limits, tool calls), all of this conversation.
   *
   * @since 0.1.0
   */
  public List<AuditEvent> auditEvents() {
    return result.auditEvents();
  }
}
