package org.polyglotsandbox.micrometer;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.Tool;

/**
 * Micrometer {@link Observation}s of one sandbox's runs and of the tool handlers they call, named and keyed by
 * OpenTelemetry's GenAI conventions for a tool execution, so that a tracing bridge (Spring Boot's, with
 * Micrometer Tracing and OpenTelemetry) makes spans {@code execute_tool run_javascript} for a run and
 * {@code execute_tool lookup} for each call of a host tool's handler, its child. Attached with one call,
 * {@code SandboxObservations.bind(sandbox, observationRegistry)}; {@link #close()} detaches it.
 *
 * <p>Each observation is named {@value #NAME}, with the contextual (span) name
 * {@code execute_tool} and the tool's name, and carries:
 * <ul>
 *   <li>low-cardinality keys: {@code gen_ai.operation.name} ({@code execute_tool}), {@code gen_ai.tool.name}
 *       (a run's: the script's {@value #TOOL_NAME_ATTRIBUTE} attribute, else {@code run_javascript} or
 *       {@code run_python}, the names the MCP server and the adapters give their tools; a handler's: the
 *       host tool's name), {@code sandbox.language} (the run's {@link Language#id()}) and
 *       {@code sandbox.outcome} (a run's {@link Outcome} in lower case, or {@code rejected}, {@code cancelled},
 *       {@code failed} when it has no result; a handler's {@code ok} or {@code failed});</li>
 *   <li>high-cardinality keys: {@code gen_ai.tool.call.id} (a run's: its {@value #CALL_ID_ATTRIBUTE}
 *       attribute, else its {@link ExecutionResult#runId()}; a handler's: the run id and the call's number in
 *       the run, {@code RUNID/3}) and {@code sandbox.run.id}.</li>
 * </ul>
 * A run that does not end {@link Outcome#OK} and a handler that throws are marked as errors.
 *
 * <p>The run's observation starts on the thread that calls {@link PolyglotSandbox#run} (or {@code runAsync}), so
 * its parent is the observation current there, such as an HTTP server's. Where there is none and the script
 * carries a W3C trace context in its {@value #TRACEPARENT_ATTRIBUTE} (and {@value #TRACESTATE_ATTRIBUTE})
 * attribute, the run continues that trace: its context is then a {@link ReceiverContext} whose carrier is
 * the script's attributes, which a tracing bridge's receiver handler reads. The MCP server sets both from a
 * request's {@code _meta}. A handler's observation has the run's as its parent and is current on the
 * handler's thread while the handler runs, so the handler's own instrumented calls are its children.
 */
public final class SandboxObservations implements AutoCloseable {
  /** The observations' name. */
  public static final String NAME = "gen_ai.execute_tool";
  /** The script attribute that names the run's tool, when the default name does not fit. */
  public static final String TOOL_NAME_ATTRIBUTE = "gen_ai.tool.name";
  /** The script attribute that gives the run's tool call id. */
  public static final String CALL_ID_ATTRIBUTE = "gen_ai.tool.call.id";
  /** The script attribute holding a W3C {@code traceparent} for the run to continue. */
  public static final String TRACEPARENT_ATTRIBUTE = "traceparent";
  /** The script attribute holding the W3C {@code tracestate} that goes with it. */
  public static final String TRACESTATE_ATTRIBUTE = "tracestate";

  private static final String OPERATION = "execute_tool";

  private final PolyglotSandbox sandbox;
  private final ObservationRegistry registry;
  private final RunObserver observer;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SandboxObservations(PolyglotSandbox sandbox, ObservationRegistry registry) {
    this.sandbox = sandbox;
    this.registry = registry;
    this.observer = this::runStarted;
    sandbox.addRunObserver(observer);
  }

  /** Observes each run of {@code sandbox} and each tool handler call in it; see {@link SandboxObservations}. */
  public static SandboxObservations bind(PolyglotSandbox sandbox, ObservationRegistry registry) {
    Objects.requireNonNull(sandbox, "sandbox");
    Objects.requireNonNull(registry, "registry");
    return new SandboxObservations(sandbox, registry);
  }

  /** The tool name a run of {@code script} is observed under. */
  static String toolName(Script script) {
    String named = script.attributes().get(TOOL_NAME_ATTRIBUTE);
    if (named != null) {
      return named;
    }
    return script.language() == Language.JAVASCRIPT ? "run_javascript" : "run_" + script.language().id();
  }

  private RunObserver.Run runStarted(Script script) {
    if (registry.isNoop() || closed.get()) {
      return RunObserver.Run.NONE;
    }
    String tool = toolName(script);
    Map<String, String> attributes = script.attributes();
    Observation.Context context;
    if (registry.getCurrentObservation() == null && attributes.containsKey(TRACEPARENT_ATTRIBUTE)) {
      ReceiverContext<Map<String, String>> remote = new ReceiverContext<>((carrier, key) -> carrier.get(key), Kind.SERVER);
      remote.setCarrier(attributes);
      context = remote;
    } else {
      context = new Observation.Context();
    }
    Observation run = Observation.createNotStarted(NAME, () -> context, registry)
        .contextualName(OPERATION + " " + tool)
        .lowCardinalityKeyValues(KeyValues.of("gen_ai.operation.name", OPERATION, "gen_ai.tool.name", tool,
            "sandbox.language", script.language().id()))
        .start();
    String callId = attributes.get(CALL_ID_ATTRIBUTE);
    return new ObservedRun(run, script.language(), callId);
  }

  /** One run's observation and its handlers' children. */
  private final class ObservedRun implements RunObserver.Run {
    private final Observation run;
    private final Language language;
    private final String callId;
    private final AtomicInteger calls = new AtomicInteger();

    ObservedRun(Observation run, Language language, String callId) {
      this.run = run;
      this.language = language;
      this.callId = callId;
    }

    @Override
    public RunObserver.HandlerCall handlerStarted(Tool.Call call) {
      Observation handler = Observation.createNotStarted(NAME, Observation.Context::new, registry)
          .parentObservation(run)
          .contextualName(OPERATION + " " + call.tool())
          .lowCardinalityKeyValues(KeyValues.of("gen_ai.operation.name", OPERATION, "gen_ai.tool.name", call.tool(),
              "sandbox.language", language.id()))
          .highCardinalityKeyValue("gen_ai.tool.call.id", call.runId() + "/" + calls.incrementAndGet())
          .highCardinalityKeyValue("sandbox.run.id", call.runId())
          .start();
      Observation.Scope scope = handler.openScope();
      return failure -> {
        scope.close();
        handler.lowCardinalityKeyValue("sandbox.outcome", failure == null ? "ok" : "failed");
        if (failure != null) {
          handler.error(failure);
        }
        handler.stop();
      };
    }

    @Override
    public void ended(ExecutionResult result, Throwable failure) {
      if (result != null) {
        run.lowCardinalityKeyValue("sandbox.outcome", result.outcome().name().toLowerCase(Locale.ROOT));
        run.highCardinalityKeyValue("gen_ai.tool.call.id", callId != null ? callId : result.runId());
        run.highCardinalityKeyValue("sandbox.run.id", result.runId());
        if (result.outcome() != Outcome.OK) {
          run.error(new RunNotOk(result));
        }
      } else {
        run.lowCardinalityKeyValue("sandbox.outcome", failure instanceof RejectedExecutionException ? "rejected"
            : failure instanceof CancellationException ? "cancelled" : "failed");
        if (callId != null) {
          run.highCardinalityKeyValue("gen_ai.tool.call.id", callId);
        }
        run.error(failure);
      }
      run.stop();
    }
  }

  /**
   * What a run that did not end {@link Outcome#OK} reports as its error: the outcome and limit, never the guest's
   * message (untrusted text). Without a stack trace: it was made here, not thrown.
   */
  static final class RunNotOk extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RunNotOk(ExecutionResult result) {
      super(result.outcome().name().toLowerCase(Locale.ROOT)
          + result.limit().map(l -> " (limit " + l.id() + ")").orElse(""), null, false, false);
    }
  }

  /** Detaches: later runs of the sandbox are not observed. Idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      sandbox.removeRunObserver(observer);
    }
  }
}
