package org.polyglotsandbox.springai;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.PolyglotSandbox;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;

/**
 * A Spring AI {@link ToolCallbackProvider} with one {@link SandboxToolCallback} per language the
 * sandbox's policy allows, JavaScript first: {@code ChatClient.prompt().toolCallbacks(provider.getToolCallbacks())}, or a bean
 * that Spring AI's MCP server starter exposes as tools.
 *
 * @since 0.1.0
 */
public final class SandboxToolCallbackProvider implements ToolCallbackProvider {
  private final ToolCallback[] callbacks;

  private SandboxToolCallbackProvider(List<ToolCallback> callbacks) {
    this.callbacks = callbacks.toArray(ToolCallback[]::new);
  }

  /**
   * The tools of {@code sandbox}, without a run listener.
   *
   * @since 0.1.0
   */
  public static SandboxToolCallbackProvider of(PolyglotSandbox sandbox) {
    return of(sandbox, null);
  }

  /**
   * The tools of {@code sandbox}, each calling {@code onRun} (if not null) with every run.
   *
   * @throws IllegalArgumentException if the sandbox's policy allows no language
   * @since 0.1.0
   */
  public static SandboxToolCallbackProvider of(PolyglotSandbox sandbox, Consumer<? super SandboxRun> onRun) {
    Objects.requireNonNull(sandbox, "sandbox");
    List<ToolCallback> out = new ArrayList<>();
    for (Language language : List.of(Language.JAVASCRIPT, Language.PYTHON)) {
      if (sandbox.policy().allows(language)) {
        SandboxToolCallback.Builder b = SandboxToolCallback.builder(sandbox, language);
        if (onRun != null) {
          b.onRun(onRun);
        }
        out.add(b.build());
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("the sandbox's policy allows no language");
    }
    return new SandboxToolCallbackProvider(out);
  }

  /** @since 0.1.0 */
  @Override
  public ToolCallback[] getToolCallbacks() {
    return callbacks.clone();
  }
}
