package org.polyglotsandbox.cli;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.mcp.HttpEndpoint;
import org.polyglotsandbox.mcp.SandboxMcpServer;
import org.polyglotsandbox.micrometer.SandboxMetrics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sandbox mcp}: an MCP server over one long-lived sandbox, on stdio (until stdin closes) or, with
 * {@code --http}, on Streamable HTTP at {@code /mcp}. The policy is the {@code --policy} file's (its
 * languages, or both when it lists none), else JavaScript and Python with nothing else allowed. On stdio
 * only protocol messages reach stdout; everything else goes to stderr.
 *
 * <p>Guest code runs in worker JVMs behind the operating-system wall where the host gives it, and a line
 * on stderr names the workers and the wall; where it does not, in this JVM, and a line on stderr says
 * why and how to choose. {@code --isolation} chooses explicitly: then nothing falls back.
 */
@Command(name = "mcp",
    mixinStandardHelpOptions = true,
    versionProvider = SandboxCli.Version.class,
    sortOptions = false,
    description = {
        "Serves MCP tools run_javascript and run_python ({code, inputs?}) over one long-lived sandbox:",
        "on stdio until stdin closes, or with --http on Streamable HTTP at http://HOST:PORT/mcp.",
        "Guest code runs in worker JVMs behind the OS wall where the OS gives it (see --isolation)."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
        " 0:stdin closed (stdio) or the server was stopped",
        " 2:bad usage or policy",
        " 5:the sandbox or the HTTP server could not start"},
    footer = {"%nHost tools: with --expose-tools each tool the policy allows is also an MCP tool, its name",
        "with '.' replaced by '_' (kv.get is kv_get). Policy file syntax: docs/policy-file.md"})
final class McpCommand implements Callable<Integer> {
  /** Kept so that the SDK's logger level holds (JUL holds loggers weakly). */
  private static final Logger SDK_LOG = Logger.getLogger("io.modelcontextprotocol");

  @Option(names = "--policy", paramLabel = "POLICY.json",
      description = "A policy file; its relative host paths resolve against its own directory.")
  private String policyFile;

  @Option(names = "--audit-log", paramLabel = "FILE",
      description = "Append every run's audit events, then one line per run, to FILE as JSON Lines.")
  private String auditLog;

  @Option(names = "--http", paramLabel = "[HOST:]PORT",
      description = {"Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio; HOST defaults to",
          "127.0.0.1 (loopback). Plain HTTP without authentication: see docs/mcp-server.md before binding elsewhere."})
  private String http;

  @Option(names = "--metrics",
      description = {"With --http, also serve the sandbox's meters (runs, their times, tool calls, denials, running",
          "and waiting runs) as Prometheus text at GET /metrics on the same port. See docs/metrics-and-traces.md."})
  private boolean metrics;

  @Option(names = "--expose-tools",
      description = "Also list each host tool the policy allows as an MCP tool (kv.get as kv_get).")
  private boolean exposeTools;

  @Option(names = "--python-imports", paramLabel = "MODULES", split = ",", defaultValue = "json",
      description = {"Standard-library modules imported into each Python context before its run, so a",
          "program's own import of them costs nothing (default: ${DEFAULT-VALUE}; --python-imports= for none)."})
  private List<String> pythonImports;

  @Option(names = "--python-path", paramLabel = "DIRS", split = ",",
      description = {"Guest directories, inside or above the policy's mounts, put at the front of sys.path in each",
          "Python context; with --python-imports, a mounted package is imported before the run."})
  private List<String> pythonPath = List.of();

  @Option(names = "--isolation", paramLabel = "process|in-process", converter = IsolationOption.ModeConverter.class,
      description = {"Where guest code runs: process (worker JVMs behind the OS wall: bubblewrap namespaces, a",
          "seccomp filter, rlimits; a run past its caps gets its worker killed) or in-process (in this JVM).",
          "Default: process where the OS gives the wall, else in-process, saying why on stderr. Given",
          "explicitly, process exits 5 naming what is missing where the OS cannot give the wall, unless --weak-wall."})
  private IsolationOption.Mode isolation;

  @Option(names = "--workers", paramLabel = "N", description = IsolationOption.WORKERS_HELP)
  private Integer workers;

  @Option(names = "--weak-wall", description = IsolationOption.WEAK_WALL_HELP)
  private boolean weakWall;

  private final PrintStream out;
  private final PrintStream err;

  McpCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    if (System.getProperty("java.util.logging.config.file") == null) {
      SDK_LOG.setLevel(Level.WARNING);   // the SDK logs every initialize at INFO
    }
    Address address = http == null ? null : Address.parse(http);
    if (metrics && address == null) {
      throw new UsageException("--metrics needs --http: the meters are served at GET /metrics on its port");
    }
    String[] imports = pythonImports();
    PolicyCommand.Loaded loaded = PolicyCommand.Loaded.of(policyFile);
    String[] path = PythonPathOption.check(pythonPath, loaded.policy());
    // The library's defaults: two workers and one spare.
    Isolation asked = IsolationOption.resolve("mcp", isolation, IsolationOption.Mode.PROCESS, workers,
        Isolation.process().workers(), weakWall, Isolation.process().spareWorkers());
    try (AuditLog log = auditLog == null ? null : AuditLog.open(auditLog);
        PolyglotSandbox sandbox = start(loaded, log, path, imports, asked, isolation == null)) {
      long startedAt = System.nanoTime();
      AtomicBoolean stopping = new AtomicBoolean();   // a warm-up cut short by the server's end is no failure
      sandbox.started().whenComplete((ready, failure) -> {
        if (failure == null) {
          err.printf(Locale.ROOT, "sandbox mcp: ready (%s warmed up in %.1f s)%n", String.join(" and ",
              loaded.policy().languages().stream().map(l -> l.id()).toList()), (System.nanoTime() - startedAt) / 1e9);
        } else if (!stopping.get()) {
          Throwable why = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
          err.println("sandbox mcp: " + why.getMessage() + "; every tool call is answered with this error");
        }
      });
      try {
        SandboxMcpServer.Builder b = SandboxMcpServer.builder(sandbox)
            .exposeTools(exposeTools)
            .serverInfo("polyglot-sandbox", SandboxCli.VERSION);
        // Each call is a run of its own: what the demo tools kept for it goes when it ends.
        b.runListener((script, result) -> {
          loaded.runEnded().accept(result.runId());
          if (log != null) {
            log.run(script, result);
          }
        });
        if (metrics) {
          PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
          SandboxMetrics.bind(sandbox, registry);   // lives as long as the sandbox
          b.metricsPage(registry::scrape);
        }
        SandboxMcpServer server;
        try {
          server = b.build();
        } catch (IllegalArgumentException e) {
          throw new UsageException(e.getMessage());
        }
        if (address == null) {
          PrintStream stdout = System.out;
          System.setOut(err);   // nothing but protocol on the real stdout, whatever else prints
          try {
            server.serveStdio(System.in, out);
          } finally {
            System.setOut(stdout);
          }
        } else {
          HttpEndpoint endpoint;
          try {
            endpoint = server.serveHttp(address.host(), address.port());
          } catch (IllegalStateException e) {
            throw new StartException("--http " + Text.quote(http) + ": " + e.getMessage(), e);
          } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
          }
          err.println("sandbox mcp: serving MCP (Streamable HTTP) at " + endpoint.uri() + "; tools: "
              + String.join(", ", server.tools().stream().map(t -> t.name()).toList())
              + (metrics ? "; metrics at " + endpoint.uri().resolve("/metrics") : ""));
          Runtime.getRuntime().addShutdownHook(new Thread(endpoint::close, "mcp-http-stop"));
          endpoint.await();
        }
        if (log != null && log.failure() != null) {
          throw new StartException(log.failure(), null);
        }
      } finally {
        stopping.set(true);
      }
    }
    return ExitStatus.OK.code();
  }

  /** {@code --python-imports}, checked before anything is opened; empty names (the empty value) dropped. */
  private String[] pythonImports() {
    String[] imports = pythonImports.stream().filter(m -> !m.isEmpty()).toArray(String[]::new);
    try {
      PolyglotSandbox.builder().pythonImports(imports);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--python-imports: " + e.getMessage());
    }
    return imports;
  }

  /**
   * The sandbox with {@code isolation}. When that is process isolation by default ({@code fallBack}) and
   * {@code build()} refuses it (the OS cannot give the wall), the sandbox is built in-process instead and
   * one line on stderr says so, why, and how to choose. A failure that is not the wall's (a mount gone, a
   * tool missing) fails the in-process build too, and that failure is reported.
   */
  private PolyglotSandbox start(PolicyCommand.Loaded loaded, AuditLog log, String[] pythonPath,
      String[] pythonImports, Isolation isolation, boolean fallBack) {
    PolyglotSandbox sandbox;
    try {
      sandbox = build(loaded, log, pythonPath, pythonImports, isolation);
    } catch (IllegalStateException e) {
      if (!isolation.isProcess() || !fallBack) {
        throw new StartException("the sandbox could not start: " + e.getMessage(), e);
      }
      try {
        sandbox = build(loaded, log, pythonPath, pythonImports, Isolation.inProcess());
      } catch (IllegalStateException inProcess) {
        throw new StartException("the sandbox could not start: " + inProcess.getMessage(), inProcess);
      }
      err.println("sandbox mcp: guest code runs in-process: process isolation is unavailable here ("
          + Text.escapeLine(String.valueOf(e.getMessage())) + "); choose with --isolation in-process, or with"
          + " --isolation process --weak-wall for worker JVMs without the whole wall");
      return sandbox;
    }
    if (isolation.isProcess()) {
      err.println("sandbox mcp: " + Text.escapeLine(sandbox.isolationInForce()));
    }
    return sandbox;
  }

  private static PolyglotSandbox build(PolicyCommand.Loaded loaded, AuditLog log, String[] pythonPath,
      String[] pythonImports, Isolation isolation) {
    PolyglotSandbox.Builder b = PolyglotSandbox.builder().policy(loaded.policy()).tools(loaded.tools())
        .warmContexts(2).startInBackground().isolation(isolation);
    if (loaded.policy().allows(Language.PYTHON)) {
      b.pythonPath(pythonPath).pythonImports(pythonImports);
    }
    // initialize and tools/list are answered at once; tool calls wait for the warm-up (seconds).
    if (log != null) {
      b.auditListener(log);
    }
    return b.build();
  }

  /** {@code --http [HOST:]PORT}: loopback unless a host is given. */
  record Address(String host, int port) {
    static Address parse(String value) {
      String host = "127.0.0.1";
      String port = value;
      int colon = value.lastIndexOf(':');
      if (colon >= 0) {
        host = value.substring(0, colon);
        port = value.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) {
          host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
          host = "127.0.0.1";
        }
      }
      int p;
      try {
        p = Integer.parseInt(port);
      } catch (NumberFormatException e) {
        throw new UsageException("--http " + Text.quote(value) + ": the port " + Text.quote(port)
            + " is not a number; use [HOST:]PORT such as 8080 or 127.0.0.1:8080");
      }
      if (p < 0 || p > 65535) {
        throw new UsageException("--http " + Text.quote(value) + ": port " + p + " is outside 0-65535");
      }
      return new Address(host, p);
    }
  }
}
