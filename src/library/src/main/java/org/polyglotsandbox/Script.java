package org.polyglotsandbox;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.polyglotsandbox.ExecutionResult.OutputFile;
import org.polyglotsandbox.internal.boundary.HostWriter;
import org.polyglotsandbox.internal.boundary.JsonSchema;
import org.polyglotsandbox.internal.boundary.PlainData;
import org.polyglotsandbox.internal.boundary.TextSanitizer;
import org.polyglotsandbox.internal.spi.RunFile;

/**
 * One guest program: its language, its text, the name it appears under in guest stack traces, input
 * values bound as global variables, and what it owes its caller: the JSON Schema its result must
 * match and the files it leaves behind. Immutable; each {@code with...} method returns a new script.
 *
 * <p>Inputs must be plain data: {@code null}, {@link Boolean}, {@link Number}, {@link CharSequence},
 * {@link java.util.List} and {@link Map} with string keys. They reach the guest as fresh guest values
 * (JavaScript objects and arrays, Python dicts and lists), never as host objects.
 *
 * @since 0.1.0
 */
public final class Script {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
  /** Globals the sandbox defines itself: an input of the same name would hide them, or fail to bind. */
  private static final Set<String> RESERVED = Set.of("tools", "readText", "ToolError");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,128}");
  static final int MAX_LABEL_CHARS = 128;
  /** Guest paths a script may declare as output files. */
  static final int MAX_OUTPUT_FILES = 256;
  private static final Pattern ATTRIBUTE_NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,64}");
  /**
   * Attributes one run may carry ({@link #withAttribute}).
   *
   * @since 0.1.0
   */
  public static final int MAX_ATTRIBUTES = 32;
  /**
   * Characters one attribute's value may hold.
   *
   * @since 0.1.0
   */
  public static final int MAX_ATTRIBUTE_CHARS = 256;
  /**
   * Files one script may hand to its run ({@link #withFile}).
   *
   * @since 0.1.0
   */
  public static final int MAX_FILES = 256;
  /**
   * Bytes all of a script's {@link #withFile} files may hold together: 1 GiB.
   *
   * @since 0.1.0
   */
  public static final long MAX_TOTAL_FILE_BYTES = 1L << 30;

  private final Language language;
  private final String code;
  private final String name;
  private final Map<String, Object> inputs;
  private final JsonSchema resultSchema;
  /** Declared output files, in order, each to whether it is required. */
  private final Map<String, Boolean> outputFiles;
  private final String label;
  private final Consumer<? super ExecutionResult.OutputChunk> outputListener;
  /** The run's own files, by normalized guest path, in the order given. */
  private final Map<String, RunFile> files;
  /** The embedder's attributes of the run, by name, in the order given. */
  private final Map<String, Attribute> attributes;
  /** The run's own limits ({@link #withLimits}), or null for the policy's. */
  private final Limits limits;

  /** An attribute's value and whether audit events carry it. */
  record Attribute(String value, boolean audited) {}

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
    this(language, code, name, inputs, resultSchema, outputFiles, label, outputListener, Map.of(), Map.of(), null);
  }

  private Script(Language language, String code, String name, Map<String, Object> inputs, JsonSchema resultSchema,
      Map<String, Boolean> outputFiles, String label, Consumer<? super ExecutionResult.OutputChunk> outputListener,
      Map<String, RunFile> files, Map<String, Attribute> attributes, Limits limits) {
    this.limits = limits;
    this.files = files;
    this.attributes = attributes;
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

  /**
   * A script named {@code main.js} or {@code main.py}, with no inputs.
   *
   * @since 0.1.0
   */
  public static Script of(Language language, String code) {
    return new Script(language, code, "main" + language.extensions().get(0), Map.of(), null, Map.of());
  }

  /**
   * A label ({@link #withLabel}) made from text nobody checked: a client's request id, an agent's
   * conversation id. Control characters become {@code ?} and it is cut to the label's 128 characters,
   * so {@code withLabel(Script.labelFrom(text))} never throws.
   *
   * @since 0.1.0
   */
  public static String labelFrom(String text) {
    Objects.requireNonNull(text, "text");
    StringBuilder b = new StringBuilder(Math.min(text.length(), MAX_LABEL_CHARS));
    for (int i = 0; i < text.length() && b.length() < MAX_LABEL_CHARS; i++) {
      char c = text.charAt(i);
      b.append(Character.isISOControl(c) ? '?' : c);
    }
    return b.toString();
  }

  /**
   * This script with a label the embedder chooses (an agent's memory or conversation id, a tenant, a
   * request id), carried into its result ({@link ExecutionResult#label()}) and into every audit event of
   * its run ({@link AuditEvent#label()}, the JFR event's {@code label} field). Guest code never sees it.
   *
   * @throws IllegalArgumentException if it is longer than 128 characters or holds a control character
   * @since 0.1.0
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
    return new Script(language, code, name, inputs, resultSchema, outputFiles, label, outputListener, files, attributes, limits);
  }

  /**
   * This script with a listener that receives its run's stdout and stderr while the run goes, as
   * {@link ExecutionResult.OutputChunk}s: sanitised, within {@code maxOutputBytes}, in the order written, on the
   * sandbox's output thread (never the guest's). The listener cannot hold the guest: when 1,000 chunks
   * wait for it, later ones are not delivered and are counted
   * ({@link ExecutionResult#undeliveredOutputChunks()}); a listener that throws loses that chunk only
   * (it is logged). Chunks may still arrive shortly after the run's result; the result always holds the
   * whole output.
   *
   * @since 0.1.0
   */
  public Script withOutputListener(Consumer<? super ExecutionResult.OutputChunk> listener) {
    Objects.requireNonNull(listener, "listener");
    return new Script(language, code, name, inputs, resultSchema, outputFiles, label, listener, files, attributes, limits);
  }

  /**
   * The listener set by {@link #withOutputListener}, if any.
   *
   * @since 0.1.0
   */
  public Optional<Consumer<? super ExecutionResult.OutputChunk>> outputListener() {
    return Optional.ofNullable(outputListener);
  }

  /**
   * The embedder's label for this script's run ({@link #withLabel}); empty if none was given.
   *
   * @since 0.1.0
   */
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
   * @since 0.1.0
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
   * @since 0.1.0
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

  /**
   * This script under another name, as guest stack traces show it; a file name, never a host path.
   *
   * @since 0.1.0
   */
  public Script named(String name) {
    return new Script(language, code, Objects.requireNonNull(name, "name"), inputs, resultSchema, outputFiles, label, outputListener, files, attributes, limits);
  }

  /**
   * This script with inputs bound as global variables.
   *
   * @throws IllegalArgumentException if a name is not an identifier, or is {@code tools} or
   *     {@code readText} (the sandbox's own globals); values are checked when the script runs: plain
   *     data only, at most 64 levels deep, 1,000,000 values and 64 Mi characters of text per input
   * @since 0.1.0
   */
  public Script withInputs(Map<String, ?> inputs) {
    Map<String, Object> copy = new LinkedHashMap<>();
    inputs.forEach((k, v) -> {
      if (k == null || !IDENTIFIER.matcher(k).matches()) {
        throw new IllegalArgumentException("input name '" + k + "' is not a valid identifier");
      }
      if (RESERVED.contains(k)) {
        throw new IllegalArgumentException("input name '" + k + "' is reserved: the sandbox defines ToolError,"
            + " readText and tools itself");
      }
      copy.put(k, v);
    });
    return new Script(language, code, name, Collections.unmodifiableMap(copy), resultSchema, outputFiles, label, outputListener, files, attributes, limits);
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
   * @since 0.1.0
   */
  public Script withResultSchema(String jsonSchema) {
    JsonSchema schema = JsonSchema.parse(Objects.requireNonNull(jsonSchema, "jsonSchema"), "result schema");
    return new Script(language, code, name, inputs, schema, outputFiles, label, outputListener, files, attributes, limits);
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
   * and is no {@link FileMode#WRITABLE} file of the run ({@link #withFile}): the guest could never
   * write it.
   *
   * @param guestPaths absolute guest paths without {@code ..}, such as {@code /out/report.csv}; each
   *     name must also be safe as a host file name (no backslash, colon or control character)
   * @throws IllegalArgumentException naming the path, if one is not such a path, or if more than
   *     {@value #MAX_OUTPUT_FILES} would be declared
   * @since 0.1.0
   */
  public Script withOutputFiles(String... guestPaths) {
    return withOutputFiles(guestPaths, false);
  }

  /**
   * {@link #withOutputFiles}, except that a run that finished but left one of these files missing ends
   * with {@link Outcome#OUTPUT_REJECTED}.
   *
   * @since 0.1.0
   */
  public Script withRequiredOutputFiles(String... guestPaths) {
    return withOutputFiles(guestPaths, true);
  }

  private Script withOutputFiles(String[] guestPaths, boolean required) {
    Map<String, Boolean> copy = new LinkedHashMap<>(outputFiles);
    for (String path : Objects.requireNonNull(guestPaths, "guestPaths")) {
      String p = checkedPath("output file", path);
      copy.merge(p, required, Boolean::logicalOr);
    }
    if (copy.size() > MAX_OUTPUT_FILES) {
      throw new IllegalArgumentException("at most " + MAX_OUTPUT_FILES + " output files may be declared, not "
          + copy.size());
    }
    return new Script(language, code, name, inputs, resultSchema, Collections.unmodifiableMap(copy), label, outputListener, files, attributes, limits);
  }

  /**
   * This script with a read-only file in its run's in-memory file system ({@link FileMode#READ_ONLY}).
   *
   * @see #withFile(String, byte[], FileMode)
   * @since 0.1.0
   */
  public Script withFile(String guestPath, byte[] content) {
    return withFile(guestPath, content, FileMode.READ_ONLY);
  }

  /**
   * {@link #withFile(String, byte[], FileMode)} with {@code text} encoded as UTF-8, read-only.
   *
   * @since 0.1.0
   */
  public Script withFile(String guestPath, String text) {
    return withFile(guestPath, Objects.requireNonNull(text, "text").getBytes(StandardCharsets.UTF_8),
        FileMode.READ_ONLY);
  }

  /**
   * {@link #withFile(String, byte[], FileMode)} with {@code text} encoded as UTF-8.
   *
   * @since 0.1.0
   */
  public Script withFile(String guestPath, String text, FileMode mode) {
    return withFile(guestPath, Objects.requireNonNull(text, "text").getBytes(StandardCharsets.UTF_8), mode);
  }

  /**
   * This script with a file handed to its run alone: written into that run's in-memory file system
   * before its first statement, gone with it. The host disk is never touched, and no other run sees it:
   * not the next one, not one running at the same time, not one on a context prepared in advance. Guest
   * code reads it like a mounted file (Python {@code open}, JavaScript {@code readText}); a
   * {@link FileMode#WRITABLE} one it may also overwrite, and, declared with {@link #withOutputFiles},
   * it comes back in the result, so a run can transform an uploaded file. The guest can never delete,
   * rename or recreate it, and the directories above it show only what leads to it and to the mounts.
   *
   * <p>The content is copied; a later change to {@code content} does not reach the run. The same path
   * given again replaces the earlier file. When the script runs, the sandbox checks the files against
   * its policy and refuses the run with {@link IllegalArgumentException} (naming the path) if one lies
   * inside, at or above a mount, at, inside or above {@link Policy#PYTHON_HOME_PATH} while the policy
   * allows Python, or if the files alone hold more than {@link Limits#maxFileBytes()} bytes or more
   * than {@link Limits#maxFiles()} files and directories. Together with the mounts' copies, counted in
   * the file system's 4 KiB blocks, they may still not fit: the run then ends
   * {@link Outcome#LIMIT_EXCEEDED} ({@link Limit#FILES}) before its guest starts.
   *
   * @param guestPath an absolute guest path without {@code ..}, such as {@code /in/upload.csv}; each name
   *     must also be safe as a host file name (no backslash, colon or control character)
   * @throws IllegalArgumentException naming the path, if it is not such a path, if it lies inside or
   *     above another file given here, or if more than {@value #MAX_FILES} files or
   *     {@value #MAX_TOTAL_FILE_BYTES} bytes in all would be given
   * @since 0.1.0
   */
  public Script withFile(String guestPath, byte[] content, FileMode mode) {
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(mode, "mode");
    String p = checkedPath("file", guestPath);
    Map<String, RunFile> copy = new LinkedHashMap<>(files);
    copy.remove(p);
    long total = content.length;
    for (String other : copy.keySet()) {
      if (other.startsWith(p + "/") || p.startsWith(other + "/")) {
        throw new IllegalArgumentException("file " + p + " and file " + other + " overlap: one would be a"
            + " directory of the other");
      }
      total += copy.get(other).bytes().length;
    }
    if (copy.size() + 1 > MAX_FILES) {
      throw new IllegalArgumentException("at most " + MAX_FILES + " files may be given to a run, not "
          + (copy.size() + 1) + " (adding " + p + ")");
    }
    if (total > MAX_TOTAL_FILE_BYTES) {
      throw new IllegalArgumentException("file " + p + " (" + content.length + " bytes) would bring the run's"
          + " files to " + total + " bytes; at most " + MAX_TOTAL_FILE_BYTES + " are allowed");
    }
    copy.put(p, new RunFile(p, content.clone(), mode == FileMode.WRITABLE));
    return new Script(language, code, name, inputs, resultSchema, outputFiles, label, outputListener,
        Collections.unmodifiableMap(copy), attributes, limits);
  }

  /**
   * The files given by {@link #withFile}: normalized guest path to mode, in the order given.
   *
   * @since 0.1.0
   */
  public Map<String, FileMode> files() {
    Map<String, FileMode> out = new LinkedHashMap<>();
    files.forEach((p, f) -> out.put(p, f.writable() ? FileMode.WRITABLE : FileMode.READ_ONLY));
    return Collections.unmodifiableMap(out);
  }

  List<RunFile> runFiles() {
    return List.copyOf(files.values());
  }

  /**
   * Checks the run's files against the policy it is to run under, and that the files alone fit its
   * file limits.
   *
   * @throws IllegalArgumentException naming the first file that breaks a rule
   */
  void checkFilesAgainst(Policy policy) {
    long bytes = 0;
    Set<String> entries = new LinkedHashSet<>();
    for (String p : files.keySet()) {
      Optional<Mount> m = policy.mountFor(p);
      if (m.isPresent()) {
        throw new IllegalArgumentException("file " + p + " lies inside mount " + m.get().guestPath()
            + "; a run's own files must lie outside the policy's mounts");
      }
      if (policy.directoriesLeadingToMounts().contains(p)) {
        throw new IllegalArgumentException("file " + p + " would be a directory above a mount of the policy"
            + " (mounts: " + policy.mounts().stream().map(Mount::guestPath).toList() + ")");
      }
      String home = Policy.PYTHON_HOME_PATH;
      if (policy.allows(Language.PYTHON)
          && (p.equals(home) || p.startsWith(home + "/") || home.startsWith(p + "/"))) {
        throw new IllegalArgumentException("file " + p + " overlaps " + home + ", where Python guests find"
            + " GraalPy's standard library; put it elsewhere");
      }
      bytes += files.get(p).bytes().length;
      for (int i = p.indexOf('/', 1); i > 0; i = p.indexOf('/', i + 1)) {
        entries.add(p.substring(0, i));
      }
      entries.add(p);
    }
    Limits limits = policy.limits();
    if (bytes > limits.maxFileBytes()) {
      throw new IllegalArgumentException("the run's files hold " + bytes + " bytes, more than the policy's"
          + " maxFileBytes (" + limits.maxFileBytes() + ")" + (files.size() == 1 ? " (file "
          + files.keySet().iterator().next() + ")" : ""));
    }
    if (entries.size() > limits.maxFiles()) {
      throw new IllegalArgumentException("the run's files make " + entries.size() + " files and directories,"
          + " more than the policy's maxFiles (" + limits.maxFiles() + ")");
    }
  }

  /**
   * This script with an attribute of its run, set by the embedder (a tenant, a user, a conversation
   * id): every tool handler of the run receives it ({@link Tool.Call#attributes()}, through a
   * {@link Tool.ContextualHandler}), on the guest thread or a handler thread alike. Guest code never
   * sees it: it is in no global, no environment variable, no file. Not audited; see
   * {@link #withAuditedAttribute}. Setting a name again replaces its value (and whether it is audited).
   *
   * @param name 1-64 letters, digits, {@code _}, {@code .} or {@code -}
   * @param value at most {@value #MAX_ATTRIBUTE_CHARS} characters, no control character
   * @throws IllegalArgumentException naming the value, if the name or value breaks these rules, or if
   *     the run would carry more than {@value #MAX_ATTRIBUTES} attributes
   * @since 0.1.0
   */
  public Script withAttribute(String name, String value) {
    return withAttribute(name, value, false);
  }

  /**
   * {@link #withAttribute}, and every audit event of the run carries it too ({@link AuditEvent#attributes()},
   * the JFR event's {@code attributes} field, {@link ExecutionResult#auditEvents()}). Audit only what
   * may be kept in logs.
   *
   * @since 0.1.0
   */
  public Script withAuditedAttribute(String name, String value) {
    return withAttribute(name, value, true);
  }

  private Script withAttribute(String name, String value, boolean audited) {
    Objects.requireNonNull(name, "attribute name");
    Objects.requireNonNull(value, "attribute value");
    if (!ATTRIBUTE_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("attribute name '" + TextSanitizer.oneLine(name, 80) + "' must be 1-64"
          + " letters, digits, '_', '.' or '-'");
    }
    if (value.length() > MAX_ATTRIBUTE_CHARS) {
      throw new IllegalArgumentException("attribute " + name + " is " + value.length() + " characters long; at most "
          + MAX_ATTRIBUTE_CHARS + " are allowed");
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new IllegalArgumentException("attribute " + name + " holds a control character (U+"
            + String.format("%04X", (int) value.charAt(i)) + ") at index " + i);
      }
    }
    Map<String, Attribute> copy = new LinkedHashMap<>(attributes);
    copy.put(name, new Attribute(value, audited));
    if (copy.size() > MAX_ATTRIBUTES) {
      throw new IllegalArgumentException("at most " + MAX_ATTRIBUTES + " attributes may be set, not " + copy.size()
          + " (adding " + name + ")");
    }
    return new Script(language, code, this.name, inputs, resultSchema, outputFiles, label, outputListener, files,
        Collections.unmodifiableMap(copy), limits);
  }

  /**
   * The run's attributes ({@link #withAttribute}, {@link #withAuditedAttribute}), in the order set.
   *
   * @since 0.1.0
   */
  public Map<String, String> attributes() {
    Map<String, String> out = new LinkedHashMap<>();
    attributes.forEach((n, a) -> out.put(n, a.value()));
    return Collections.unmodifiableMap(out);
  }

  /**
   * The attributes audit events carry ({@link #withAuditedAttribute}), in the order set.
   *
   * @since 0.1.0
   */
  public Map<String, String> auditedAttributes() {
    Map<String, String> out = new LinkedHashMap<>();
    attributes.forEach((n, a) -> {
      if (a.audited()) {
        out.put(n, a.value());
      }
    });
    return Collections.unmodifiableMap(out);
  }

  /**
   * This script with limits of its own: its run gets these instead of the policy's. Each may only be
   * lower than (or equal to) the policy's, and the stack size must be the policy's (it is the size of
   * the sandbox's run threads): a server gives one tenant's or one request's run less than the
   * sandbox allows, without a sandbox per tier. A run with its own limits always makes a fresh context
   * (the warm pool's are made with the policy's statement limit). Checked when the script is run.
   *
   * @see PolyglotSandbox#run(Script)
   * @since 0.1.0
   */
  public Script withLimits(Limits limits) {
    Objects.requireNonNull(limits, "limits");
    return new Script(language, code, name, inputs, resultSchema, outputFiles, label, outputListener, files,
        attributes, limits);
  }

  /**
   * The limits set by {@link #withLimits}, if any; without them the run has the policy's.
   *
   * @since 0.1.0
   */
  public Optional<Limits> limits() {
    return Optional.ofNullable(limits);
  }

  /**
   * The policy this script runs under: {@code policy}, or {@code policy} with this script's limits.
   *
   * @throws IllegalArgumentException if one of this script's limits is above the policy's, naming it
   */
  Policy policyForRun(Policy policy) {
    if (limits == null || limits.equals(policy.limits())) {
      return policy;
    }
    limits.requireWithin(policy.limits());
    return policy.toBuilder().limits(limits).build();
  }

  /** A normalized absolute guest path, each of whose names is also safe as a host file name. */
  private static String checkedPath(String what, String path) {
    String p;
    try {
      p = Mount.normalizeGuestPath(Objects.requireNonNull(path, "guest path"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
    }
    for (String part : p.substring(1).split("/")) {
      String problem = HostWriter.problem(part);
      if (problem != null) {
        throw new IllegalArgumentException(what + " '" + TextSanitizer.oneLine(path, 200)
            + "' is not a safe file name: " + problem);
      }
    }
    return p;
  }

  /** @since 0.1.0 */
  public Language language() {
    return language;
  }

  /** @since 0.1.0 */
  public String code() {
    return code;
  }

  /** @since 0.1.0 */
  public String name() {
    return name;
  }

  /** @since 0.1.0 */
  public Map<String, Object> inputs() {
    return inputs;
  }

  /**
   * The result schema as given to {@link #withResultSchema}, if any.
   *
   * @since 0.1.0
   */
  public Optional<String> resultSchema() {
    return resultSchema == null ? Optional.empty() : Optional.of(resultSchema.text());
  }

  /**
   * The declared output files' guest paths, normalized, in the order declared.
   *
   * @since 0.1.0
   */
  public List<String> outputFiles() {
    return List.copyOf(outputFiles.keySet());
  }

  /**
   * The declared output files that are required ({@link #withRequiredOutputFiles}).
   *
   * @since 0.1.0
   */
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
      RunFile own = files.get(path);
      if (own != null && !own.writable()) {
        throw new IllegalArgumentException("output file " + path + " is a read-only file of the run"
            + " (withFile), so the guest could never write it; give it as FileMode.WRITABLE");
      }
      if (own == null && policy.mountFor(path).isEmpty()) {
        throw new IllegalArgumentException("output file " + path + " is outside every mount and is no writable"
            + " file of the run, so the guest could never write it (mounts: "
            + policy.mounts().stream().map(Mount::guestPath).toList() + ")");
      }
    }
  }

  /**
   * Whether guest code may overwrite a file the embedder hands to one run ({@link Script#withFile(String,
   * byte[], FileMode)}). Neither mode lets it delete, rename or replace the file by another.
   *
   * @since 0.1.0
   */
  public enum FileMode {
    /** Guest code may read the file; a write is denied like a write outside the mounts. The default. */
    READ_ONLY,
    /**
     * Guest code may read and overwrite the file (truncate, rewrite, append), so that a run can transform
     * it; declared with {@link Script#withOutputFiles}, it comes back in the result.
     */
    WRITABLE
  }
}
