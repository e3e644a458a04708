package org.polyglotsandbox.internal.tools;

import java.time.Duration;
import java.util.Objects;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.internal.boundary.JsonSchema;

/**
 * What the gateway needs of one tool: its compiled schemas, handler, budget, timeout, argument cap and
 * where the handler runs.
 *
 * @param result the result schema, or null when results are not checked
 * @param inline whether the handler runs on the guest thread instead of a handler thread
 */
public record ToolBinding(String name, JsonSchema parameters, JsonSchema result, Tool.ContextualHandler handler,
    int maxCallsPerRun, Duration timeout, int maxArgumentBytes, boolean inline) {
  public ToolBinding {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(parameters, "parameters");
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(timeout, "timeout");
  }
}
