package org.polyglotsandbox.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.Tool;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code sandbox run FILE}: runs one program in a fresh sandbox and prints its value and a report.
 *
 * <p>The policy is the {@code --policy} file if given (else nothing but the program's language), plus
 * each {@code --mount}; {@code --timeout} and {@code --max-statements} replace the file's limits. The
 * sandbox is built for the program's language only, so a JavaScript run does not pay for starting
 * Python.
 */
@Command(name = "run",
    mixinStandardHelpOptions = true,
    versionProvider = SandboxCli.Version.class,
    sortOptions = false,
    description = {
        "Runs FILE in a fresh sandbox and prints its value, its output and a report.",
        "Nothing is allowed unless granted: no files but the mounts, no network, no processes."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
        " 0:the program finished",
        " 1:guest error or syntax error",
        " 2:bad usage, missing file or bad policy",
        " 3:a limit was exceeded",
        " 4:the output boundary rejected the result or an output file",
        " 5:internal error, or the sandbox could not start (such as --isolation process where the OS cannot"
            + " give the wall)",
        " 6:the run was cancelled (the command was interrupted)"},
    footer = "%nPolicy file syntax: docs/policy-file.md")
final class RunCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "FILE",
      description = "The program: .js or .mjs (JavaScript) or .py (Python), UTF-8.")
  private String file;

  @Option(names = "--lang", paramLabel = "js|python", converter = LanguageConverter.class,
      description = "The program's language, if its extension does not say.")
  private Language language;

  @Option(names = "--mount", paramLabel = MountOption.SYNTAX, converter = MountOption.class,
      description = {"Copies a host file or directory in at GUEST_PATH; read-only unless :rw.",
          "Writes stay in memory and never reach the host. Repeatable."})
  private List<Mount> mounts = new ArrayList<>();

  @Option(names = "--python-path", paramLabel = "DIRS", split = ",",
      description = {"Guest directories, inside or above the mounts, put at the front of sys.path",
          "(a Python program then imports a mounted package without changing sys.path itself)."})
  private List<String> pythonPath = List.of();

  @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "Wall-clock limit, such as 500ms, 1.5s, 2s or 1m (default: 10s, or the policy's).")
  private Duration timeout;

  @Option(names = "--max-statements", paramLabel = "N", converter = CountConverter.class,
      description = "Guest statements the run may execute (default: 100000000, or the policy's).")
  private Long maxStatements;

  @Option(names = "--policy", paramLabel = "POLICY.json",
      description = "A policy file; its relative host paths resolve against its own directory.")
  private String policyFile;

  @Option(names = "--result-schema", paramLabel = "SCHEMA.json",
      description = {"A JSON Schema the program's value must match; a value that does not",
          "ends the run OUTPUT_REJECTED (exit 4), naming the failing path."})
  private String resultSchema;

  @Option(names = "--output-file", paramLabel = "GUEST_PATH",
      description = {"A file the program leaves in a writable mount, taken out after the run",
          "(size and name checked). Written below --output-dir if given. Repeatable."})
  private List<String> outputFiles = new ArrayList<>();

  @Option(names = "--file", paramLabel = "HOST_FILE:GUEST_PATH[:ro|rw]",
      description = {"Hands a copy of a host file to this run alone, at GUEST_PATH in its in-memory",
          "file system (outside the mounts); read-only unless :rw. Never written back: declare",
          "it an --output-file to get a rewritten copy. Repeatable."})
  private List<String> files = new ArrayList<>();

  @Option(names = "--output-dir", paramLabel = "DIR",
      description = {"An existing host directory to write the --output-file files into, at their",
          "guest paths (/out/a.csv goes to DIR/out/a.csv); existing files are never replaced."})
  private String outputDir;

  @Option(names = "--json",
      description = "Print exactly one JSON object on stdout instead of the report.")
  private boolean json;

  @Option(names = "--stream",
      description = {"Print the guest's stdout and stderr as it writes them, each line behind '  | ' (with",
          "--json: one JSON line per chunk on stderr, so stdout stays one JSON object)."})
  private boolean stream;

  @Option(names = "--attribute", paramLabel = "KEY=VALUE",
      description = {"A run attribute (a tenant, a user, a ticket): never visible to the guest, handed to",
          "every tool handler, and written with each --audit-log line. Repeatable."})
  private List<String> attributes = new ArrayList<>();

  @Option(names = "--isolation", paramLabel = "process|in-process", converter = IsolationOption.ModeConverter.class,
      description = {"Where the program runs: in-process (the default: in this JVM) or process (in a worker",
          "JVM behind the OS wall: bubblewrap namespaces, a seccomp filter, rlimits; stderr names the wall).",
          "Where the OS cannot give the wall, process exits 5 naming what is missing, unless --weak-wall."})
  private IsolationOption.Mode isolation;

  @Option(names = "--weak-wall", description = IsolationOption.WEAK_WALL_HELP)
  private boolean weakWall;

  /** How long the report waits for the streamed output to be printed before it prints it whole. */
  static final Duration STREAM_WAIT = Duration.ofSeconds(2);

  /** Result schema files larger than this are refused unread. */
  static final long MAX_SCHEMA_BYTES = 1L << 20;

  @Option(names = "--audit-log", paramLabel = "FILE",
      description = {"Append the run's audit events (denials, limits, tool calls) to FILE as JSON Lines,",
          "as they happen, then one line for the run."})
  private String auditLog;

  private final PrintStream out;
  private final PrintStream err;

  RunCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    Path path = programFile();
    Language lang = language != null ? language : Language.forFileName(path.getFileName().toString())
        .orElseThrow(() -> new UsageException("cannot tell the language of " + Text.quote(file)
            + " from its extension (.js, .mjs, .py); use --lang js or --lang python"));
    String code = read(path);
    List<Tool> tools = new ArrayList<>();
    Policy policy = policy(lang, tools);
    Script script = script(Script.of(lang, code).named(scriptName(path)), policy);
    StreamPrinter printer = stream ? new StreamPrinter(out, err, json) : null;
    if (printer != null) {
      script = script.withOutputListener(printer);
    }
    Path dir = outputDirectory(script);
    String[] sysPath = PythonPathOption.check(pythonPath, policy);
    // One run: one worker, and no spare to replace it.
    Isolation where = IsolationOption.resolve("run", isolation, IsolationOption.Mode.IN_PROCESS, null, 1, weakWall,
        0);

    ExecutionResult result;
    String auditFailure = null;
    try (AuditLog log = auditLog == null ? null : AuditLog.open(auditLog)) {
      try (PolyglotSandbox sandbox = start(policy, tools, log, sysPath, where)) {
        if (where.isProcess()) {
          // With --weak-wall the user cannot otherwise tell which wall the host gave.
          err.println("sandbox run: " + Text.escapeLine(sandbox.isolationInForce()));
        }
        result = sandbox.run(script);
      } catch (IllegalArgumentException e) {
        // The sandbox refused the script before running it: a --file clashing with a mount or the caps.
        throw new UsageException(e.getMessage());
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // The program never started: the machine is too busy to make its context in time.
        throw new StartException("the sandbox could not start the run: " + e.getMessage(), e);
      }
      if (log != null) {
        log.run(script, result);
        log.close();
        auditFailure = log.failure();
      }
    }
    List<Path> written = List.of();
    if (dir != null) {
      try {
        written = result.writeOutputFiles(dir);
      } catch (IOException | IllegalArgumentException e) {
        // Checked before the run; only a change to the directory meanwhile or a host I/O error gets here.
        throw new UsageException("--output-dir " + Text.quote(outputDir) + ": the output files could not be"
            + " written: " + e.getMessage());
      }
    }
    boolean streamedAll = printer != null && printer.finish(result, STREAM_WAIT);
    if (json) {
      out.println(ResultJson.toJson(result, written));
    } else {
      HumanReport.print(result, written, streamedAll, out);
    }
    if (auditFailure != null) {
      throw new StartException(auditFailure, null);
    }
    return ExitStatus.of(result.outcome()).code();
  }

  /** The script with the result schema and output files of the flags. */
  private Script script(Script script, Policy policy) {
    Script s = script;
    if (resultSchema != null) {
      Path schemaFile;
      try {
        schemaFile = Path.of(resultSchema);
      } catch (InvalidPathException e) {
        throw new UsageException("--result-schema " + Text.quote(resultSchema) + " is not a valid path");
      }
      String text = readText(schemaFile, "--result-schema " + Text.quote(resultSchema), MAX_SCHEMA_BYTES);
      try {
        s = s.withResultSchema(text);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--result-schema " + Text.quote(resultSchema) + ": " + e.getMessage());
      }
    }
    for (String spec : files) {
      s = withFile(s, spec, policy);
    }
    for (String attribute : attributes) {
      int eq = attribute.indexOf('=');
      if (eq <= 0) {
        throw new UsageException("--attribute " + Text.quote(attribute) + ": expected KEY=VALUE");
      }
      try {
        s = s.withAuditedAttribute(attribute.substring(0, eq), attribute.substring(eq + 1));
      } catch (IllegalArgumentException e) {
        throw new UsageException("--attribute " + Text.quote(attribute) + ": " + e.getMessage());
      }
    }
    for (String guestPath : outputFiles) {
      try {
        s = s.withOutputFiles(guestPath);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--output-file " + Text.quote(guestPath) + ": " + e.getMessage());
      }
    }
    for (String guestPath : s.outputFiles()) {
      if (policy.mountFor(guestPath).isEmpty() && s.files().get(guestPath) != Script.FileMode.WRITABLE) {
        throw new UsageException("--output-file " + Text.quote(guestPath) + " is outside every mount and no"
            + " --file ...:rw, so the"
            + " program could never write it; mount a writable directory there (--mount HOST:GUEST:rw, or a"
            + " scratch mount in the policy file)");
      }
    }
    return s;
  }

  /**
   * The script with the host file of {@code --file HOST_FILE:GUEST_PATH[:ro|rw]} read in (here, by the
   * CLI: the sandbox only ever sees its bytes). The guest path is the part after the last {@code :}
   * (after removing the access), so host paths may contain colons.
   */
  private static Script withFile(Script script, String spec, Policy policy) {
    String rest = spec;
    Script.FileMode mode = Script.FileMode.READ_ONLY;
    if (rest.endsWith(":rw") || rest.endsWith(":ro")) {
      mode = rest.endsWith(":rw") ? Script.FileMode.WRITABLE : Script.FileMode.READ_ONLY;
      rest = rest.substring(0, rest.length() - 3);
    }
    int colon = rest.lastIndexOf(':');
    if (colon <= 0) {
      throw new UsageException("--file " + Text.quote(spec) + ": expected HOST_FILE:GUEST_PATH[:ro|rw]");
    }
    String host = rest.substring(0, colon);
    String guest = rest.substring(colon + 1);
    Path hostPath;
    try {
      hostPath = Path.of(host);
    } catch (InvalidPathException e) {
      throw new UsageException("--file " + Text.quote(spec) + ": host path " + Text.quote(host) + " is not a valid path");
    }
    String what = "--file " + Text.quote(spec) + ": host file " + Text.quote(host);
    long max = policy.limits().maxFileBytes();
    byte[] bytes;
    try {
      if (!Files.isRegularFile(hostPath)) {
        throw new UsageException(what + (Files.exists(hostPath) ? " is not a regular file" : " does not exist"));
      }
      if (Files.size(hostPath) > max) {
        throw new UsageException(what + " holds " + Files.size(hostPath) + " bytes, more than the run's file"
            + " limit of " + max + " bytes");
      }
      bytes = Files.readAllBytes(hostPath);
    } catch (AccessDeniedException e) {
      throw new UsageException(what + " cannot be read: permission denied");
    } catch (IOException e) {
      throw new UsageException(what + " cannot be read: " + e.getMessage());
    }
    try {
      return script.withFile(guest, bytes, mode);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--file " + Text.quote(spec) + ": " + e.getMessage());
    }
  }

  /** The --output-dir, checked to exist and to hold none of the files it will receive. */
  private Path outputDirectory(Script script) {
    if (outputDir == null) {
      return null;
    }
    Path dir;
    try {
      dir = Path.of(outputDir);
    } catch (InvalidPathException e) {
      throw new UsageException("--output-dir " + Text.quote(outputDir) + " is not a valid path");
    }
    if (!Files.isDirectory(dir)) {
      throw new UsageException("--output-dir " + Text.quote(outputDir) + " is not an existing directory");
    }
    if (outputFiles.isEmpty()) {
      throw new UsageException("--output-dir " + Text.quote(outputDir) + " needs at least one --output-file");
    }
    for (String guestPath : script.outputFiles()) {
      Path target = dir.resolve(guestPath.substring(1));
      if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
        throw new UsageException("--output-dir " + Text.quote(outputDir) + ": " + Text.quote(target.toString())
            + " already exists; output files never replace a file");
      }
    }
    return dir;
  }

  private static PolyglotSandbox start(Policy policy, List<Tool> tools, AuditLog log, String[] pythonPath,
      Isolation isolation) {
    try {
      // One run, then the JVM exits: no warm-up for later runs (Builder.singleRun).
      PolyglotSandbox.Builder b = PolyglotSandbox.builder().policy(policy).tools(tools).singleRun()
          .pythonPath(pythonPath).isolation(isolation);
      if (log != null) {
        b.auditListener(log);
      }
      return b.build();
    } catch (IllegalStateException e) {
      // A mount deleted since it was checked, a language that failed to start, or a host that cannot give
      // process isolation's wall (the message names what it lacks): no host stack needed.
      throw new StartException("the sandbox could not start: " + e.getMessage(), e);
    }
  }

  private Path programFile() {
    Path path;
    try {
      path = Path.of(file);
    } catch (InvalidPathException e) {
      throw new UsageException("file " + Text.quote(file) + " is not a valid path");
    }
    if (!Files.exists(path)) {
      throw new UsageException("file " + Text.quote(file) + " does not exist");
    }
    if (!Files.isRegularFile(path)) {
      throw new UsageException("file " + Text.quote(file) + " is not a regular file");
    }
    return path;
  }

  private String read(Path path) {
    return readText(path, "file " + Text.quote(file), Long.MAX_VALUE);
  }

  /** A UTF-8 text file (a leading byte-order mark dropped); {@code what} names it in messages. */
  private static String readText(Path path, String what, long maxBytes) {
    byte[] bytes;
    try {
      if (!Files.isRegularFile(path)) {
        throw new UsageException(what + (Files.exists(path) ? " is not a regular file" : " does not exist"));
      }
      if (Files.size(path) > maxBytes) {
        throw new UsageException(what + " is larger than " + maxBytes + " bytes");
      }
      bytes = Files.readAllBytes(path);
    } catch (AccessDeniedException e) {
      throw new UsageException(what + " cannot be read: permission denied");
    } catch (IOException e) {
      throw new UsageException(what + " cannot be read: " + e.getMessage());
    }
    String code;
    try {
      code = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new UsageException(what + " is not UTF-8 text");
    }
    return code.startsWith("\uFEFF") ? code.substring(1) : code;
  }

  /**
   * The policy file (or nothing but {@code lang}), narrowed to {@code lang}, plus the flags; adds the
   * demo tools the file allows to {@code tools}.
   */
  private Policy policy(Language lang, List<Tool> tools) {
    Policy.Builder b;
    Limits limits;
    if (policyFile != null) {
      PolicyFile p = PolicyCommand.Loaded.read(policyFile);
      if (!p.languages().isEmpty() && !p.languages().contains(lang)) {
        throw new UsageException(policyFile + ": languages: does not allow " + lang.id() + ", the language of "
            + Text.quote(file) + " (allowed: "
            + p.languages().stream().map(Language::id).collect(Collectors.joining(", ")) + ")");
      }
      b = p.toBuilder(lang);
      limits = p.limits();
      tools.addAll(p.tools());
    } else {
      b = Policy.builder().allowLanguages(lang);
      limits = Limits.defaults();
    }
    mounts.forEach(b::mount);
    Limits.Builder l = limits.toBuilder();
    try {
      if (timeout != null) {
        l.wallTime(timeout);
      }
    } catch (IllegalArgumentException e) {
      throw new UsageException("--timeout: " + e.getMessage());
    }
    try {
      if (maxStatements != null) {
        l.maxStatements(maxStatements);
      }
    } catch (IllegalArgumentException e) {
      throw new UsageException("--max-statements: " + e.getMessage());
    }
    try {
      return b.limits(l.build()).build();
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  /** The file's name as guest stack traces show it: never the host directory, only allowed characters. */
  static String scriptName(Path path) {
    String name = path.getFileName().toString().replaceAll("[^A-Za-z0-9_.\\-]", "_");
    return name.length() > 128 ? name.substring(name.length() - 128) : name;
  }

  static final class LanguageConverter implements CommandLine.ITypeConverter<Language> {
    @Override
    public Language convert(String value) {
      try {
        return Language.fromId(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  static final class CountConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new CommandLine.TypeConversionException(Text.quote(value) + " is not a whole number");
      }
    }
  }

  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Durations.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
