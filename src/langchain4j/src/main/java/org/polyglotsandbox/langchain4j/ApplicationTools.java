package org.polyglotsandbox.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutionResult;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.ToolException;

/**
 * An application's LangChain4j {@code @Tool} methods as sandbox {@link Tool}s, so that guest code can
 * call them as {@code tools.NAME(...)}.
 *
 * <pre>{@code
 * List<Tool> appTools = ApplicationTools.builder().namespace("shop").add(new PriceService()).build();
 * Policy policy = base.toBuilder().allowTools(appTools.stream().map(Tool::name).toArray(String[]::new)).build();
 * PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).tools(appTools).build();
 * // guest: tools.shop.priceOf({sku: 'A-1'})
 * }</pre>
 *
 * <p>Each tool's name, description and parameters schema are LangChain4j's own for the method
 * ({@code ToolSpecifications.toolSpecificationFrom}): parameter names and types from the signature,
 * {@code @P} descriptions and {@code required}. The schema is closed ({@code "additionalProperties":
 * false} unless the method's schema says otherwise), and, as for every tool, the sandbox validates the
 * guest's arguments against it before the method runs. The method is called through LangChain4j's own
 * {@code DefaultToolExecutor}, on a sandbox handler thread, within the tool's timeout; its result reaches
 * the guest as plain data (a {@code String}, number or boolean as it is, {@code void} as null, anything
 * else as LangChain4j serialises it to JSON). A method that throws fails the guest's call with its
 * message ({@code ToolError}). A {@code @ToolMemoryId} parameter gets null: a guest's call has no chat
 * memory of its own.
 *
 * <p>Only tools the policy allows by name are visible to guest code; registering them is not enough.
 *
 * @since 0.1.0
 */
public final class ApplicationTools {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ApplicationTools() {}

  /**
   * The {@code @Tool} methods of these objects, by their LangChain4j names, with the sandbox's defaults.
   *
   * @since 0.1.0
   */
  public static List<Tool> of(Object... objects) {
    Builder b = builder();
    for (Object o : objects) {
      b.add(o);
    }
    return b.build();
  }

  /**
   * A builder; add at least one object.
   *
   * @since 0.1.0
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds the sandbox tools of one or more objects' {@code @Tool} methods.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    private final List<Object> objects = new ArrayList<>();
    private String namespace;
    private Duration timeout;
    private Integer maxCallsPerRun;

    private Builder() {}

    /**
     * Adds the {@code @Tool} methods of {@code object}, its class's and its superclasses' public ones.
     *
     * @since 0.1.0
     */
    public Builder add(Object object) {
      objects.add(Objects.requireNonNull(object, "object"));
      return this;
    }

    /**
     * Puts every tool under {@code namespace}: {@code shop} turns {@code priceOf} into {@code shop.priceOf},
     * which guest code calls as {@code tools.shop.priceOf(...)}.
     *
     * @throws IllegalArgumentException if it is not a valid tool name
     * @since 0.1.0
     */
    public Builder namespace(String namespace) {
      Tool.builder(Objects.requireNonNull(namespace, "namespace")); // the same rules as a tool name
      this.namespace = namespace;
      return this;
    }

    /**
     * Each tool's timeout; the sandbox's default (5 s) unless set.
     *
     * @since 0.1.0
     */
    public Builder timeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Each tool's calls per run; the sandbox's default (1000) unless set.
     *
     * @since 0.1.0
     */
    public Builder maxCallsPerRun(int calls) {
      this.maxCallsPerRun = calls;
      return this;
    }

    /**
     * Returns one sandbox tool per {@code @Tool} method, in LangChain4j's order.
     *
     * @throws IllegalArgumentException naming the method, if an object has no {@code @Tool} method, or a
     *     tool's name is not a valid sandbox tool name (letters, digits and underscores, starting with a
     *     letter, no JavaScript or Python keyword), or two tools share a name, or a parameter has no name
     *     (the class was compiled without {@code -parameters} and the parameter has no {@code @P(name)})
     * @since 0.1.0
     */
    public List<Tool> build() {
      if (objects.isEmpty()) {
        throw new IllegalStateException("no object added: call add(...) before build()");
      }
      List<Tool> out = new ArrayList<>();
      java.util.Set<String> names = new java.util.HashSet<>();
      for (Object object : objects) {
        int before = out.size();
        for (Method method : object.getClass().getMethods()) {
          if (method.isAnnotationPresent(dev.langchain4j.agent.tool.Tool.class)) {
            Tool tool = toTool(object, method);
            if (!names.add(tool.name())) {
              throw new IllegalArgumentException("two @Tool methods are both named '" + tool.name() + "' ("
                  + describe(method) + ")");
            }
            out.add(tool);
          }
        }
        if (out.size() == before) {
          throw new IllegalArgumentException(object.getClass().getName() + " has no public @Tool method");
        }
      }
      return List.copyOf(out);
    }

    private Tool toTool(Object object, Method method) {
      ToolSpecification spec = ToolSpecifications.toolSpecificationFrom(method);
      String name = namespace == null ? spec.name() : namespace + "." + spec.name();
      Tool.Builder b;
      try {
        b = Tool.builder(name);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("@Tool " + describe(method) + ": " + e.getMessage(), e);
      }
      for (java.lang.reflect.Parameter p : method.getParameters()) {
        dev.langchain4j.agent.tool.P named = p.getAnnotation(dev.langchain4j.agent.tool.P.class);
        if (!p.isNamePresent() && (named == null || named.name().isEmpty())
            && spec.parameters() != null && spec.parameters().properties().containsKey(p.getName())) {
          throw new IllegalArgumentException("@Tool " + describe(method) + ": parameter " + p.getName()
              + " has no name in the class file, so guest code would have to pass it as " + p.getName()
              + "; compile with -parameters or name it with @P(name = ...)");
        }
      }
      b.description(spec.description() == null ? "" : spec.description())
          .parameters(parametersSchema(spec))
          .handler(new Handler(object, method, spec.name()));
      if (timeout != null) {
        b.timeout(timeout);
      }
      if (maxCallsPerRun != null) {
        b.maxCallsPerRun(maxCallsPerRun);
      }
      return b.build();
    }
  }

  /** The method's parameters as a closed JSON Schema object. */
  static String parametersSchema(ToolSpecification spec) {
    try {
      JsonNode parameters = JSON.readTree(spec.toJson()).get("parameters");
      ObjectNode schema = parameters instanceof ObjectNode o ? o.deepCopy() : JSON.createObjectNode();
      schema.put("type", "object");
      if (!schema.has("properties")) {
        schema.putObject("properties");
      }
      if (!schema.has("additionalProperties")) {
        schema.put("additionalProperties", false);
      }
      return schema.toString();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("LangChain4j's specification of tool " + spec.name() + " is not JSON", e);
    }
  }

  private static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName();
  }

  /** Calls one method through LangChain4j's executor and hands its result back as plain data. */
  private static final class Handler implements Tool.Handler {
    private final DefaultToolExecutor executor;
    private final String name;

    Handler(Object object, Method method, String name) {
      this.executor = new DefaultToolExecutor(object, method);
      this.name = name;
    }

    @Override
    public Object call(Map<String, Object> arguments) throws Exception {
      ToolExecutionRequest request = ToolExecutionRequest.builder().id(UUID.randomUUID().toString()).name(name)
          .arguments(JSON.writeValueAsString(arguments)).build();
      ToolExecutionResult result;
      try {
        result = executor.executeWithContext(request, InvocationContext.builder().build());
      } catch (IllegalArgumentException e) {
        // LangChain4j could not convert an argument the schema let through (a number out of an int's range).
        throw new ToolException(e.getMessage());
      }
      if (result.isError()) {
        throw new ToolException(result.resultText());
      }
      Object value = result.result();
      if (value == null || value instanceof String || value instanceof Boolean || value instanceof Number) {
        return value;
      }
      try {
        return JSON.readValue(result.resultText(), Object.class);
      } catch (JsonProcessingException e) {
        return result.resultText();
      }
    }
  }
}
