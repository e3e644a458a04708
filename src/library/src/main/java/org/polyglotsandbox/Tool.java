package org.polyglotsandbox;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.polyglotsandbox.internal.boundary.JsonSchema;

/**
 * A host function that guest code may call by name, if the {@link Policy} allows it: the only way a
 * guest can affect anything outside its run.
 *
 * <pre>{@code
 * Tool kvGet = Tool.builder("kv.get")
 *     .description("Reads a value from the key-value store")
 *     .parameters("""
 *         {"type": "object", "properties": {"key": {"type": "string", "maxLength": 128}},
 *          "required": ["key"], "additionalProperties": false}""")
 *     .handler(args -> store.get((String) args.get("key")))
 *     .build();
 * }</pre>
 *
 * <p>Guest code calls it as {@code tools.kv.get({key: "a"})} or {@code tools['kv.get']({key: "a"})}
 * (JavaScript), {@code tools.kv.get(key="a")}, {@code tools.kv.get({"key": "a"})} or
 * {@code getattr(tools, 'kv.get')(key="a")} (Python). Each call: the arguments are copied out of the
 * guest once, as plain data of at most {@link #maxArgumentBytes()} bytes of JSON, 32 levels and 10,000
 * values; they are validated against {@link #parameters()}; the handler runs on a sandbox thread (or, for an
 * {@linkplain Builder#inline() inline} tool, on the guest's own) with {@link #timeout()}; its result is checked against {@link #result()} if set and handed to the guest as
 * a fresh guest value parsed from JSON. Any failure is an ordinary guest error ({@code ToolError}).
 * More than {@link #maxCallsPerRun()} calls in one run end the run with {@link Limit#TOOL_CALLS}.
 *
 * <p>Immutable and safe to share between sandboxes.
 *
 * @since 0.1.0
 */
public final class Tool {
  /**
   * Longest tool name.
   *
   * @since 0.1.0
   */
  public static final int MAX_NAME_LENGTH = 64;

  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)*");
  /**
   * Segments no tool name may use: JavaScript and Python keywords, and names the guest-side wrappers
   * keep for the language itself ({@code then}, {@code toString}, {@code call}, ...).
   */
  private static final Set<String> RESERVED = Set.of(
      // JavaScript reserved words
      "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else",
      "enum", "export", "extends", "false", "finally", "for", "function", "if", "implements", "import", "in",
      "instanceof", "interface", "let", "new", "null", "package", "private", "protected", "public", "return",
      "static", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with",
      "yield", "await", "arguments", "eval", "undefined", "NaN", "Infinity",
      // Python keywords not listed above
      "False", "None", "True", "and", "as", "assert", "async", "def", "del", "elif", "except", "from",
      "global", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
      // kept by the wrappers
      "then", "toJSON", "toString", "valueOf", "constructor", "prototype", "call", "apply", "bind");
  private static final String NO_PARAMETERS =
      "{\"type\": \"object\", \"properties\": {}, \"additionalProperties\": false}";

  private final String name;
  private final String description;
  private final JsonSchema parameters;
  private final JsonSchema result;
  private final Tool.Handler handler;
  private final Tool.ContextualHandler contextualHandler;
  private final int maxCallsPerRun;
  private final Duration timeout;
  private final int maxArgumentBytes;
  private final boolean inline;

  private Tool(Builder b, JsonSchema parameters, JsonSchema result) {
    this.name = b.name;
    this.description = b.description;
    this.parameters = parameters;
    this.result = result;
    this.contextualHandler = b.contextualHandler != null ? b.contextualHandler : plain(b.handler);
    this.handler = b.handler != null ? b.handler : withoutContext(b.name, b.contextualHandler);
    this.maxCallsPerRun = b.maxCallsPerRun;
    this.timeout = b.timeout;
    this.maxArgumentBytes = b.maxArgumentBytes;
    this.inline = b.inline;
  }

  /**
   * A builder for a tool named {@code name}: letters, digits and underscores in dot-separated segments
   * that each start with a letter ({@code clock}, {@code kv.get}), at most {@value #MAX_NAME_LENGTH}
   * characters, no segment a JavaScript or Python keyword.
   *
   * @throws IllegalArgumentException if the name breaks these rules
   * @since 0.1.0
   */
  public static Builder builder(String name) {
    return new Builder(checkName(name));
  }

  /**
   * Typed stubs of {@code tools} for a model writing {@code language} code: TypeScript declarations
   * ({@code .d.ts}, a script that declares the global {@code tools}) for JavaScript, a Python stub file
   * ({@code .pyi}, Python 3.11 typing, declaring {@code tools: Tools}) for Python. {@link
   * PolyglotSandbox#toolStubs} gives those of a sandbox's allowed tools.
   *
   * <p>They have the shape guest code really calls: {@code tools} with members along the dotted names
   * ({@code tools.kv.get}, in TypeScript also {@code tools["kv.get"]}), each taking its arguments
   * (JavaScript: one object; Python: keyword arguments, or one dict) and returning its {@link #result()}
   * type, {@code unknown} / {@code Any} without one. A failed call is a {@code ToolError} with a
   * {@code code}, declared as a type; guest code cannot name it (it is no global).
   *
   * <p>JSON Schema maps as follows: {@code string}, {@code number}/{@code integer}, {@code boolean},
   * {@code null}; {@code object} with {@code properties} and {@code required} to an interface or a
   * {@code TypedDict} (optional keys {@code ?} / {@code NotRequired}; extra keys, unless
   * {@code additionalProperties} is {@code false}, to an index signature in TypeScript and extra keyword
   * arguments in Python, which a TypedDict cannot declare); {@code object} without properties to a
   * record / {@code dict} of {@code additionalProperties}; {@code array} to a list of {@code items};
   * {@code enum} and {@code const} to literal types (Python: strings, integers, booleans, None; other
   * values widen); {@code anyOf}/{@code oneOf} and a list of types to unions; {@code allOf} to an
   * intersection (Python: {@code Any} for more than one part); {@code $ref} to {@code #},
   * {@code #/$defs/NAME} or {@code #/definitions/NAME} to a named type; anything else to
   * {@code unknown} / {@code Any}. Other keywords (lengths, patterns, ranges) are no types: the sandbox
   * still validates every call against the schema.
   *
   * <p>Property names that are not identifiers are quoted in TypeScript. In Python, a property whose
   * name is not an ASCII identifier, is a keyword, is {@code self} or starts with {@code __} is no keyword
   * argument: it can be passed only in the one-dict form, and a tool with such a required property has
   * only that form. A tool segment named like a builtin or typing name the Python stubs use
   * ({@code files.list}) would shadow it inside its class, so such stubs name those through
   * {@code _}-prefixed aliases ({@code _list[_str]}). Descriptions enter comments and docstrings with
   * line breaks normalised and text that would end the comment or docstring escaped. Stubs hold only
   * what the embedder defined, in the order given; the same tools give the same text.
   *
   * <p>To type-check guest code: {@code tsc --noEmit --strict --allowJs --checkJs tools.d.ts program.js};
   * for Python save the stubs as {@code sandbox_tools.pyi} and run mypy on the program with
   * {@code from sandbox_tools import tools} prepended.
   *
   * @throws IllegalArgumentException if two tools have the same name
   * @throws NullPointerException if {@code language}, {@code tools} or one of them is null
   * @since 0.1.0
   */
  public static String stubs(Language language, java.util.Collection<Tool> tools) {
    return ToolStubs.of(language, tools);
  }

  /**
   * The name guest code calls it by.
   *
   * @since 0.1.0
   */
  public String name() {
    return name;
  }

  /**
   * What it does, for people and for agents choosing a tool; empty unless set.
   *
   * @since 0.1.0
   */
  public String description() {
    return description;
  }

  /**
   * The JSON Schema its arguments must satisfy, as given; by default it takes no arguments.
   *
   * @since 0.1.0
   */
  public String parameters() {
    return parameters.text();
  }

  /**
   * The JSON Schema its results must satisfy, if results are checked.
   *
   * @since 0.1.0
   */
  public Optional<String> result() {
    return result == null ? Optional.empty() : Optional.of(result.text());
  }

  /**
   * The host function. For a tool built with a {@link ContextualHandler}, one that calls it with a
   * context naming no run (empty run id, label and attributes).
   *
   * @since 0.1.0
   */
  public Tool.Handler handler() {
    return handler;
  }

  /**
   * The host function with its call's context: the {@link ContextualHandler} given to the builder, or
   * the {@link Handler} given to it, which ignores the context. The sandbox calls this one.
   *
   * @since 0.1.0
   */
  public Tool.ContextualHandler contextualHandler() {
    return contextualHandler;
  }

  private static ContextualHandler plain(Handler h) {
    return h == null ? null : (arguments, call) -> h.call(arguments);
  }

  private static Handler withoutContext(String name, ContextualHandler h) {
    return h == null ? null : arguments -> h.call(arguments, new Call(name, "", "", Map.of()));
  }

  /**
   * Calls one run may make; the next ends the run with {@link Limit#TOOL_CALLS}. Default 1000.
   *
   * @since 0.1.0
   */
  public int maxCallsPerRun() {
    return maxCallsPerRun;
  }

  /**
   * How long one call may take before it is abandoned and fails in the guest. Default 5 s.
   *
   * @since 0.1.0
   */
  public Duration timeout() {
    return timeout;
  }

  /**
   * The largest argument object, measured as UTF-8 JSON. Default 64 KiB.
   *
   * @since 0.1.0
   */
  public int maxArgumentBytes() {
    return maxArgumentBytes;
  }

  /**
   * Whether the handler runs on the guest's own thread instead of a handler thread. See
   * {@link Builder#inline()}. Default false.
   *
   * @since 0.1.0
   */
  public boolean isInline() {
    return inline;
  }

  JsonSchema compiledParameters() {
    return parameters;
  }

  JsonSchema compiledResult() {
    return result;
  }

  /** @since 0.1.0 */
  @Override
  public String toString() {
    return "Tool{" + name + ", maxCallsPerRun=" + maxCallsPerRun + ", timeout=" + timeout
        + (inline ? ", inline" : "") + "}";
  }

  static String checkName(String name) {
    Objects.requireNonNull(name, "tool name");
    if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException("tool name '" + abbreviate(name) + "' must be 1 to " + MAX_NAME_LENGTH
          + " characters long");
    }
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("tool name '" + abbreviate(name) + "' must be letters, digits and"
          + " underscores in dot-separated parts that each start with a letter, such as kv.get");
    }
    for (String segment : name.split("\\.")) {
      if (RESERVED.contains(segment)) {
        throw new IllegalArgumentException("tool name '" + name + "' uses the reserved word '" + segment + "'");
      }
    }
    return name;
  }

  private static String abbreviate(String s) {
    String t = s.length() > 80 ? s.substring(0, 80) + "..." : s;
    return t.replaceAll("\\p{Cntrl}", "?");
  }

  /**
   * Builds a {@link Tool}; each setter rejects a bad value at once, {@link #build()} checks the schemas.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    private final String name;
    private String description = "";
    private String parameters = NO_PARAMETERS;
    private String result;
    private Tool.Handler handler;
    private Tool.ContextualHandler contextualHandler;
    private int maxCallsPerRun = 1000;
    private Duration timeout = Duration.ofSeconds(5);
    private int maxArgumentBytes = 64 << 10;
    private boolean inline;

    private Builder(String name) {
      this.name = name;
    }

    /**
     * @see Tool#description()
     * @since 0.1.0
     */
    public Builder description(String description) {
      this.description = Objects.requireNonNull(description, "description");
      return this;
    }

    /**
     * The JSON Schema of the arguments, an object schema ({@code "type": "object"}). Without it the
     * tool takes no arguments.
     *
     * @see Tool#parameters()
     * @since 0.1.0
     */
    public Builder parameters(String jsonSchema) {
      this.parameters = Objects.requireNonNull(jsonSchema, "parameters schema");
      return this;
    }

    /**
     * @see Tool#result()
     * @since 0.1.0
     */
    public Builder result(String jsonSchema) {
      this.result = Objects.requireNonNull(jsonSchema, "result schema");
      return this;
    }

    /**
     * The host function. Required: this or {@link #handler(ContextualHandler)}, the last one set.
     *
     * @since 0.1.0
     */
    public Builder handler(Tool.Handler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      this.contextualHandler = null;
      return this;
    }

    /**
     * The host function, given each call's {@link Call} (which run, label and attributes)
     * with its arguments: {@code handler((args, call) -> lookup(call.attribute("tenant"), args))}.
     * Replaces a {@link #handler(Handler)} set before, and is replaced by one set after.
     *
     * @since 0.1.0
     */
    public Builder handler(Tool.ContextualHandler handler) {
      this.contextualHandler = Objects.requireNonNull(handler, "handler");
      this.handler = null;
      return this;
    }

    /**
     * @see Tool#maxCallsPerRun()
     * @since 0.1.0
     */
    public Builder maxCallsPerRun(int calls) {
      if (calls < 1 || calls > 10_000_000) {
        throw new IllegalArgumentException("maxCallsPerRun (" + calls + ") must be between 1 and 10000000");
      }
      this.maxCallsPerRun = calls;
      return this;
    }

    /**
     * @see Tool#timeout()
     * @since 0.1.0
     */
    public Builder timeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("timeout (" + timeout + ") must be positive and at most one hour");
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * @see Tool#maxArgumentBytes()
     * @since 0.1.0
     */
    public Builder maxArgumentBytes(int bytes) {
      if (bytes < 2 || bytes > 16 << 20) {
        throw new IllegalArgumentException("maxArgumentBytes (" + bytes + ") must be between 2 and 16 MiB");
      }
      this.maxArgumentBytes = bytes;
      return this;
    }

    /**
     * Runs the handler on the guest's own thread, for handlers that neither block nor run long (an
     * in-memory lookup, arithmetic, a clock). This saves the handoff to a handler thread and back
     * (measured on a 2-core machine, JavaScript: 1.9 microseconds median per call inline against 5.6
     * through a handler thread; see {@code benchmarks/RESULTS.md}), and charges the handler's CPU time
     * and allocation to the run's caps.
     *
     * <p>The price: an inline handler cannot be abandoned. Past its {@link #timeout} (checked every
     * 10 ms) or when the run is cancelled, its thread is interrupted, and the call fails once the handler
     * returns. A handler that ignores interrupts (a busy loop, a blocking socket read) holds the guest
     * thread until it returns: the run's result is still delivered at its wall-time deadline, but the
     * thread and its context are released only then. Leave blocking and slow handlers (network, disk,
     * other services) on handler threads, the default.
     *
     * @since 0.1.0
     */
    public Builder inline() {
      this.inline = true;
      return this;
    }

    /**
     * Returns the tool.
     *
     * @throws IllegalStateException if no handler was set
     * @throws IllegalArgumentException if a schema is not JSON, not a valid JSON Schema, or the parameters
     *     schema does not describe an object
     * @since 0.1.0
     */
    public Tool build() {
      if (handler == null && contextualHandler == null) {
        throw new IllegalStateException("tool '" + name + "' has no handler: call handler(...) before build()");
      }
      JsonSchema p = JsonSchema.parse(parameters, "tool '" + name + "': parameters schema");
      if (!p.describesObject()) {
        throw new IllegalArgumentException("tool '" + name + "': parameters schema must have \"type\": \"object\""
            + " (arguments are always an object of named values)");
      }
      JsonSchema r = result == null ? null : JsonSchema.parse(result, "tool '" + name + "': result schema");
      return new Tool(this, p, r);
    }
  }

  /**
   * The host side of a {@link Tool}: plain Java values in, a plain value out.
   *
   * <p>It runs on a sandbox-owned thread, never on the guest's, so that its {@linkplain Tool#timeout()
   * timeout} and the run's wall-clock deadline hold while it works. It may be called from several runs
   * at once; it must be thread-safe.
   *
   * @since 0.1.0
   */
  @FunctionalInterface
  public interface Handler {
    /**
     * Handles one call.
     *
     * @param arguments the guest's arguments, already copied out of the guest and validated against the
     *     tool's parameter schema: an unmodifiable map whose values are only {@code null}, {@link Boolean},
     *     {@link Long}, {@link Double}, {@link java.math.BigInteger}, {@link String}, unmodifiable
     *     {@link java.util.List} and unmodifiable {@link Map} with string keys. Treat them as untrusted
     *     data.
     * @return the result: {@code null}, a {@link Boolean}, {@link Number}, {@link String}, {@link
     *     java.util.List} or {@link Map} with string keys, nested; anything else fails the call
     * @throws ToolException to fail the call with a message meant for the guest
     * @throws Exception for any other failure; the guest sees only its message, never its class or stack
     * @since 0.1.0
     */
    Object call(Map<String, Object> arguments) throws Exception;
  }

  /**
   * The host side of a {@link Tool} that wants to know which run calls it: {@link Handler}, with the
   * call's {@link Call}. Same threads, timeout, checks and thread-safety duty as a
   * {@link Handler}.
   *
   * @since 0.1.0
   */
  @FunctionalInterface
  public interface ContextualHandler {
    /**
     * Handles one call.
     *
     * @param arguments as for {@link Handler#call}
     * @param call the run the call comes from; never null
     * @return as for {@link Handler#call}
     * @throws ToolException to fail the call with a message meant for the guest
     * @throws Exception for any other failure; the guest sees only its message, never its class or stack
     * @since 0.1.0
     */
    Object call(Map<String, Object> arguments, Call call) throws Exception;
  }

  /**
   * The run a tool call comes from, as a {@link Tool.ContextualHandler} receives it with the call's
   * arguments: the tool's name, the run's id, the embedder's label and attributes for the run. Set by
   * the embedder (or the sandbox) only; guest code can neither see nor change any of it. The same on the
   * guest thread (an {@linkplain Tool.Builder#inline() inline} tool) and on a handler thread, where a
   * {@link ThreadLocal} of the caller would not help.
   *
   * @param tool the called tool's name
   * @param runId the run's {@link ExecutionResult#runId()}
   * @param label the run's label ({@link Script#withLabel}), empty if none
   * @param attributes the run's attributes ({@link Script#withAttribute}), unmodifiable, in the order set,
   *     audited or not
   * @since 0.1.0
   */
  public record Call(String tool, String runId, String label, Map<String, String> attributes) {
    /** @since 0.1.0 */
    public Call {
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(runId, "runId");
      Objects.requireNonNull(label, "label");
      attributes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(
          Objects.requireNonNull(attributes, "attributes")));
    }

    /**
     * The attribute of that name, or null if the run has none.
     *
     * @since 0.1.0
     */
    public String attribute(String name) {
      return attributes.get(name);
    }
  }
}
