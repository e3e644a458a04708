package org.polyglotsandbox.langchain4j;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.micrometer.SandboxMetrics;
import org.polyglotsandbox.micrometer.SandboxObservations;

/**
 * The {@code run_javascript} and {@code run_python} tools for LangChain4j's {@code AiServices}: one
 * {@link ToolSpecification} and {@link ToolExecutor} per language the sandbox's policy allows.
 *
 * <pre>{@code
 * SandboxTools tools = SandboxTools.builder(sandbox).onRun(run -> audit.record(run.memoryId(), run.auditEvents())).build();
 * Agent agent = AiServices.builder(Agent.class).chatModel(model).toolProvider(tools).build();
 * }</pre>
 *
 * <p>Each tool takes {@code {"code": string, "inputs": object?}} (JSON Schema in
 * {@link #specifications()}; no other field), and its description states the policy: the mounts, the
 * tools the code may call, and the limits. It returns {@link ExecutionResult#toModelText(int)}, and never
 * throws for guest behaviour or bad arguments: an argument the schema refuses, an input name the sandbox
 * refuses, or a sandbox too busy to start the run comes back as a one-line text that says nothing ran.
 *
 * <p>The agent's {@code memoryId}, which LangChain4j hands every tool executor, goes with each run's
 * result to the {@link Builder#onRun} listener, on the calling thread, before the text returns to the
 * model, and labels the run ({@code memory:<id>}, {@link org.polyglotsandbox.Script#withLabel}), so the
 * sandbox's own audit events (its listener, JDK Flight Recorder) carry it too.
 *
 * @since 0.1.0
 */
public final class SandboxTools implements ToolProvider, AutoCloseable {
  /**
   * The most characters of code a model may send in one call.
   *
   * @since 0.1.0
   */
  public static final int MAX_CODE_CHARS = 100_000;

  private final PolyglotSandbox sandbox;
  private final Consumer<? super AgentRun> onRun;
  private final int maxChars;
  private final Map<ToolSpecification, ToolExecutor> tools;
  /** The meters and observations {@link Builder#meterRegistry} and {@link Builder#observationRegistry} bound. */
  private final List<AutoCloseable> bindings = new java.util.ArrayList<>();

  private SandboxTools(Builder b) {
    this.sandbox = b.sandbox;
    if (b.meterRegistry != null) {
      bindings.add(SandboxMetrics.bind(b.sandbox, b.meterRegistry));
    }
    if (b.observationRegistry != null) {
      bindings.add(SandboxObservations.bind(b.sandbox, b.observationRegistry));
    }
    this.onRun = b.onRun;
    this.maxChars = b.maxChars;
    Map<ToolSpecification, ToolExecutor> map = new LinkedHashMap<>();
    for (Language language : List.of(Language.JAVASCRIPT, Language.PYTHON)) {
      if (sandbox.policy().allows(language)) {
        String name = toolName(language);
        map.put(specification(name, sandbox.describeForModel(language)),
            (request, memoryId) -> execute(language, name, request, memoryId));
      }
    }
    this.tools = java.util.Collections.unmodifiableMap(map);
  }

  /**
   * A builder for tools over {@code sandbox}, which stays the caller's to close.
   *
   * @since 0.1.0
   */
  public static Builder builder(PolyglotSandbox sandbox) {
    return new Builder(Objects.requireNonNull(sandbox, "sandbox"));
  }

  /**
   * The tool's name for a language: {@code run_javascript} or {@code run_python}.
   *
   * @since 0.1.0
   */
  public static String toolName(Language language) {
    return "run_" + (language == Language.PYTHON ? "python" : "javascript");
  }

  /**
   * The tools, specification to executor, in the order JavaScript, Python; for {@code AiServices.tools(Map)}.
   *
   * @since 0.1.0
   */
  public Map<ToolSpecification, ToolExecutor> tools() {
    return tools;
  }

  /**
   * The specifications, each with its name, policy description and parameters schema.
   *
   * @since 0.1.0
   */
  public List<ToolSpecification> specifications() {
    return List.copyOf(tools.keySet());
  }

  /**
   * The same tools for every request: the sandbox's policy does not change.
   *
   * @since 0.1.0
   */
  @Override
  public ToolProviderResult provideTools(ToolProviderRequest request) {
    return ToolProviderResult.builder().addAll(tools).build();
  }

  private static ToolSpecification specification(String name, String description) {
    ObjectNode code = JsonNodeFactory.instance.objectNode().put("type", "string")
        .put("maxLength", MAX_CODE_CHARS).put("description", "The program. Its last expression is the result.");
    ObjectNode inputs = JsonNodeFactory.instance.objectNode().put("type", "object")
        .put("description", "Optional JSON values, each bound to a global variable of its name.");
    ObjectNode parameters = JsonNodeFactory.instance.objectNode().put("type", "object");
    parameters.putObject("properties").<ObjectNode>set("code", code).set("inputs", inputs);
    parameters.putArray("required").add("code");
    parameters.put("additionalProperties", false);
    ObjectNode spec = JsonNodeFactory.instance.objectNode().put("name", name).put("description", description);
    spec.set("parameters", parameters);
    return ToolSpecification.fromJson(spec.toString());
  }

  private String execute(Language language, String name, ToolExecutionRequest request, Object memoryId) {
    Script script;
    try {
      script = parse(language, request.arguments());
    } catch (IllegalArgumentException e) {
      return "Invalid arguments for " + name + ": " + e.getMessage() + ". Nothing ran.";
    }
    // The model's id of this tool call, for the run's observation (gen_ai.tool.call.id), when it fits an attribute.
    String callId = request.id();
    if (callId != null && !callId.isEmpty() && callId.length() <= Script.MAX_ATTRIBUTE_CHARS
        && callId.chars().noneMatch(Character::isISOControl)) {
      script = script.withAttribute(SandboxObservations.CALL_ID_ATTRIBUTE, callId);
    }
    ExecutionResult result;
    try {
      result = sandbox.run(script.withLabel(label("memory:", memoryId)));
    } catch (RejectedExecutionException e) {
      return SandboxCodeExecutionEngine.busy(e);
    } catch (IllegalArgumentException e) {
      // An input the sandbox refuses when it encodes it: too deep, too many values, too much text.
      return "Invalid arguments for " + name + ": " + e.getMessage() + ". Nothing ran.";
    }
    if (onRun != null) {
      onRun.accept(new AgentRun(memoryId, name, result));
    }
    return result.toModelText(maxChars);
  }

  /**
   * The run's label for an agent's id ({@link Script#withLabel}): the prefix and the id's text, control
   * characters replaced and cut to the label's 128 characters; empty for none.
   */
  static String label(String prefix, Object id) {
    return id == null ? "" : Script.labelFrom(prefix + id);
  }

  /**
   * Detaches the meters and observations the builder bound ({@link Builder#meterRegistry},
   * {@link Builder#observationRegistry}); the tools still work. Does not close the sandbox. Idempotent.
   *
   * @since 0.1.0
   */
  @Override
  public void close() {
    for (AutoCloseable b : bindings) {
      try {
        b.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);   // not reached: the bindings' close() throws nothing
      }
    }
  }

  /** The script the arguments ask for; every problem is an {@link IllegalArgumentException} naming it. */
  static Script parse(Language language, String arguments) {
    return Script.fromToolArguments(language, arguments, MAX_CODE_CHARS);
  }

  /**
   * Builds {@link SandboxTools}.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    private final PolyglotSandbox sandbox;
    private Consumer<? super AgentRun> onRun;
    private int maxChars = 16_384;
    private MeterRegistry meterRegistry;
    private ObservationRegistry observationRegistry;

    private Builder(PolyglotSandbox sandbox) {
      this.sandbox = sandbox;
    }

    /**
     * Binds the sandbox's meters to {@code registry} when the tools are built ({@link SandboxMetrics}: runs by
     * language, outcome and limit, their times, tool calls, denials); {@link SandboxTools#close()} unbinds them.
     * They count every run of the sandbox, not only these tools'. Build once per sandbox and registry.
     *
     * @since 0.1.0
     */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * Observes each run of the sandbox and each host tool call in it in {@code registry} when the tools are
     * built ({@link SandboxObservations}: {@code execute_tool} spans with a tracing bridge); a run of these
     * tools carries the model's tool call id as {@code gen_ai.tool.call.id}. {@link SandboxTools#close()}
     * detaches it.
     *
     * @since 0.1.0
     */
    public Builder observationRegistry(ObservationRegistry registry) {
      this.observationRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * Called with every run, its agent's memory id and its result, on the thread that executed the tool,
     * before the result goes back to the model. An exception it throws reaches LangChain4j as the tool's
     * failure.
     *
     * @since 0.1.0
     */
    public Builder onRun(Consumer<? super AgentRun> listener) {
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

    /**
     * Returns the tools.
     *
     * @throws IllegalArgumentException if the sandbox's policy allows neither language
     * @since 0.1.0
     */
    public SandboxTools build() {
      if (sandbox.policy().languages().isEmpty()) {
        throw new IllegalArgumentException("the sandbox's policy allows no language");
      }
      return new SandboxTools(this);
    }
  }
}
