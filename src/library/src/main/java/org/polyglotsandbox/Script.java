package org.polyglotsandbox;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.polyglotsandbox.ExecutionResult.OutputFile;
import org.polyglotsandbox.internal.boundary.HostWriter;
import org.polyglotsandbox.internal.boundary.JsonSchema;
import org.polyglotsandbox.internal.boundary.PlainData;
import org.polyglotsandbox.internal.boundary.TextSanitizer;

/**
 * One guest program: its language, its text, the name it appears under in guest stack traces, input
 * values bound as global variables, and what it owes its caller: the JSON Schema its result must
 * match and the files it leaves behind. Immutable; each {@code with...} method returns a new script.
 *
 * <p>Inputs must be plain data: {@code null}, {@link Boolean}, {@link Number}, {@link CharSequence},
 * {@link java.util.List} and {@link Map} with string keys. They reach the guest as fresh guest values
 * (JavaScript objects and arrays, Python dicts and lists), never as host objects.
 */
public final class Script {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
  /** Globals the sandbox defines itself: an input of the same name would hide them, or fail to bind. */
  private static final Set<String> RESERVED = Set.of("tools", "readText");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,128}");
  static final int MAX_LABEL_CHARS = 128;
  /** Guest paths a script may declare as output files. */
  static final int MAX_OUTPUT_FILES = 256;

  private final Language language;
  private final String code;
  private final String name;
  private final Map<String, Object> inputs;
  private final JsonSchema resultSchema;
  /** Declared output files, in order, each to whether it is required. */
  private final Map<String, Boolean> outputFiles;
  private final String label;
  private final Consumer<? super ExecutionResult.OutputChunk> outputListener;

  private Script(Language language, String code, String name, Map<String, Object> inputs, JsonSchema resultSchema,
      Map<String, Boolean> outputFiles) {
    this(language, code, name, inputs, resultSchema, outputFiles, "");
  }

  private Script(Language language, String code, String name, Map<String, Object> inputs, JsonSchema resultSchema,
      Map<String, Boolean> outputFiles, String label) {
    this(language, code, name, inputs, resultSchema, outputFiles, label, null);
  }

  private Script(Language language, String code, String name, Map<String, Object> inputs, JsonSchema resultSchema,
      Map<String, Boolean> outputFiles, String label, Consumer<? super ExecutionResult.OutputChunk> outputListener) {
    this.language = Objects.requireNonNull(language, "language");
    this.code = Objects.requireNonNull(code, "code");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "script name '" + name + "' must be 1-128 characters of letters, digits, '.', '_' or '-'");
    }
    this.name = name;
    this.inputs = inputs;
    this.resultSchema = resultSchema;
    this.outputFiles = outputFiles;
    this.label = label;
    this.outputListener = outputListener;
  }

  /** A script named {@code main.js} or {@code main.py}, with no inputs. */
  public static Script of(Language language, String code) {
    return new Script(language, code, "main" + language.extensions().get(0), Map.of(), null, Map.of());
  }

  /**
   * This script with a label the embedder chooses (an agent's memory or conversation id, a tenant, a
   * request id), carried into its result ({@link ExecutionResult#label()}) and into every audit event of
   * its run ({@link AuditEvent#label()}, the JFR event's {@code label} field). Guest code never sees it.
   *
   * @throws IllegalArgumentException if it is longer than 128 characters or holds a control character
   */
  public Script withLabel(String label) {
    Objects.requireNonNull(label, "label");
    if (label.length() > MAX_LABEL_CHARS) {
      throw new IllegalArgumentException("script label '" + label.substring(0, 32) + "...' is " + label.length()
          + " characters long; at most " + MAX_LABEL_CHARS + " are allowed");
    }
    for (int i = 0; i < label.length(); i++) {
      if (Character.isISOControl(label.charAt(i))) {
        throw new IllegalArgumentException("script label holds a control character (U+"
            + String.format("%04X", (int) label.charAt(i)) + ") at index " + i);
      }
    }
    return new Script(language, code, name, inputs, resultSchema, outputFiles, label, outputListener);
  }

  /**
   * This script with a listener that receives its run's stdout and stderr while the run goes, as
   * {@link ExecutionResult.OutputChunk}s: sanitised, within {@code maxOutputBytes}, in the order written, on the
   * sandbox's output thread (never the guest's). The listener cannot hold the guest: when 1,000 chunks
   * wait for it, later ones are not delivered and are counted
   * ({@link ExecutionResult#undeliveredOutputChunks()}); a listener that throws loses that chunk only
   * (it is logged). Chunks may still arrive shortly after the run's result; the result always holds the
   * whole output.
   */
  public Script withOutputListener(Consumer<? super ExecutionResult.OutputChunk> listener) {
    Objects.requireNonNull(listener, "listener");
    return new Script(language, code, name, inputs, resultSchema, outputFiles, label, listener);
  }

  /** The listener set by {@link #withOutputListener}, if any. */
  public Optional<Consumer<? super ExecutionResult.OutputChunk>> outputListener() {
    return Optional.ofNullable(outputListener);
  }

  /** The embedder's label for this script's run ({@link #withLabel}); empty if none was given. */
  public String label() {
    return label;
  }

  /**
   * The script an agent's code tool asks for, from the tool call's arguments
   * {@code {"code": string, "inputs"?: object}} (the shape of the {@code run_javascript} and
   * {@code run_python} tools of the MCP server and the agent adapters): the code, named {@code main.js}
   * or {@code main.py}, with each entry of {@code inputs} bound as a global variable.
   *
   * @param maxCodeChars the most characters of code accepted
   * @throws IllegalArgumentException naming the problem (an unknown or missing argument, a wrong type, code
   *     too long, an input name that is not an identifier or is reserved), in words a model can act on
   */
  public static Script fromToolArguments(Language language, Map<String, ?> arguments, int maxCodeChars) {
    Objects.requireNonNull(language, "language");
    Map<String, ?> args = arguments == null ? Map.of() : arguments;
    for (String k : args.keySet()) {
      if (!k.equals("code") && !k.equals("inputs")) {
        throw new IllegalArgumentException("unknown argument \"" + TextSanitizer.oneLine(k, 64)
            + "\"; the tool takes \"code\" (a string) and optionally \"inputs\" (an object)");
      }
    }
    Object code = args.get("code");
    if (code == null) {
      throw new IllegalArgumentException("missing argument \"code\": the program to run, as a string"
          + (args.containsKey("code") ? " (got null)" : ""));
    }
    if (!(code instanceof String text)) {
      throw new IllegalArgumentException("argument \"code\" must be a string, got " + PlainData.kindOf(code));
    }
    if (text.length() > maxCodeChars) {
      throw new IllegalArgumentException("argument \"code\" is " + text.length() + " characters long; at most "
          + maxCodeChars + " are accepted (pass large data as a file in a mount)");
    }
    Script script = Script.of(language, text);
    Object inputs = args.get("inputs");
    if (inputs == null) {
      return script;
    }
    if (!(inputs instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException("argument \"inputs\" must be an object of names to JSON values, got "
          + PlainData.kindOf(inputs));
    }
    Map<String, Object> named = new LinkedHashMap<>();
    map.forEach((k, v) -> named.put(String.valueOf(k), v));
    try {
      return script.withInputs(named);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("argument \"inputs\": " + e.getMessage(), e);
    }
  }

  /**
   * As {@link #fromToolArguments(Language, Map, int)}, from the arguments as JSON text (as LangChain4j
   * and Spring AI hand them to a tool); blank text is no arguments.
   *
   * @throws IllegalArgumentException if the text is not a JSON object, or naming the problem
   */
  public static Script fromToolArguments(Language language, String argumentsJson, int maxCodeChars) {
    Object parsed;
    try {
      parsed = argumentsJson == null || argumentsJson.isBlank() ? Map.of() : PlainData.parse(argumentsJson, false);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the arguments are not a JSON object (" + TextSanitizer.oneLine(
          String.valueOf(e.getMessage()), 200) + ")", e);
    }
    if (!(parsed instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException("the arguments must be a JSON object {\"code\": ..., \"inputs\": {...}}, got "
          + PlainData.kindOf(parsed));
    }
    Map<String, Object> args = new LinkedHashMap<>();
    map.forEach((k, v) -> args.put(String.valueOf(k), v));
    return fromToolArguments(language, args, maxCodeChars);
  }

  /** This script under another name, as guest stack traces show it; a file name, never a host path. */
  public Script named(String name) {
    return new Script(language, code, Objects.requireNonNull(name, "name"), inputs, resultSchema, outputFiles, label, outputListener);
  }

  /**
   * This script with inputs bound as global variables.
   *
   * @throws IllegalArgumentException if a name is not an identifier, or is {@code tools} or
   *     {@code readText} (the sandbox's own globals); values are checked when the script runs: plain
   *     data only, at most 64 levels deep, 1,000,000 values and 64 Mi characters of text per input
   */
  public Script withInputs(Map<String, ?> inputs) {
    Map<String, Object> copy = new LinkedHashMap<>();
    inputs.forEach((k, v) -> {
      if (k == null || !IDENTIFIER.matcher(k).matches()) {
        throw new IllegalArgumentException("input name '" + k + "' is not a valid identifier");
      }
      if (RESERVED.contains(k)) {
        throw new IllegalArgumentException("input name '" + k + "' is reserved: the sandbox defines "
            + String.join(" and ", new TreeSet<>(RESERVED)) + " itself");
      }
      copy.put(k, v);
    });
    return new Script(language, code, name, Collections.unmodifiableMap(copy), resultSchema, outputFiles, label, outputListener);
  }

  /**
   * This script with a JSON Schema its result must match (draft 2020-12 unless {@code $schema} names
   * another; remote {@code $ref}s are never fetched). After the result is copied out, a run that
   * finished {@link Outcome#OK} but whose value does not match ends {@link Outcome#OUTPUT_REJECTED},
   * naming the first failing path such as {@code $.rows[3].price}; a NaN or infinite number in the
   * value is rejected too, as JSON cannot carry it. A run that exits with status 0 has the value
   * {@code null}, which the schema must then accept.
   *
   * @param jsonSchema the schema as JSON text
   * @throws IllegalArgumentException naming the problem, if it is not JSON or not a valid JSON Schema
   */
  public Script withResultSchema(String jsonSchema) {
    JsonSchema schema = JsonSchema.parse(Objects.requireNonNull(jsonSchema, "jsonSchema"), "result schema");
    return new Script(language, code, name, inputs, schema, outputFiles, label, outputListener);
  }

  /**
   * This script with output files declared: guest paths whose files the sandbox takes out of the run's
   * in-memory file system when the guest has finished, before the file system is discarded. They come
   * back as bytes in {@link ExecutionResult#outputFiles()}; a declared file that is not there is listed
   * in {@link ExecutionResult#missingOutputFiles()}, which is not an error (see
   * {@link #withRequiredOutputFiles}). Nothing else is ever read out, and nothing is written to the host
   * unless the embedder calls {@link OutputFile#writeTo} or {@link ExecutionResult#writeOutputFiles}.
   *
   * <p>Each must be a regular file reached without links, of at most {@link Limits#maxOutputFileBytes()}
   * bytes, all of them together at most {@link Limits#maxTotalOutputFileBytes()}; a file that breaks
   * this ends a run that otherwise finished with {@link Outcome#OUTPUT_REJECTED}. Files are taken out
   * whatever the outcome, so a failed run's partial files can be inspected: check
   * {@link ExecutionResult#outcome()} before trusting them.
   *
   * <p>Declared here, not in the {@link Policy}: the policy says what any program may do and is shared
   * by every run of a sandbox, while which files a given program leaves for its caller is part of that
   * program's contract, like its inputs and its result schema. The caps stay in the policy's
   * {@link Limits}, and the sandbox refuses to run a script whose output path lies outside every mount
   * (the guest could never write it).
   *
   * @param guestPaths absolute guest paths without {@code ..}, such as {@code /out/report.csv}; each
   *     name must also be safe as a host file name (no backslash, colon or control character)
   * @throws IllegalArgumentException naming the path, if one is not such a path, or if more than
   *     {@value #MAX_OUTPUT_FILES} would be declared
   */
  public Script withOutputFiles(String... guestPaths) {
    return withOutputFiles(guestPaths, false);
  }

  /**
   * {@link #withOutputFiles}, except that a run that finished but left one of these files missing ends
   * with {@link Outcome#OUTPUT_REJECTED}.
   */
  public Script withRequiredOutputFiles(String... guestPaths) {
    return withOutputFiles(guestPaths, true);
  }

  private Script withOutputFiles(String[] guestPaths, boolean required) {
    Map<String, Boolean> copy = new LinkedHashMap<>(outputFiles);
    for (String path : Objects.requireNonNull(guestPaths, "guestPaths")) {
      String p;
      try {
        p = Mount.normalizeGuestPath(Objects.requireNonNull(path, "guest path"));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("output file: " + e.getMessage(), e);
      }
      for (String part : p.substring(1).split("/")) {
        String problem = HostWriter.problem(part);
        if (problem != null) {
          throw new IllegalArgumentException("output file '" + TextSanitizer.oneLine(path, 200)
              + "' is not a safe file name: " + problem);
        }
      }
      copy.merge(p, required, Boolean::logicalOr);
    }
    if (copy.size() > MAX_OUTPUT_FILES) {
      throw new IllegalArgumentException("at most " + MAX_OUTPUT_FILES + " output files may be declared, not "
          + copy.size());
    }
    return new Script(language, code, name, inputs, resultSchema, Collections.unmodifiableMap(copy), label, outputListener);
  }

  public Language language() {
    return language;
  }

  public String code() {
    return code;
  }

  public String name() {
    return name;
  }

  public Map<String, Object> inputs() {
    return inputs;
  }

  /** The result schema as given to {@link #withResultSchema}, if any. */
  public Optional<String> resultSchema() {
    return resultSchema == null ? Optional.empty() : Optional.of(resultSchema.text());
  }

  /** The declared output files' guest paths, normalized, in the order declared. */
  public List<String> outputFiles() {
    return List.copyOf(outputFiles.keySet());
  }

  /** The declared output files that are required ({@link #withRequiredOutputFiles}). */
  public Set<String> requiredOutputFiles() {
    Set<String> out = new LinkedHashSet<>();
    outputFiles.forEach((path, required) -> {
      if (required) {
        out.add(path);
      }
    });
    return Collections.unmodifiableSet(out);
  }

  JsonSchema compiledResultSchema() {
    return resultSchema;
  }

  Map<String, Boolean> outputFileDeclarations() {
    return outputFiles;
  }

  /**
   * Checks that every declared output file lies inside one of the policy's mounts.
   *
   * @throws IllegalArgumentException naming the first one that does not
   */
  void checkOutputFilesAgainst(Policy policy) {
    for (String path : outputFiles.keySet()) {
      if (policy.mountFor(path).isEmpty()) {
        throw new IllegalArgumentException("output file " + path + " is outside every mount, so the guest could"
            + " never write it (mounts: " + policy.mounts().stream().map(Mount::guestPath).toList() + ")");
      }
    }
  }
}
