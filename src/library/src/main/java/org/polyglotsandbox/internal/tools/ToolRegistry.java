package org.polyglotsandbox.internal.tools;

import java.util.Map;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.internal.limits.RunGuard;

/**
 * The tools one sandbox lets guest code call, and the threads their handlers run on. Handlers never
 * run on a guest thread, so a blocked handler cannot hold a run past its deadline.
 */
public final class ToolRegistry implements AutoCloseable {
  private final Map<String, ToolBinding> tools;
  private final HandlerThreads handlers;

  /** @param tools the allowed tools by name; empty means no {@code tools} object in the guest */
  public ToolRegistry(Map<String, ToolBinding> tools) {
    this.tools = Map.copyOf(tools);
    this.handlers = tools.isEmpty() ? null : new HandlerThreads();
  }

  /** A registry with no tools. */
  public static ToolRegistry none() {
    return new ToolRegistry(Map.of());
  }

  public boolean isEmpty() {
    return tools.isEmpty();
  }

  /** A gateway for one run: its own call counters, reporting to the run's guard. */
  public ToolGateway gateway(Language language, Limits limits, RunGuard guard) {
    return new ToolGateway(tools, language, limits, guard, handlers);
  }

  /** Interrupts handlers still running (abandoned ones included) and stops the threads. */
  @Override
  public void close() {
    if (handlers != null) {
      handlers.close();
    }
  }
}
