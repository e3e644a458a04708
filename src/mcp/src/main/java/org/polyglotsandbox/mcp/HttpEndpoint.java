package org.polyglotsandbox.mcp;

import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import org.eclipse.jetty.ee11.servlet.FilterHolder;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A running Streamable HTTP endpoint at {@code /mcp}: embedded Jetty 12 with the SDK's
 * {@code HttpServletStreamableServerTransportProvider}, behind a filter that passes every POSTed message
 * through the same check as stdio (tags {@code tools/call}, turns {@code notifications/cancelled} into a
 * cancelled run) and cancels a session's runs when the client deletes the session. Plain HTTP: put it
 * behind a TLS-terminating, authenticating proxy to serve anything but loopback ({@code docs/mcp-server.md}, "Over HTTP").
 *
 * @since 0.1.0
 */
public final class HttpEndpoint implements AutoCloseable {
  private static final String SESSION_HEADER = "Mcp-Session-Id";

  private final Server jetty;
  private final McpAsyncServer server;
  private final URI uri;

  private HttpEndpoint(Server jetty, McpAsyncServer server, URI uri) {
    this.jetty = jetty;
    this.server = server;
    this.uri = uri;
  }

  static HttpEndpoint start(SandboxMcpServer owner, String host, int port) {
    InetAddress address;
    try {
      address = InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("--http: host '" + host + "' is not an address this machine knows");
    }
    HttpServletStreamableServerTransportProvider.Builder b = HttpServletStreamableServerTransportProvider.builder()
        .jsonMapper(owner.mapper())
        .mcpEndpoint("/mcp")
        .maxRequestSize(owner.maxMessageBytes());
    if (address.isLoopbackAddress()) {
      b.securityValidator(DefaultServerTransportSecurityValidator.builder()
          .allowedHosts(List.of("localhost:*", "127.0.0.1:*", "[::1]:*", "localhost", "127.0.0.1", "[::1]"))
          .allowedOrigins(List.of("http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"))
          .build());
    }
    HttpServletStreamableServerTransportProvider provider = b.build();
    McpAsyncServer server = owner.server(provider);

    QueuedThreadPool threads = new QueuedThreadPool(200, 4, 60_000);
    threads.setName("mcp-http");
    threads.setDaemon(true);
    Server jetty = new Server(threads);
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost(address.getHostAddress());
    connector.setPort(port);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    ServletHolder servlet = new ServletHolder("mcp", provider);
    servlet.setAsyncSupported(true);
    context.addServlet(servlet, "/mcp");
    FilterHolder filter = new FilterHolder(new MessageFilter(owner, owner.inbound()));
    filter.setAsyncSupported(true);
    context.addFilter(filter, "/mcp", EnumSet.of(DispatcherType.REQUEST));
    if (owner.metricsPage() != null) {
      context.addServlet(new ServletHolder("metrics", new MetricsServlet(owner.metricsPage())), "/metrics");
    }
    jetty.setHandler(context);
    jetty.setStopTimeout(5_000);
    try {
      jetty.start();
    } catch (Exception e) {
      server.close();
      try {
        jetty.stop();
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw new IllegalStateException("cannot serve HTTP on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    String h = address.getHostAddress().contains(":") ? "[" + address.getHostAddress() + "]" : address.getHostAddress();
    return new HttpEndpoint(jetty, server, URI.create("http://" + h + ":" + connector.getLocalPort() + "/mcp"));
  }

  /**
   * The endpoint's address, such as {@code http://127.0.0.1:8080/mcp}.
   *
   * @since 0.1.0
   */
  public URI uri() {
    return uri;
  }

  /**
   * Blocks until the endpoint is closed.
   *
   * @since 0.1.0
   */
  public void await() throws InterruptedException {
    jetty.join();
  }

  /**
   * Stops serving: the SDK closes its sessions, Jetty stops within 5 s. Idempotent.
   *
   * @since 0.1.0
   */
  @Override
  public void close() {
    server.close();
    try {
      jetty.stop();
    } catch (Exception e) {
      throw new IllegalStateException("the HTTP server did not stop cleanly: " + e.getMessage(), e);
    }
  }

  /** {@code GET /metrics}: the embedder's text in the Prometheus exposition format. */
  private static final class MetricsServlet extends jakarta.servlet.http.HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient java.util.function.Supplier<String> page;

    MetricsServlet(java.util.function.Supplier<String> page) {
      this.page = page;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
      byte[] body = page.get().getBytes(java.nio.charset.StandardCharsets.UTF_8);
      response.setStatus(HttpServletResponse.SC_OK);
      response.setContentType("text/plain; version=0.0.4; charset=utf-8");
      response.setContentLength(body.length);
      response.getOutputStream().write(body);
    }
  }

  /** Checks each POSTed message before the SDK's servlet sees it; see {@link Inbound}. */
  private static final class MessageFilter extends HttpFilter {
    private static final long serialVersionUID = 1L;
    private final transient SandboxMcpServer owner;
    private final transient Inbound inbound;

    MessageFilter(SandboxMcpServer owner, Inbound inbound) {
      this.owner = owner;
      this.inbound = inbound;
    }

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
        throws IOException, ServletException {
      String session = request.getHeader(SESSION_HEADER);
      String connection = "http:" + (session == null ? "" : session);
      if ("DELETE".equals(request.getMethod()) && session != null) {
        try {
          owner.stop(connection);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (!"POST".equals(request.getMethod())) {
        PlainErrors plain = new PlainErrors(response, owner.json(), null);
        chain.doFilter(request, plain);
        plain.finish();
        return;
      }
      long declared = request.getContentLengthLong();
      if (declared > owner.maxMessageBytes()) {
        reply(response, HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE, error(McpSchema.ErrorCodes.INVALID_REQUEST,
            "message of " + declared + " bytes refused: at most " + owner.maxMessageBytes() + " bytes per message"));
        return;
      }
      byte[] body = request.getInputStream().readNBytes(owner.maxMessageBytes() + 1);
      if (body.length > owner.maxMessageBytes()) {
        reply(response, HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE, error(McpSchema.ErrorCodes.INVALID_REQUEST,
            "message of more than " + owner.maxMessageBytes() + " bytes refused"));
        return;
      }
      String text = new String(body, StandardCharsets.UTF_8);
      if (text.isBlank()) {
        reply(response, HttpServletResponse.SC_BAD_REQUEST, error(McpSchema.ErrorCodes.INVALID_REQUEST,
            "empty request body: POST one JSON-RPC message"));
        return;
      }
      Inbound.Verdict v = inbound.inspect(text, connection);
      if (v instanceof Inbound.Reply r) {
        reply(response, r.isError() ? HttpServletResponse.SC_BAD_REQUEST : HttpServletResponse.SC_OK, r.response());
      } else if (v instanceof Inbound.Drop) {
        response.setStatus(HttpServletResponse.SC_ACCEPTED);
      } else {
        Inbound.Forward f = (Inbound.Forward) v;
        if (session == null && !McpSchema.METHOD_INITIALIZE.equals(f.method())) {
          // The SDK answers this with its exception, stack trace and all, as the body.
          reply(response, HttpServletResponse.SC_BAD_REQUEST, Inbound.error(owner.json(), f.id(),
              McpSchema.ErrorCodes.INVALID_REQUEST, Inbound.NOT_INITIALIZED + " (this "
                  + (f.method() == null ? "response" : f.method() + (f.isRequest() ? " request" : " notification"))
                  + " has no " + SESSION_HEADER + " header; every message after initialize carries the one its"
                  + " response gave)"));
          return;
        }
        byte[] forwarded = f.text().getBytes(StandardCharsets.UTF_8);
        PlainErrors plain = new PlainErrors(response, owner.json(), f.id());
        chain.doFilter(new Body(request, forwarded), plain);
        plain.finish();
      }
    }

    private String error(int code, String message) {
      return Inbound.error(owner.json(), null, code, message);
    }

    private static void reply(HttpServletResponse response, int status, String json) throws IOException {
      response.setStatus(status);
      response.setContentType("application/json");
      response.setCharacterEncoding("UTF-8");
      response.getWriter().write(json);
    }
  }

  /**
   * The response the SDK's servlet writes to, with its error bodies made JSON-RPC errors in plain words.
   * The SDK writes an error as its {@code McpError} exception serialised whole (class names, stack trace)
   * and sends some as Jetty's HTML error page; here each becomes {@code {"jsonrpc": "2.0", "id": ...,
   * "error": {"code", "message"}}} with the same status, its message kept only if it names no class.
   * Success bodies (JSON or an event stream) pass through untouched.
   */
  private static final class PlainErrors extends HttpServletResponseWrapper {
    private final ObjectMapper json;
    private final JsonNode id;
    private ByteArrayOutputStream held;
    private PrintWriter heldWriter;

    PlainErrors(HttpServletResponse response, ObjectMapper json, JsonNode id) {
      super(response);
      this.json = json;
      this.id = id;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
      if (getStatus() < 400) {
        return super.getWriter();
      }
      if (heldWriter == null) {
        held = new ByteArrayOutputStream();
        heldWriter = new PrintWriter(new OutputStreamWriter(held, StandardCharsets.UTF_8));
      }
      return heldWriter;
    }

    @Override
    public void sendError(int status, String message) throws IOException {
      write(status, McpSchema.ErrorCodes.INVALID_REQUEST, message);
    }

    @Override
    public void sendError(int status) throws IOException {
      write(status, McpSchema.ErrorCodes.INVALID_REQUEST, null);
    }

    /** Writes the held error body, rewritten; call when the servlet has returned. */
    void finish() throws IOException {
      if (heldWriter == null) {
        return;
      }
      heldWriter.flush();
      int code = McpSchema.ErrorCodes.INTERNAL_ERROR;
      String message = null;
      try {
        JsonNode body = json.readTree(held.toByteArray());
        JsonNode error = body == null ? null : body.has("jsonRpcError") ? body.get("jsonRpcError") : body.get("error");
        if (error != null && error.isObject()) {
          code = error.path("code").isIntegralNumber() ? error.get("code").asInt() : code;
          message = error.path("message").isTextual() ? error.get("message").asText() : null;
        }
      } catch (IOException e) {
        // not JSON: the generic message below
      }
      heldWriter = null;
      if (message != null && Text.isMappingError(message)) {
        code = McpSchema.ErrorCodes.INVALID_PARAMS;
      }
      write(getStatus(), code, message);
    }

    private void write(int status, int code, String message) throws IOException {
      String plain = message == null || message.isBlank() ? "the server could not handle this message (HTTP " + status + ")"
          : Text.namesAClass(message) ? Text.plainError(message) : Text.oneLine(message, 300);
      HttpServletResponse response = (HttpServletResponse) getResponse();
      response.resetBuffer();
      response.setStatus(status);
      response.setContentType("application/json");
      response.setCharacterEncoding("UTF-8");
      PrintWriter out = response.getWriter();
      out.write(Inbound.error(json, id, code, plain));
      out.flush();
    }
  }

  /** A request whose body is {@code bytes}: the message as the filter forwards it. */
  private static final class Body extends HttpServletRequestWrapper {
    private final byte[] bytes;

    Body(HttpServletRequest request, byte[] bytes) {
      super(request);
      this.bytes = bytes;
    }

    @Override
    public int getContentLength() {
      return bytes.length;
    }

    @Override
    public long getContentLengthLong() {
      return bytes.length;
    }

    @Override
    public ServletInputStream getInputStream() {
      InputStream in = new ByteArrayInputStream(bytes);
      return new ServletInputStream() {
        @Override
        public int read() throws IOException {
          return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          return in.read(b, off, len);
        }

        @Override
        public boolean isFinished() {
          try {
            return in.available() == 0;
          } catch (IOException e) {
            return true;
          }
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new UnsupportedOperationException("the body is already read");
        }
      };
    }

    @Override
    public BufferedReader getReader() {
      return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(bytes), StandardCharsets.UTF_8));
    }
  }
}
