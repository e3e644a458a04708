package org.polyglotsandbox.mcp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerTransportProviderBase;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;

/**
 * An MCP server that runs untrusted code in one long-lived {@link PolyglotSandbox}: tools
 * {@code run_javascript} and {@code run_python} (one per language the policy allows), input
 * {@code {"code": string, "inputs"?: object}}, and, with {@link Builder#exposeTools}, each host tool of
 * the sandbox as an MCP tool of its own ({@code kv.get} as {@code kv_get}).
 *
 * <pre>{@code
 * // startInBackground: initialize is answered at once, the first call waits for the warm-up
 * try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).warmContexts(2).startInBackground().build()) {
 *   SandboxMcpServer.builder(sandbox).build().serveStdio(System.in, realStdout);   // until stdin ends
 * }
 * }</pre>
 *
 * <p>Each call is one run in a fresh context ({@link PolyglotSandbox#run}); the sandbox's admission
 * bounds how many run and wait, and a call past that is answered at once with {@code isError} and a
 * message saying the sandbox is busy. The result carries {@link ExecutionResult#toModelText()} as text and
 * {@code {outcome, value, nonFiniteNumbers?, stdout, stderr, limit?, error?}} as {@code structuredContent};
 * {@code isError} is true for every outcome but OK. A call that never ran (bad arguments, a busy or
 * stopping sandbox) is answered with outcome {@code NOT_RUN}, so every answer of a run tool matches its
 * {@code outputSchema}. NaN and the infinities in a value, which JSON cannot carry, are the strings
 * {@code "NaN"}, {@code "Infinity"} and {@code "-Infinity"}; {@code nonFiniteNumbers} holds a JSON Pointer
 * to each, and a second text block says so to the model. {@code notifications/cancelled} and a connection
 * that closes cancel the run (it ends CANCELLED; the cancelled request gets no response). A call that
 * sends a progress token gets a progress notification every {@link Builder#progressAfter} while it runs:
 * {@code progress} is the seconds since the call started, and there is no {@code total}, since the
 * wall-time limit bounds a run but says nothing of how much of it is done. Guest stdout and stderr
 * stream as logging notifications ({@code notifications/message}, logger {@code stdout} or
 * {@code stderr}) while the run goes, sanitised and within the output cap, sent before the answer
 * (waiting at most 500 ms for them), and are whole in the result. The stream is bounded so that a
 * flood of output never holds up protocol messages: gathered and sent every 100 ms, at most 8192
 * characters per stream a time, 1000 notifications and 1 Mi characters a run; a run whose output did
 * not all fit ends its stream with a notice (level warning, logger {@code sandbox}) saying how many
 * characters were not streamed.
 *
 * <p>The server does not own the sandbox: close the sandbox after the server has stopped.
 *
 * @since 0.1.0
 */
public final class SandboxMcpServer {
  /** The connection name of the stdio transport (one client per process). */
  static final String STDIO = "stdio";

  private final PolyglotSandbox sandbox;
  private final boolean exposeTools;
  private final int maxCodeChars;
  private final int maxMessageBytes;
  private final Duration progressAfter;
  private final BiConsumer<Script, ExecutionResult> runListener;
  private final java.util.function.Supplier<String> metricsPage;
  private final String name;
  private final String version;
  private final ObjectMapper json;
  private final McpJsonMapper mapper;
  private final Calls calls = new Calls();
  private final ExecutorService executor = Executors.newCachedThreadPool(daemons("mcp-call-"));
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(daemons("mcp-progress-"));
  private final RunTools runTools;
  private final List<AsyncToolSpecification> specifications;

  private SandboxMcpServer(Builder b) {
    this.sandbox = b.sandbox;
    this.exposeTools = b.exposeTools;
    this.maxCodeChars = b.maxCodeChars;
    this.maxMessageBytes = b.maxMessageBytes;
    this.progressAfter = b.progressAfter;
    this.runListener = b.runListener;
    this.metricsPage = b.metricsPage;
    this.name = b.name;
    this.version = b.version;
    // Jackson refuses strings over 20 M characters by default: a message's strings may be as long as it is.
    this.json = JsonMapper.builder(JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(maxMessageBytes).build())
        .build()).build();
    this.mapper = new JacksonMcpJsonMapper(json);
    this.runTools = new RunTools(sandbox, mapper, json, calls, executor, timer, maxCodeChars, progressAfter, runListener);
    this.specifications = runTools.specifications(exposeTools);
  }

  /**
   * A builder for a server over {@code sandbox}.
   *
   * @since 0.1.0
   */
  public static Builder builder(PolyglotSandbox sandbox) {
    return new Builder(sandbox);
  }

  /**
   * The tools this server lists, in order: the run tools, then the exposed host tools.
   *
   * @since 0.1.0
   */
  public List<McpSchema.Tool> tools() {
    return specifications.stream().map(AsyncToolSpecification::tool).toList();
  }

  /**
   * Serves one client over stdio until {@code in} ends, then cancels the runs still going, waits up to
   * 10 s for them to end, and returns. Only protocol messages are written to {@code out}; keep every log
   * off it (the command line sends them to stderr).
   *
   * @throws InterruptedException if the calling thread is interrupted while serving; the runs are cancelled
   * @since 0.1.0
   */
  public void serveStdio(InputStream in, OutputStream out) throws InterruptedException {
    Objects.requireNonNull(in, "in");
    Objects.requireNonNull(out, "out");
    Inbound inbound = new Inbound(mapper, json, calls, true);
    OutputStream plain = new StdioOut(out, json);
    StdioGuard guard = new StdioGuard(in, plain, json, inbound, maxMessageBytes);
    // The SDK reads what the guard forwards: at most maxMessageBytes, plus the call tag.
    StdioServerTransportProvider provider = new StdioServerTransportProvider(mapper, guard, plain, maxMessageBytes + 4096);
    McpAsyncServer server = server(provider);
    try {
      guard.eof().await();
    } finally {
      stop(STDIO);
      server.close();
    }
  }

  /**
   * Starts serving Streamable HTTP at {@code http://host:port/mcp} and returns at once; {@code port} 0
   * picks a free port. A loopback {@code host} also gets the SDK's DNS-rebinding check (the Host header
   * must name a loopback address, the Origin, if any, a loopback origin).
   *
   * @throws IllegalStateException if the port cannot be bound, naming the address
   * @since 0.1.0
   */
  public HttpEndpoint serveHttp(String host, int port) {
    return HttpEndpoint.start(this, host, port);
  }

  McpAsyncServer server(McpServerTransportProviderBase provider) {
    McpServer.AsyncSpecification<?> spec = provider instanceof StdioServerTransportProvider stdio ? McpServer.async(stdio)
        : McpServer.async((io.modelcontextprotocol.spec.McpStreamableServerTransportProvider) provider);
    return spec.serverInfo(name, version)
        .instructions("Runs untrusted JavaScript and Python in a deny-by-default sandbox (polyglot-sandbox): each"
            + " call is a fresh run with only the files, host tools and limits its tool description lists.")
        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).logging().build())
        .jsonMapper(mapper)
        .validateToolInputs(false)   // checked by RunTools and the library, with messages that name the value
        .requestTimeout(Duration.ofSeconds(30))
        .tools(specifications)
        .build();
  }

  Inbound inbound() {
    return new Inbound(mapper, json, calls);
  }

  ObjectMapper json() {
    return json;
  }

  McpJsonMapper mapper() {
    return mapper;
  }

  /** What {@code GET /metrics} answers over HTTP, or null for no such page. */
  java.util.function.Supplier<String> metricsPage() {
    return metricsPage;
  }

  int maxMessageBytes() {
    return maxMessageBytes;
  }

  /** Cancels the calls of a connection that closed and waits up to 10 s for them to end. */
  void stop(String connection) throws InterruptedException {
    calls.cancelConnection(connection);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (hasCalls(connection) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }

  private boolean hasCalls(String connection) {
    return calls.countConnection(connection) > 0;
  }

  /**
   * Builds a {@link SandboxMcpServer}.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    /**
     * The longest {@code code} accepted by default: 1 Mi characters.
     *
     * @since 0.1.0
     */
    public static final int DEFAULT_MAX_CODE_CHARS = 1 << 20;
    /**
     * The longest message read by default: 64 MiB (a longer stdio line is skipped and answered with an error).
     *
     * @since 0.1.0
     */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 64 << 20;

    private final PolyglotSandbox sandbox;
    private boolean exposeTools;
    private int maxCodeChars = DEFAULT_MAX_CODE_CHARS;
    private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
    private Duration progressAfter = Duration.ofSeconds(1);
    private BiConsumer<Script, ExecutionResult> runListener = (s, r) -> {};
    private java.util.function.Supplier<String> metricsPage;
    private String name = "polyglot-sandbox";
    private String version = "0";

    private Builder(PolyglotSandbox sandbox) {
      this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
    }

    /**
     * Also lists each host tool the policy allows as an MCP tool, named with {@code .} replaced by
     * {@code _} ({@code kv.get} becomes {@code kv_get}); its calls go through a sandboxed run, so they are
     * validated, counted and audited as guest calls are. Off by default.
     *
     * @since 0.1.0
     */
    public Builder exposeTools(boolean expose) {
      this.exposeTools = expose;
      return this;
    }

    /**
     * The longest {@code code} a call may send (default 1 Mi characters); a longer one is answered with
     * {@code isError} naming both lengths.
     *
     * @throws IllegalArgumentException if {@code chars} is not positive
     * @since 0.1.0
     */
    public Builder maxCodeChars(int chars) {
      if (chars <= 0) {
        throw new IllegalArgumentException("maxCodeChars (" + chars + ") must be positive");
      }
      this.maxCodeChars = chars;
      return this;
    }

    /**
     * The longest message read (default 64 MiB); on stdio a longer line is skipped as it streams in and
     * answered with a JSON-RPC error.
     *
     * @throws IllegalArgumentException if {@code bytes} is below 64 KiB
     * @since 0.1.0
     */
    public Builder maxMessageBytes(int bytes) {
      if (bytes < (64 << 10)) {
        throw new IllegalArgumentException("maxMessageBytes (" + bytes + ") must be at least 65536");
      }
      this.maxMessageBytes = bytes;
      return this;
    }

    /**
     * How often a call that sent a progress token hears about its run (default 1 s): the first
     * notification after that long, then one each period.
     *
     * @throws IllegalArgumentException if {@code period} is below 10 ms
     * @since 0.1.0
     */
    public Builder progressAfter(Duration period) {
      if (period.toMillis() < 10) {
        throw new IllegalArgumentException("progressAfter (" + period + ") must be at least 10 ms");
      }
      this.progressAfter = period;
      return this;
    }

    /**
     * Called on the call's thread with every run that ended (an audit log's run line, metrics).
     *
     * @since 0.1.0
     */
    public Builder runListener(BiConsumer<Script, ExecutionResult> listener) {
      this.runListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Over HTTP ({@link SandboxMcpServer#serveHttp}), also answers {@code GET /metrics} on the same port with
     * this text as {@code text/plain; version=0.0.4}, the Prometheus exposition format: such as a Micrometer
     * {@code PrometheusMeterRegistry}'s {@code scrape()}. Called on an HTTP thread for each request. Default:
     * no {@code /metrics} page (404). Not used on stdio.
     *
     * @since 0.1.0
     */
    public Builder metricsPage(java.util.function.Supplier<String> text) {
      this.metricsPage = Objects.requireNonNull(text, "text");
      return this;
    }

    /**
     * The name and version the server reports in {@code initialize}.
     *
     * @since 0.1.0
     */
    public Builder serverInfo(String name, String version) {
      this.name = Objects.requireNonNull(name, "name");
      this.version = Objects.requireNonNull(version, "version");
      return this;
    }

    /**
     * Builds the server.
     *
     * @throws IllegalArgumentException if two exposed host tools, or a host tool and a run tool, would
     *     have the same MCP name
     * @since 0.1.0
     */
    public SandboxMcpServer build() {
      return new SandboxMcpServer(this);
    }
  }

  private static ThreadFactory daemons(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
