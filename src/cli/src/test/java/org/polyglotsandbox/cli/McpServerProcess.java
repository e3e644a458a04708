package org.polyglotsandbox.cli;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import reactor.core.publisher.Mono;

/**
 * {@code bin/sandbox mcp} started as a process by the MCP Java SDK's own client over stdio, as an agent
 * would start it. Uses the build this test run already made ({@code SANDBOX_SKIP_BUILD=1}). The client's
 * transport is the SDK's {@code StdioClientTransport}, seen through a thin wrapper that remembers the
 * JSON-RPC id of each {@code tools/call} it sends, so a test can cancel one by id (the SDK's client has no
 * cancellation of its own).
 */
final class McpServerProcess implements AutoCloseable {
  static final Path SCRIPT = Path.of("bin/sandbox").toAbsolutePath();
  static final McpJsonMapper MAPPER = new JacksonMcpJsonMapper(new com.fasterxml.jackson.databind.ObjectMapper());

  private static final Pattern SERVING =
      Pattern.compile("serving MCP \\(Streamable HTTP\\) at (http://127\\.0\\.0\\.1:\\d+)/mcp");

  /**
   * Starts {@code bin/sandbox mcp ARGS} (with {@code --http} among them) as it is built, its standard error to
   * {@code stderr} and its standard output to {@code stdout}, for {@link #httpBase} to read where it listens.
   */
  static Process startHttp(Path stderr, Path stdout, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(SCRIPT.toString(), "mcp"));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(stderr.toFile()).redirectOutput(stdout.toFile());
    pb.environment().put("SANDBOX_SKIP_BUILD", "1");
    return pb.start();
  }

  /**
   * The base URL (without {@code /mcp}) {@code bin/sandbox mcp --http :0} says on {@code stderr} it serves at,
   * waiting for it up to {@code within} while {@code server} lives; null if it never says.
   */
  static String httpBase(Process server, Path stderr, Duration within) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline && server.isAlive()) {
      Matcher m = SERVING.matcher(Files.readString(stderr));
      if (m.find()) {
        return m.group(1);
      }
      Thread.sleep(100);
    }
    Matcher m = SERVING.matcher(Files.readString(stderr));
    return m.find() ? m.group(1) : null;
  }

  final McpSyncClient client;
  final List<String> stderr = java.util.Collections.synchronizedList(new ArrayList<>());
  final List<McpSchema.ProgressNotification> progress = java.util.Collections.synchronizedList(new ArrayList<>());
  final List<McpSchema.LoggingMessageNotification> logs = java.util.Collections.synchronizedList(new ArrayList<>());
  private final Recording transport;

  McpServerProcess(String... args) {
    this(Map.of(), args);
  }

  /** With {@code env} added to the server's environment. */
  McpServerProcess(Map<String, String> env, String... args) {
    List<String> all = new ArrayList<>(List.of("mcp"));
    all.addAll(List.of(args));
    ServerParameters.Builder b = ServerParameters.builder(SCRIPT.toString()).args(all)
        .addEnvVar("SANDBOX_SKIP_BUILD", "1")
        .addEnvVar("PATH", System.getenv("PATH"))
        .addEnvVar("HOME", System.getProperty("user.home"));
    env.forEach(b::addEnvVar);
    ServerParameters params = b.build();
    StdioClientTransport stdio = new StdioClientTransport(params, MAPPER);
    stdio.setStdErrorHandler(stderr::add);
    transport = new Recording(stdio);
    client = McpClient.sync(transport)
        .requestTimeout(Duration.ofSeconds(90))
        .initializationTimeout(Duration.ofSeconds(180))
        .progressConsumer(progress::add)
        .loggingConsumer(logs::add)
        .build();
    client.initialize();
    stderrAtInitialize = List.copyOf(stderr);
  }

  /** What the server had written to stderr when its answer to {@code initialize} arrived. */
  final List<String> stderrAtInitialize;

  /**
   * Waits until the server says on stderr that its sandbox has warmed up (it answers {@code initialize}
   * before that, and a call made earlier waits for the warm-up before its run starts), at most {@code within}.
   */
  void awaitReady(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (stderr.stream().noneMatch(l -> l.contains("sandbox mcp: ready")) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    if (stderr.stream().noneMatch(l -> l.contains("sandbox mcp: ready"))) {
      throw new AssertionError("the server did not say it was ready within " + within + "; stderr: " + stderr);
    }
  }

  /** Calls a tool with these arguments. */
  McpSchema.CallToolResult call(String tool, Map<String, Object> arguments) {
    return client.callTool(McpSchema.CallToolRequest.builder(tool).arguments(arguments).build());
  }

  /** The JSON-RPC id of the last {@code tools/call} sent, or null. */
  Object lastCallId() {
    return transport.lastCallId;
  }

  /** Sends {@code notifications/cancelled} for request {@code id}, as a client that gave up would. */
  void cancel(Object id) {
    transport.sendMessage(new McpSchema.JSONRPCNotification("notifications/cancelled",
        Map.of("requestId", id, "reason", "the test gave up"))).block(Duration.ofSeconds(10));
  }

  @Override
  public void close() {
    client.closeGracefully();
  }

  /** The SDK's stdio transport, remembering the ids of the tool calls it sends. */
  private static final class Recording implements McpClientTransport {
    private final StdioClientTransport delegate;
    volatile Object lastCallId;

    Recording(StdioClientTransport delegate) {
      this.delegate = delegate;
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
      return delegate.connect(handler);
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
      if (message instanceof McpSchema.JSONRPCRequest r && McpSchema.METHOD_TOOLS_CALL.equals(r.method())) {
        lastCallId = r.id();
      }
      return delegate.sendMessage(message);
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
      delegate.setExceptionHandler(handler);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return delegate.closeGracefully();
    }

    @Override
    public List<String> protocolVersions() {
      return delegate.protocolVersions();
    }

    @Override
    public void close() {
      delegate.close();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
      return delegate.unmarshalFrom(data, typeRef);
    }
  }
}
