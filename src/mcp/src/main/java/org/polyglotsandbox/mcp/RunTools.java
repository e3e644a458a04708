package org.polyglotsandbox.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.ExecutionResult.OutputChunk;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.Tool;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * The server's MCP tools: {@code run_javascript} and {@code run_python} for the languages the policy
 * allows and, if asked, one tool per host tool. A call becomes one {@link PolyglotSandbox#run} on a
 * thread of its own; its result becomes an MCP result whose {@code isError} is true for every outcome but
 * OK. Bad arguments, a full sandbox and a server shutting down are answers with {@code isError} too,
 * each message naming the value at fault, and for a run tool with the structured content of outcome
 * {@code NOT_RUN}; only an unknown tool is a protocol error (the SDK's).
 */
final class RunTools {
  /** The most JSON Pointers {@code nonFiniteNumbers} lists. */
  static final int MAX_NON_FINITE_POINTERS = 100;

  /**
   * The {@code outputSchema} of the run tools: what {@code structuredContent} holds. Every answer of a run
   * tool carries it, a call that never ran too ({@code NOT_RUN}), so that a client that validates
   * structured content against this schema always finds some. {@code value} is any JSON value, spelled
   * as one branch per JSON type so that schema checkers see a declared type, not a bare {@code {}}.
   */
  static final String OUTPUT_SCHEMA = """
      {"type": "object",
       "properties": {
         "outcome": {"type": "string", "enum": ["OK", "GUEST_ERROR", "SYNTAX_ERROR", "LIMIT_EXCEEDED",
             "OUTPUT_REJECTED", "CANCELLED", "INTERNAL_ERROR", "NOT_RUN"],
             "description": "How the run ended; NOT_RUN if nothing ran (bad arguments, or a busy, closed or stopping sandbox: error says why)"},
         "value": {"anyOf": [{"type": "object"}, {"type": "array"}, {"type": "string"}, {"type": "number"},
             {"type": "boolean"}, {"type": "null"}],
             "description": "The value of the program's last expression as JSON (null if none or not OK). NaN, Infinity and -Infinity, numbers JSON cannot carry, are the strings \\"NaN\\", \\"Infinity\\" and \\"-Infinity\\" in their place; nonFiniteNumbers says where."},
         "nonFiniteNumbers": {"type": "array", "items": {"type": "string"}, "maxItems": %d,
             "description": "Present only if the value held NaN or an infinity: JSON Pointers (RFC 6901) into value to each such number, now a string (the first %d if there are more)."},
         "stdout": {"type": "string", "description": "What the program wrote to stdout, capped and sanitised"},
         "stderr": {"type": "string", "description": "What the program wrote to stderr, capped and sanitised"},
         "limit": {"type": "string", "description": "The limit that stopped the run, if one did"},
         "error": {"type": "string", "description": "The guest's error message if the run failed; for NOT_RUN, why nothing ran"}},
       "required": ["outcome", "value", "stdout", "stderr"]}""".formatted(MAX_NON_FINITE_POINTERS, MAX_NON_FINITE_POINTERS);

  private static final String INPUT_SCHEMA = """
      {"type": "object",
       "properties": {
         "code": {"type": "string", "description": "The program. Its last expression is the value returned."},
         "inputs": {"type": "object", "description": "Global variables to bind before the program runs: names to plain JSON values."}},
       "required": ["code"],
       "additionalProperties": false}""";


  private final PolyglotSandbox sandbox;
  private final McpJsonMapper mapper;
  private final ObjectMapper json;
  private final Calls calls;
  private final ExecutorService executor;
  private final ScheduledExecutorService timer;
  private final int maxCodeChars;
  private final Duration progressAfter;
  /** How long an answer waits for the notifications of its run's output to be handed over. */
  private static final Duration STREAM_CATCH_UP = Duration.ofMillis(500);
  /** How often a run's gathered output is streamed. */
  static final Duration STREAM_PERIOD = Duration.ofMillis(100);
  /** The most characters of one stream one notification carries. */
  static final int MAX_NOTIFICATION_CHARS = 8192;
  /** The most output notifications one run sends (the notice of what was not streamed aside). */
  static final int MAX_NOTIFICATIONS = 1000;
  /** The most output characters streamed for one run. */
  static final int MAX_STREAMED_CHARS = 1 << 20;
  private final BiConsumer<Script, ExecutionResult> runListener;

  RunTools(PolyglotSandbox sandbox, McpJsonMapper mapper, ObjectMapper json, Calls calls, ExecutorService executor,
      ScheduledExecutorService timer, int maxCodeChars, Duration progressAfter,
      BiConsumer<Script, ExecutionResult> runListener) {
    this.sandbox = sandbox;
    this.mapper = mapper;
    this.json = json;
    this.calls = calls;
    this.executor = executor;
    this.timer = timer;
    this.maxCodeChars = maxCodeChars;
    this.progressAfter = progressAfter;
    this.runListener = runListener;
  }

  /** The MCP name of a run tool: {@code run_javascript}, {@code run_python}. */
  static String runToolName(Language language) {
    return language == Language.JAVASCRIPT ? "run_javascript" : "run_" + language.id();
  }

  /**
   * The MCP name of a host tool: its name with each {@code .} replaced by {@code _} ({@code kv.get} is
   * {@code kv_get}); library tool names are letters, digits, underscores and dots, at most 64 characters,
   * so the result always matches MCP's {@code ^[a-zA-Z0-9_-]{1,64}$}.
   */
  static String hostToolName(String toolName) {
    return toolName.replace('.', '_');
  }

  /** The specifications to register: run tools first, then host tools if {@code exposeTools}. */
  List<AsyncToolSpecification> specifications(boolean exposeTools) {
    List<AsyncToolSpecification> out = new ArrayList<>();
    Map<String, String> taken = new LinkedHashMap<>();
    for (Language language : List.of(Language.JAVASCRIPT, Language.PYTHON)) {
      if (!sandbox.policy().allows(language)) {
        continue;
      }
      String name = runToolName(language);
      taken.put(name, "the " + language.id() + " run tool");
      McpSchema.Tool tool = McpSchema.Tool.builder(name)
          .title("Run " + (language == Language.JAVASCRIPT ? "JavaScript" : "Python") + " in a sandbox")
          .description(sandbox.describeForModel(language))
          .inputSchema(mapper, INPUT_SCHEMA)
          .outputSchema(mapper, OUTPUT_SCHEMA)
          .build();
      out.add(AsyncToolSpecification.builder().tool(tool)
          .callHandler((exchange, request) -> run(language, exchange, request)).build());
    }
    if (exposeTools) {
      for (Tool t : sandbox.tools()) {
        String name = hostToolName(t.name());
        String clash = taken.putIfAbsent(name, "host tool " + t.name());
        if (clash != null) {
          throw new IllegalArgumentException("host tool " + t.name() + " would be MCP tool " + name + ", the name of "
              + clash + "; rename one of them");
        }
        Map<String, Object> schema;
        try {
          schema = json.readValue(t.parameters(), new TypeReference<Map<String, Object>>() {});
        } catch (JsonProcessingException e) {
          throw new IllegalStateException("host tool " + t.name() + ": its parameter schema is not a JSON object", e);
        }
        McpSchema.Tool tool = McpSchema.Tool.builder(name)
            .title("Host tool " + t.name())
            .description((t.description().isBlank() ? "" : t.description().strip() + " ")
                + "(The sandbox's host tool " + t.name() + ", called through a sandboxed run: its arguments are"
                + " validated, its calls counted and audited as guest code's are. Returns the tool's result as JSON.)")
            .inputSchema(schema)
            .build();
        out.add(AsyncToolSpecification.builder().tool(tool)
            .callHandler((exchange, request) -> callHostTool(t, request)).build());
      }
    }
    return out;
  }

  private Mono<CallToolResult> run(Language language, McpAsyncServerExchange exchange, CallToolRequest request) {
    String tool = runToolName(language);
    Script script;
    try {
      script = Script.fromToolArguments(language, request.arguments(), maxCodeChars)
          .named(language == Language.JAVASCRIPT ? "main.js" : "main.py");
    } catch (IllegalArgumentException e) {
      return Mono.just(notRun(tool + ": " + e.getMessage()));
    }
    Object progressToken = request.progressToken();
    String key = request.meta() != null && request.meta().get(Inbound.CALL_KEY) instanceof String k ? k : null;
    Script labelled = traced(key == null ? script : script.withLabel(Calls.label(key)), tool, request.meta());
    return Mono.create(sink -> submit(sink, key, tool, RunTools::notRun, call -> {
      StreamedOutput streamed = new StreamedOutput(exchange);
      Script s = labelled.withOutputListener(streamed);
      Progress progress = progressToken == null ? null : new Progress(exchange, progressToken);
      ExecutionResult r;
      try {
        r = sandbox.run(s);
      } catch (RuntimeException | Error e) {
        streamed.abandon();
        throw e;
      } finally {
        call.finish();
        if (progress != null) {
          progress.stop();
        }
      }
      streamed.finish(r, STREAM_CATCH_UP);
      runListener.accept(s, r);
      return runResult(r);
    }));
  }

  /**
   * A run's stdout and stderr as MCP logging notifications ({@code notifications/message}, level info,
   * logger {@code stdout} or {@code stderr}) while it goes, sanitised and within the output cap by the
   * sandbox, and bounded here so that protocol messages never queue behind a flood: the chunks of each
   * stream are gathered and sent at most every {@link #STREAM_PERIOD}, at most {@value
   * #MAX_NOTIFICATION_CHARS} characters a time, at most {@value #MAX_NOTIFICATIONS} notifications and
   * {@value #MAX_STREAMED_CHARS} characters a run. What does not fit is not streamed: it is counted, and
   * the run's last notification (level warning, logger {@code sandbox}) says how many characters were
   * not streamed. The result always holds the whole output.
   */
  private final class StreamedOutput implements Consumer<OutputChunk> {
    private final McpAsyncServerExchange exchange;
    private final StringBuilder stdout = new StringBuilder();
    private final StringBuilder stderr = new StringBuilder();
    /** Held while notifications are sent, so that none follows the last one (and the answer). */
    private final Object sending = new Object();
    private final ScheduledFuture<?> flusher;
    /** Whether a flush is queued or under way on a call thread (the timer's thread never sends). */
    private final java.util.concurrent.atomic.AtomicBoolean flushing = new java.util.concurrent.atomic.AtomicBoolean();
    // Guarded by this:
    private long received;
    private long streamed;
    private int notifications;
    private boolean closed;

    StreamedOutput(McpAsyncServerExchange exchange) {
      this.exchange = exchange;
      long period = STREAM_PERIOD.toMillis();
      // A send may block (an HTTP client that does not read): it happens on a call thread, one at a time.
      this.flusher = timer.scheduleWithFixedDelay(() -> {
        if (flushing.compareAndSet(false, true)) {
          try {
            executor.execute(() -> {
              try {
                flush();
              } finally {
                flushing.set(false);
              }
            });
          } catch (RejectedExecutionException e) {
            flushing.set(false);   // the server is stopping
          }
        }
      }, period, period, TimeUnit.MILLISECONDS);
    }

    /** Stops streaming a run that never ran. */
    void abandon() {
      flusher.cancel(false);
      synchronized (this) {
        closed = true;
      }
    }

    @Override
    public synchronized void accept(OutputChunk chunk) {
      String text = chunk.text();
      received += text.length();
      notifyAll();
      if (closed) {
        return;
      }
      StringBuilder pending = chunk.stream() == OutputChunk.Stream.STDOUT ? stdout : stderr;
      long budget = MAX_STREAMED_CHARS - streamed - stdout.length() - stderr.length();
      int room = (int) Math.max(0, Math.min(MAX_NOTIFICATION_CHARS - pending.length(), budget));
      if (notifications >= MAX_NOTIFICATIONS) {
        room = 0;
      }
      pending.append(text, 0, Math.min(room, text.length()));   // the rest is counted in finish()
    }

    /** Sends what each stream gathered since the last time, one notification per stream. */
    private void flush() {
      sendGathered(null);
    }

    /**
     * Sends what each stream gathered since the last time, one notification per stream; with {@code end},
     * the result of the run, also closes the stream and sends the notice of what was not streamed, if
     * anything was not. Does nothing once the stream is closed.
     */
    private void sendGathered(ExecutionResult end) {
      synchronized (sending) {
        List<McpSchema.LoggingMessageNotification> batch = new ArrayList<>(3);
        synchronized (this) {
          if (closed) {
            return;
          }
          take(stdout, "stdout", batch);
          take(stderr, "stderr", batch);
          if (end != null) {
            closed = true;
            // What the result holds and no notification carried (chunks the listener missed included).
            long missed = (long) end.stdout().length() + end.stderr().length() - streamed;
            if (missed > 0) {
              batch.add(McpSchema.LoggingMessageNotification.builder(McpSchema.LoggingLevel.WARNING, missed
                  + " characters of output were not streamed (at most " + MAX_NOTIFICATION_CHARS + " per stream"
                  + " every " + STREAM_PERIOD.toMillis() + " ms and " + MAX_STREAMED_CHARS + " per run are); the"
                  + " result holds the whole output").logger("sandbox").build());
            }
          }
        }
        batch.forEach(this::send);
      }
    }

    /** Guarded by this. */
    private void take(StringBuilder pending, String logger, List<McpSchema.LoggingMessageNotification> batch) {
      if (pending.isEmpty()) {
        return;
      }
      if (notifications < MAX_NOTIFICATIONS) {
        batch.add(McpSchema.LoggingMessageNotification.builder(McpSchema.LoggingLevel.INFO, pending.toString())
            .logger(logger).build());
        notifications++;
        streamed += pending.length();
      }
      pending.setLength(0);
    }

    private void send(McpSchema.LoggingMessageNotification n) {
      exchange.loggingNotification(n).subscribe(v -> {}, e -> {});
    }

    /**
     * Ends the stream of {@code r}'s run: waits, at most {@code wait}, until the run's output has been
     * handed over (chunks the run's listener missed are not waited for), sends what is gathered, then the
     * notice of what was not streamed, if anything was not. Nothing is sent after this returns.
     */
    void finish(ExecutionResult r, Duration wait) {
      synchronized (this) {
        long expected = r.undeliveredOutputChunks() > 0 ? 0 : r.stdout().length() + r.stderr().length();
        long giveUp = System.nanoTime() + wait.toNanos();
        try {
          while (received < expected) {
            long left = giveUp - System.nanoTime();
            if (left <= 0) {
              break;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      flusher.cancel(false);
      sendGathered(r);
    }
  }

  /** A W3C {@code traceparent}: version, trace id, parent id, flags, in lower-case hex. */
  private static final java.util.regex.Pattern TRACEPARENT =
      java.util.regex.Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
  /** A W3C {@code tracestate}: printable ASCII list members, at most 256 characters (a script attribute's bound). */
  private static final java.util.regex.Pattern TRACESTATE = java.util.regex.Pattern.compile("[\\x20-\\x7e]{1,256}");

  /**
   * The script with the run's observation attributes (read by polyglot-sandbox-micrometer's observations): the
   * MCP tool's name as {@code gen_ai.tool.name}, and the caller's W3C trace context from the request's
   * {@code _meta} ({@code traceparent}, {@code tracestate}) when it is well formed, so that a traced client's
   * trace goes on through the run. A malformed one is left out, as a tracer would drop it.
   */
  static Script traced(Script script, String mcpTool, Map<String, Object> meta) {
    Script s = script.withAttribute("gen_ai.tool.name", mcpTool);
    if (meta != null && meta.get("traceparent") instanceof String parent && TRACEPARENT.matcher(parent).matches()) {
      s = s.withAttribute("traceparent", parent);
      if (meta.get("tracestate") instanceof String state && TRACESTATE.matcher(state).matches()) {
        s = s.withAttribute("tracestate", state);
      }
    }
    return s;
  }

  private Mono<CallToolResult> callHostTool(Tool t, CallToolRequest request) {
    String mcpName = hostToolName(t.name());
    Map<String, Object> args = request.arguments() == null ? Map.of() : request.arguments();
    Language language = sandbox.policy().allows(Language.JAVASCRIPT) ? Language.JAVASCRIPT : Language.PYTHON;
    String quoted = "'" + t.name() + "'";   // tool names are letters, digits, '_' and '.': safe in quotes
    String code = language == Language.JAVASCRIPT ? "tools[" + quoted + "](args)" : "getattr(tools, " + quoted + ")(args)";
    String key = request.meta() != null && request.meta().get(Inbound.CALL_KEY) instanceof String k ? k : null;
    Script named = Script.of(language, code).named(mcpName).withInputs(Map.of("args", args));
    Script script = traced(key == null ? named : named.withLabel(Calls.label(key)), mcpName, request.meta());
    return Mono.create(sink -> submit(sink, key, mcpName, RunTools::refused, call -> {
      ExecutionResult r;
      try {
        r = sandbox.run(script);
      } finally {
        call.finish();
      }
      runListener.accept(script, r);
      if (r.isOk()) {
        return CallToolResult.builder().addTextContent(r.valueAsJson()).isError(false).build();
      }
      return refused(mcpName + ": " + r.outcome() + r.limit().map(l -> " (" + l.id() + ")").orElse("") + ": "
          + r.errorMessage().orElse("the call did not complete"));
    }));
  }

  /**
   * The work of one call; may throw what {@link PolyglotSandbox#run} throws. It calls {@link
   * Calls.Call#finish()} as soon as the run has returned, so that what follows (the run listener writing
   * an audit file) never sees an interrupt meant for the run.
   */
  private interface Work {
    CallToolResult call(Calls.Call call);
  }

  /**
   * Runs {@code work} on a call thread, registered under {@code key} so that it can be cancelled; a call
   * that cannot run is answered with {@code refusal} of the message saying why.
   */
  private void submit(MonoSink<CallToolResult> sink, String key, String tool, Function<String, CallToolResult> refusal,
      Work work) {
    Calls.Call call = new Calls.Call();
    if (key != null) {
      calls.put(key, call);
    }
    Runnable task = () -> {
      try {
        if (!call.start()) {
          sink.success();
          return;
        }
        CallToolResult result;
        try {
          result = work.call(call);
        } catch (RejectedExecutionException e) {
          result = refusal.apply(tool + ": the sandbox is busy (" + e.getMessage() + "); nothing ran, try again shortly");
        } catch (CancellationException e) {
          result = refusal.apply(tool + ": cancelled before it started");
        } catch (IllegalArgumentException e) {
          result = refusal.apply(tool + ": " + e.getMessage());
        } catch (IllegalStateException e) {
          // The sandbox is closed (the server is stopping), or its warm-up in the background failed.
          result = refusal.apply(tool + ": " + e.getMessage() + "; nothing ran");
        } finally {
          call.finish();
          if (key != null) {
            calls.remove(key, call);
          }
        }
        if (call.withdrawn()) {
          sink.success();   // cancelled by the client: the protocol asks for no response
        } else {
          sink.success(result);
        }
      } catch (RuntimeException | Error e) {
        sink.error(e);
      }
    };
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      if (key != null) {
        calls.remove(key, call);
      }
      sink.success(refusal.apply(tool + ": the server is shutting down; nothing ran"));
    }
  }

  /**
   * The progress notifications of one call that sent a progress token: every {@code progressAfter} while
   * it waits and runs, {@code progress} the seconds since the call started, always more than the last,
   * and no {@code total}: the wall-time limit is a ceiling, not the amount of work, so a fraction of it
   * would be no measure of how far the run has come. The message names the limit. None is sent after
   * {@link #stop()} has returned, so none follows the answer.
   */
  private final class Progress {
    private final McpAsyncServerExchange exchange;
    private final Object token;
    private final long start = System.nanoTime();
    private final String limit;
    private final java.util.concurrent.CompletableFuture<Void> started = sandbox.started().toCompletableFuture();
    private final ScheduledFuture<?> ticker;
    /** Whether a send is queued or under way on a call thread (the timer's thread never sends). */
    private final java.util.concurrent.atomic.AtomicBoolean sending = new java.util.concurrent.atomic.AtomicBoolean();
    // Guarded by this:
    private double last;
    private boolean stopped;

    Progress(McpAsyncServerExchange exchange, Object token) {
      this.exchange = exchange;
      this.token = token;
      Duration wall = sandbox.policy().limits().wallTime();
      this.limit = wall.toMillis() % 1000 == 0 ? wall.toSeconds() + " s" : wall.toMillis() + " ms";
      long period = progressAfter.toMillis();
      // A send may block (an HTTP client that does not read): it happens on a call thread, one at a time.
      this.ticker = timer.scheduleAtFixedRate(() -> {
        if (sending.compareAndSet(false, true)) {
          try {
            executor.execute(() -> {
              try {
                send();
              } finally {
                sending.set(false);
              }
            });
          } catch (RejectedExecutionException e) {
            sending.set(false);   // the server is stopping
          }
        }
      }, period, period, TimeUnit.MILLISECONDS);
    }

    private synchronized void send() {
      double seconds = (System.nanoTime() - start) / 1_000_000 / 1000.0;
      if (stopped || seconds <= last) {
        return;
      }
      last = seconds;
      double shown = Math.floor(seconds * 10) / 10.0;
      String message = started.isDone() ? "running for " + shown + " s (wall-time limit " + limit + ")"
          : "waited " + shown + " s for the sandbox to warm up; the run starts after it";
      exchange.progressNotification(new McpSchema.ProgressNotification(token, seconds, null, message))
          .subscribe(v -> {}, e -> {});
    }

    synchronized void stop() {
      stopped = true;
      ticker.cancel(false);
    }
  }

  /**
   * An ended run as an MCP result: the model text, the structured result, isError unless OK. A value that
   * held NaN or an infinity also gets {@code nonFiniteNumbers} and a second text block, the sandbox's
   * own note (it quotes no guest text, so it stands outside the frame of the model text), saying that
   * the strings in their place stand for numbers.
   */
  CallToolResult runResult(ExecutionResult r) {
    Map<String, Object> structured = new LinkedHashMap<>();
    structured.put("outcome", r.outcome().name());
    Object value;
    try {
      value = json.readValue(r.valueAsJson(), Object.class);
    } catch (JsonProcessingException e) {
      value = null;   // valueAsJson is always JSON; kept total all the same
    }
    structured.put("value", value);
    List<String> nonFinite = new ArrayList<>();
    long nonFiniteCount = nonFinite(r.value(), "", nonFinite);
    if (nonFiniteCount > 0) {
      structured.put("nonFiniteNumbers", nonFinite);
    }
    structured.put("stdout", r.stdout());
    structured.put("stderr", r.stderr());
    r.limit().map(Limit::id).ifPresent(l -> structured.put("limit", l));
    r.errorMessage().ifPresent(m -> structured.put("error", m));
    CallToolResult.Builder b = CallToolResult.builder().addTextContent(r.toModelText());
    if (nonFiniteCount > 0) {
      b.addTextContent("Note from the sandbox: the value held " + nonFiniteCount + (nonFiniteCount == 1
          ? " number" : " numbers") + " JSON cannot carry (NaN, Infinity or -Infinity); each is the string"
          + " \"NaN\", \"Infinity\" or \"-Infinity\" in its place, and structuredContent.nonFiniteNumbers"
          + " says where.");
    }
    return b.structuredContent(structured).isError(!r.isOk()).build();
  }

  /**
   * Counts the NaNs and infinities in a run's value (plain Java data: maps, lists, numbers, strings,
   * booleans, null) and adds the JSON Pointer of each, up to {@value #MAX_NON_FINITE_POINTERS}, to
   * {@code out}.
   */
  private static long nonFinite(Object v, String pointer, List<String> out) {
    if (v instanceof Double d && !Double.isFinite(d) || v instanceof Float f && !Float.isFinite(f)) {
      if (out.size() < MAX_NON_FINITE_POINTERS) {
        out.add(pointer);
      }
      return 1;
    }
    long n = 0;
    if (v instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        String key = String.valueOf(e.getKey()).replace("~", "~0").replace("/", "~1");
        n += nonFinite(e.getValue(), pointer + "/" + key, out);
      }
    } else if (v instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        n += nonFinite(list.get(i), pointer + "/" + i, out);
      }
    }
    return n;
  }

  /**
   * A run tool's answer to a call that never ran: the message as text, isError, and structured content
   * of outcome {@code NOT_RUN} with the message as {@code error}, so that it too matches the output schema.
   */
  static CallToolResult notRun(String message) {
    Map<String, Object> structured = new LinkedHashMap<>();
    structured.put("outcome", "NOT_RUN");
    structured.put("value", null);
    structured.put("stdout", "");
    structured.put("stderr", "");
    structured.put("error", message);
    return CallToolResult.builder().addTextContent(message).structuredContent(structured).isError(true).build();
  }

  /** A call that did not run, or a host tool call that failed: one text block, isError. */
  static CallToolResult refused(String message) {
    return CallToolResult.builder().addTextContent(message).isError(true).build();
  }
}
