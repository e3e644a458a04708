package org.polyglotsandbox.langchain4j;

import java.util.List;
import java.util.Objects;
import org.polyglotsandbox.AuditEvent;
import org.polyglotsandbox.ExecutionResult;

/**
 * One run that an agent asked for through {@link SandboxTools}: the agent's chat memory id, the tool it
 * called and the sandbox's result, whose {@link ExecutionResult#runId()} ties it to the sandbox's own
 * audit listener and JDK Flight Recorder events.
 *
 * @param memoryId the memory id LangChain4j passed to the tool executor: the AiServices method's
 *     {@code @MemoryId} argument (LangChain4j's own default id when it has none); null when the executor
 *     was called directly with none
 * @param tool {@code run_javascript} or {@code run_python}
 * @param result what the run returned
 * @since 0.1.0
 */
public record AgentRun(Object memoryId, String tool, ExecutionResult result) {
  /** @since 0.1.0 */
  public AgentRun {
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(result, "result");
  }

  /**
   * The run's audit events (denials, tripped limits, tool calls), all of this agent's memory id.
   *
   * @since 0.1.0
   */
  public List<AuditEvent> auditEvents() {
    return result.auditEvents();
  }
}
