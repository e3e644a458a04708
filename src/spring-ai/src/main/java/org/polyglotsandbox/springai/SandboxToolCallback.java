package org.polyglotsandbox.springai;

import java.util.Locale;
import java.util.Map;
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
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Spring AI {@link ToolCallback} that runs the model's code in a {@link PolyglotSandbox}: {@code
 * run_javascript} or {@code run_python}, taking {@code {"code": string, "inputs": object?}}.
 *
 * <p>The tool's description states the policy (mounts, tools, limits). {@link #call} returns
 * {@link ExecutionResult#toModelText(int)} and never throws for guest behaviour or bad arguments: an
 * argument the schema refuses, an input name the sandbox refuses, or a sandbox too busy to start the run
 * comes back as a one-line text saying nothing ran. The conversation id of the {@link ToolContext}
 * ({@link ChatMemory#CONVERSATION_ID}) goes with each run's result to the {@link Builder#onRun} listener,
 * before the text returns to the model; the library's own audit events carry the run id only.
 */
public final class SandboxToolCallback implements ToolCallback {
  /** The most characters of code a model may send in one call. */
  public static final int MAX_CODE_CHARS = 100_000;

  private static final ObjectMapper JSON = JsonMapper.builder().build();

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
        .description(PolicyDescription.of(sandbox, language))
        .inputSchema(INPUT_SCHEMA)
        .build();
  }

  /** The JSON Schema of the arguments: {@code code} required, {@code inputs} optional, nothing else. */
  public static final String INPUT_SCHEMA = """
      {"type": "object", "properties": {
        "code": {"type": "string", "minLength": 1, "maxLength": %d, "description": "The program. Its last expression is the result."},
        "inputs": {"type": "object", "description": "Optional JSON values, each bound to a global variable of its name."}},
       "required": ["code"], "additionalProperties": false}""".formatted(MAX_CODE_CHARS);

  /**
   * A builder for {@code language}'s tool over {@code sandbox}, which stays the caller's to close.
   *
   * @throws IllegalArgumentException if the sandbox's policy does not allow {@code language}
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

  /** The tool's name for a language: {@code run_javascript} or {@code run_python}. */
  public static String toolName(Language language) {
    return "run_" + (language == Language.PYTHON ? "python" : "javascript");
  }

  @Override
  public ToolDefinition getToolDefinition() {
    return definition;
  }

  @Override
  public String call(String toolInput) {
    return call(toolInput, null);
  }

  @Override
  public String call(String toolInput, ToolContext toolContext) {
    Script script;
    try {
      script = parse(language, toolInput);
    } catch (IllegalArgumentException e) {
      return "Invalid arguments for " + definition.name() + ": " + e.getMessage() + ". Nothing ran.";
    }
    ExecutionResult result;
    try {
      result = sandbox.run(script);
    } catch (RejectedExecutionException e) {
      return "The sandbox is too busy to run this code now (" + e.getMessage() + "). Nothing ran; try again later.";    } catch (IllegalArgumentException e) {
      // An input the sandbox refuses when it encodes it: too deep, too many values, too much text.
      return "Invalid arguments for " + definition.name() + ": " + e.getMessage() + ". Nothing ran.";
    }
    if (onRun != null) {
      onRun.accept(new SandboxRun(conversationId(toolContext), definition.name(), result));
    }
    return result.toModelText(maxChars);
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
    JsonNode args;
    try {
      args = JSON.readTree(arguments == null || arguments.isBlank() ? "{}" : arguments);
    } catch (JacksonException e) {
      throw new IllegalArgumentException("the arguments are not a JSON object (" + e.getOriginalMessage() + ")");
    }
    if (args == null || !args.isObject()) {
      throw new IllegalArgumentException("the arguments must be a JSON object {\"code\": ..., \"inputs\": {...}}");
    }
    for (String field : args.propertyNames()) {
      if (!field.equals("code") && !field.equals("inputs")) {
        throw new IllegalArgumentException("unknown field '" + clip(field) + "' (the fields are code and inputs)");
      }
    }
    JsonNode code = args.get("code");
    if (code == null || !code.isString()) {
      throw new IllegalArgumentException("$.code must be a string, not " + (code == null ? "missing" : kind(code)));
    }
    String text = code.stringValue();
    if (text.isEmpty() || text.length() > MAX_CODE_CHARS) {
      throw new IllegalArgumentException("$.code must hold 1 to " + MAX_CODE_CHARS + " characters, not " + text.length());
    }
    Script script = Script.of(language, text);
    JsonNode inputs = args.get("inputs");
    if (inputs != null && !inputs.isNull()) {
      if (!inputs.isObject()) {
        throw new IllegalArgumentException("$.inputs must be an object, not " + kind(inputs));
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> values = JSON.convertValue(inputs, Map.class);
      script = script.withInputs(values);
    }
    return script;
  }

  private static String kind(JsonNode node) {
    return node.getNodeType().name().toLowerCase(Locale.ROOT);
  }

  private static String clip(String s) {
    return s.length() > 64 ? s.substring(0, 64) + "..." : s;
  }

  /** Builds a {@link SandboxToolCallback}. */
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
     */
    public Builder onRun(Consumer<? super SandboxRun> listener) {
      this.onRun = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * The budget of each result's model text; 16,384 characters by default.
     *
     * @throws IllegalArgumentException if below 1,000
     */
    public Builder maxModelTextChars(int chars) {
      if (chars < 1_000) {
        throw new IllegalArgumentException("maxModelTextChars (" + chars + ") must be at least 1000");
      }
      this.maxChars = chars;
      return this;
    }

    public SandboxToolCallback build() {
      return new SandboxToolCallback(this);
    }
  }
}
