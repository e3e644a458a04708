package org.polyglotsandbox.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.graalvm.polyglot.Engine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The {@code sandbox} command line: {@code sandbox run FILE [options]}, {@code sandbox policy explain
 * [POLICY.json]}, {@code sandbox probe [POLICY.json]} (alias {@code audit}), {@code sandbox mcp} (an MCP
 * server) and {@code sandbox stubs [--policy POLICY.json] --lang ts|python}. {@code bin/sandbox} builds the
 * project if needed and starts this class with the optimizing runtime's JVM flags.
 *
 * <p>Exit status: 0 the program finished, 1 guest or syntax error, 2 bad usage or policy, 3 a limit
 * was exceeded, 4 the output boundary rejected the result or an output file, 5 internal error or the
 * sandbox could not start, 6 the run was cancelled. Diagnostics go to stderr; with {@code --json} stdout
 * holds exactly one JSON object whenever the program ran.
 */
@Command(name = "sandbox",
    mixinStandardHelpOptions = true,
    versionProvider = SandboxCli.Version.class,
    description = "Runs untrusted JavaScript and Python under a deny-by-default policy.",
    synopsisSubcommandLabel = "COMMAND",
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
        " 0:the program finished",
        " 1:guest error or syntax error",
        " 2:bad usage, missing file or bad policy",
        " 3:a limit was exceeded",
        " 4:the output boundary rejected the result or an output file",
        " 5:internal error, or the sandbox could not start",
        " 6:the run was cancelled (the command was interrupted)"},
    footer = "%nPolicy file syntax: docs/policy-file.md")
public final class SandboxCli implements Callable<Integer> {
  /** This project's version; {@code SandboxCliTest} checks it against pom.xml. */
  static final String VERSION = "0.1.0-SNAPSHOT";

  @Spec
  private CommandSpec spec;

  private SandboxCli() {}

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    // One line per engine or sandbox log record on stderr, unless the user configured logging.
    if (System.getProperty("java.util.logging.SimpleFormatter.format") == null
        && System.getProperty("java.util.logging.config.file") == null) {
      System.setProperty("java.util.logging.SimpleFormatter.format", "sandbox: %4$s: %5$s%6$s%n");
    }
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
    int status = execute(args, out, err);
    out.flush();
    err.flush();
    exitWithin(status, EXIT_WAIT);
  }

  /** How long the JVM's shutdown hooks may take before the CLI ends the process without them. */
  static final Duration EXIT_WAIT = Duration.ofSeconds(2);

  /**
   * Exits with {@code status}, or halts if the shutdown hooks take longer than {@code wait}. A guest
   * thread the sandbox abandoned (held in a builtin that polls no safepoint, such as a huge BigInt
   * power) keeps GraalVM's engine from closing, and the engine's own shutdown hook waits for it: the
   * process then went on for minutes after printing its answer. Everything of the run (result, audit
   * log, output files) is written before this is called.
   */
  private static void exitWithin(int status, Duration wait) {
    Thread halt = new Thread(() -> {
      try {
        Thread.sleep(wait);
      } catch (InterruptedException e) {
        return;
      }
      Runtime.getRuntime().halt(status);
    }, "sandbox-exit");
    halt.setDaemon(true);
    halt.start();
    System.exit(status);
  }

  /**
   * Runs the command line in this JVM and returns the exit status; for tests and embedding. Guest
   * output never goes to the real stdout: results are printed to {@code out}, diagnostics to {@code err}.
   */
  public static int execute(String[] args, PrintStream out, PrintStream err) {
    CommandLine cli = new CommandLine(new SandboxCli());
    // Picocli inspects every subcommand it is given (the MCP server's classes and JSON types among
    // them), so a command line that names one gets only that one: `run` starts without the others.
    Map<String, Supplier<Object>> commands = new LinkedHashMap<>();
    commands.put("run", () -> new RunCommand(out, err));
    commands.put("policy", () -> new CommandLine(new PolicyCommand())
        .addSubcommand("explain", new PolicyCommand.Explain(out)));
    commands.put("probe", () -> new ProbeCommand(out));
    commands.put("mcp", () -> new McpCommand(out, err));
    commands.put("stubs", () -> new StubsCommand(out));
    String first = args.length > 0 ? ("audit".equals(args[0]) ? "probe" : args[0]) : "";
    String named = commands.containsKey(first) ? first : null;
    commands.forEach((name, command) -> {
      if (named == null || named.equals(name)) {
        cli.addSubcommand(name, command.get());
      }
    });
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    cli.setParameterExceptionHandler((e, a) -> {
      String command = e.getCommandLine().getCommandSpec().qualifiedName();
      err.println(command + ": " + Text.escapeLine(String.valueOf(e.getMessage()))
          + " (see '" + command + " --help')");
      return ExitStatus.USAGE.code();
    });
    cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
      String command = commandLine.getCommandSpec().qualifiedName();
      if (e instanceof UsageException) {
        err.println(command + ": " + Text.escapeLine(e.getMessage()));
        return ExitStatus.USAGE.code();
      }
      if (e instanceof StartException) {
        err.println(command + ": " + Text.escapeLine(e.getMessage()));
        return ExitStatus.INTERNAL_ERROR.code();
      }
      err.println(command + ": internal error: " + Text.escapeLine(String.valueOf(e)));
      e.printStackTrace(err);
      return ExitStatus.INTERNAL_ERROR.code();
    });
    int status = cli.execute(args);
    out.flush();
    err.flush();
    return status;
  }

  /** {@code sandbox} alone: prints the usage to stderr. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitStatus.USAGE.code();
  }

  /** {@code --version}: this project, the GraalVM Polyglot API and the JVM. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {
          "polyglot-sandbox " + VERSION,
          "GraalVM Polyglot " + polyglotVersion(),
          "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")"};
    }

    /** The polyglot jar's version file; {@code Version.getCurrent()} says "snapshot" on the class path. */
    private static String polyglotVersion() {
      try (InputStream in = Engine.class.getResourceAsStream("/META-INF/graalvm/org.graalvm.polyglot/version")) {
        if (in != null) {
          return new String(in.readNBytes(64), StandardCharsets.UTF_8).strip();
        }
      } catch (IOException e) {
        // fall through to the API's own answer
      }
      return org.graalvm.home.Version.getCurrent().toString();
    }
  }
}
