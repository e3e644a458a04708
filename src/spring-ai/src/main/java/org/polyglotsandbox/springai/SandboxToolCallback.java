package org.polyglotsandbox.springai;

import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * A Spring AI {@link ToolCallback} that runs the model's code in a {@link PolyglotSandbox}: {@code
 * run_javascript} or {@code run_python}, taking {@code {"code": string, "inputs": object?}}.
 *
 * <p>The tool's description states the policy (mounts, tools, limits). {@link #call} returns
 * {@link ExecutionResult#toModelText(int)} and never throws for guest behaviour or bad arguments: an
 * argument the schema refuses, an input name the sandbox refuses, or a sandbox too busy to start the run
 * comes back as a one-line text saying nothing ran. The conversation id of the {@link ToolContext}
 * ({@link ChatMemory#CONVERSATION_ID}) goes with each run's result to the {@link Builder#onRun} listener,
 * before the text returns to the model, and labels the run ({@code conversation:<id>},
 * {@link Script#withLabel}), so the sandbox's own audit events carry it too.
 *
 * @since 0.1.0
 */
public final class SandboxToolCallback implements ToolCallback {
  /**
   * The most characters of code a model may send in one call.
   *
   * @since 0.1.0
   */
  public static final int MAX_CODE_CHARS = 100_000;

  private final PolyglotSandbox sandbox;
  private final Language language;
  private final ToolDefinition definition;
  private final Consumer<? super SandboxRun> onRun;
  private final int maxChars;

  private SandboxToolCallback(Builder b) {
    this.sandbox = b.sandbox;
    this.language = b.language;
    this.onRun = b.onRun;
    this.maxChars = b.maxChars;
    this.definition = ToolDefinition.builder()
        .name(toolName(language))
        .description(sandbox.describeForModel(language))
        .inputSchema(INPUT_SCHEMA)
        .build();
  }

  /**
   * The JSON Schema of the arguments: {@code code} required, {@code inputs} optional, nothing else.
   *
   * @since 0.1.0
   */
  public static final String INPUT_SCHEMA = """
      {"type": "object", "properties": {
        "code": {"type": "string", "maxLength": %d, "description": "The program. Its last expression is the result."},
        "inputs": {"type": "object", "description": "Optional JSON values, each bound to a global variable of its name."}},
       "required": ["code"], "additionalProperties": false}""".formatted(MAX_CODE_CHARS);

  /**
   * A builder for {@code language}'s tool over {@code sandbox}, which stays the caller's to close.
   *
   * @throws IllegalArgumentException if the sandbox's policy does not allow {@code language}
   * @since 0.1.0
   */
  public static Builder builder(PolyglotSandbox sandbox, Language language) {
    Objects.requireNonNull(sandbox, "sandbox");
    Objects.requireNonNull(language, "language");
    if (!sandbox.policy().allows(language)) {
      throw new IllegalArgumentException("the sandbox's policy does not allow language '" + language.id()
          + "' (allowed: " + sandbox.policy().languages().stream().map(Language::id).toList() + ")");
    }
    return new Builder(sandbox, language);
  }

  /**
   * The tool's name for a language: {@code run_javascript} or {@code run_python}.
   *
   * @since 0.1.0
   */
  public static String toolName(Language language) {
    return "run_" + (language == Language.PYTHON ? "python" : "javascript");
  }

  /** @since 0.1.0 */
  @Override
  public ToolDefinition getToolDefinition() {
    return definition;
  }

  /** @since 0.1.0 */
  @Override
  public String call(String toolInput) {
    return call(toolInput, null);
  }

  /** @since 0.1.0 */
  @Override
  public String call(String toolInput, ToolContext toolContext) {
    Script script;
    try {
      script = parse(language, toolInput);
    } catch (IllegalArgumentException e) {
      return "Invalid arguments for " + definition.name() + ": " + e.getMessage() + ". Nothing ran.";
    }
    String conversationId = conversationId(toolContext);
    ExecutionResult result;
    try {
      result = sandbox.run(script.withLabel(label(conversationId)));
    } catch (RejectedExecutionException e) {
      return "The sandbox is too busy to run this code now (" + e.getMessage() + "). Nothing ran; try again later.";
    } catch (IllegalArgumentException e) {
      // An input the sandbox refuses when it encodes it: too deep, too many values, too much text.
      return "Invalid arguments for " + definition.name() + ": " + e.getMessage() + ". Nothing ran.";
    }
    if (onRun != null) {
      onRun.accept(new SandboxRun(conversationId, definition.name(), result));
    }
    return result.toModelText(maxChars);
  }

  /**
   * The run's label for a conversation ({@link Script#withLabel}): {@code conversation:} and the id,
   * control characters replaced and cut to the label's 128 characters; empty for none.
   */
  static String label(String conversationId) {
    return conversationId == null ? "" : Script.labelFrom("conversation:" + conversationId);
  }

  private static String conversationId(ToolContext context) {
    if (context == null || context.getContext() == null) {
      return null;
    }
    Object id = context.getContext().get(ChatMemory.CONVERSATION_ID);
    return id == null ? null : id.toString();
  }

  /** The script the arguments ask for; every problem is an {@link IllegalArgumentException} naming it. */
  static Script parse(Language language, String arguments) {
    return Script.fromToolArguments(language, arguments, MAX_CODE_CHARS);
  }

  /**
   * Builds a {@link SandboxToolCallback}.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    private final PolyglotSandbox sandbox;
    private final Language language;
    private Consumer<? super SandboxRun> onRun;
    private int maxChars = 16_384;

    private Builder(PolyglotSandbox sandbox, Language language) {
      this.sandbox = sandbox;
      this.language = language;
    }

    /**
     * Called with every run, its conversation id and its result, on the thread that called the tool,
     * before the result goes back to the model. An exception it throws reaches Spring AI as the tool's
     * failure.
     *
     * @since 0.1.0
     */
    public Builder onRun(Consumer<? super SandboxRun> listener) {
      this.onRun = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * The budget of each result's model text; 16,384 characters by default.
     *
     * @throws IllegalArgumentException if below 1,000
     * @since 0.1.0
     */
    public Builder maxModelTextChars(int chars) {
      if (chars < 1_000) {
        throw new IllegalArgumentException("maxModelTextChars (" + chars + ") must be at least 1000");
      }
      this.maxChars = chars;
      return this;
    }

    /** @since 0.1.0 */
    public SandboxToolCallback build() {
      return new SandboxToolCallback(this);
    }
  }
}
