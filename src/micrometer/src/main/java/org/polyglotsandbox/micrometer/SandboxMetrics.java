package org.polyglotsandbox.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.Tool;

/**
 * Micrometer meters of one sandbox: its runs by language, outcome and limit, their times, the host tool
 * calls by tool and status, the denied operations by operation and layer, and gauges of what is running,
 * waiting and ready. Attached with one call, {@code SandboxMetrics.bind(sandbox, registry)}, which adds a
 * {@link RunObserver} to the sandbox; {@link #close()} takes it and the meters away again.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 *   <tr><td>{@value #RUNS}</td><td>counter</td><td>language, outcome, limit</td><td>runs that ended</td></tr>
 *   <tr><td>{@value #RUN_DURATION}</td><td>timer</td><td>language, outcome</td><td>the guest's own time
 *       ({@link ExecutionResult.Usage#wallTime()})</td></tr>
 *   <tr><td>{@value #QUEUE_DURATION}</td><td>timer</td><td>language</td><td>waiting for a turn
 *       ({@link ExecutionResult.Usage#queueTime()})</td></tr>
 *   <tr><td>{@value #SETUP_DURATION}</td><td>timer</td><td>language</td><td>the sandbox's set-up before the
 *       program ({@link ExecutionResult.Usage#setupTime()})</td></tr>
 *   <tr><td>{@value #TOOL_CALLS}</td><td>timer</td><td>tool, status</td><td>host tool calls, from the gateway's
 *       entry to its answer</td></tr>
 *   <tr><td>{@value #DENIED_OPERATIONS}</td><td>counter</td><td>operation, layer</td><td>refused attempts and
 *       refused output</td></tr>
 *   <tr><td>{@value #RUNNING}, {@value #WAITING}</td><td>gauge</td><td></td><td>runs running and waiting now</td></tr>
 *   <tr><td>{@value #WARM_CONTEXTS}</td><td>gauge</td><td>language</td><td>warm-pool contexts ready now</td></tr>
 *   <tr><td>{@value #READY_WORKERS}</td><td>gauge</td><td></td><td>worker processes ready (process isolation only)</td></tr>
 * </table>
 *
 * <p>Every tag value comes from a small fixed set: {@code language} is a {@link Language#id()};
 * {@code outcome} an {@link Outcome} in lower case, or for a run that has no result {@code rejected}
 * (refused or not started in time), {@code cancelled} (while it waited) or {@code failed} (the sandbox closed);
 * {@code limit} a {@link Limit#id()} or {@code none}; {@code tool} the name of one of the sandbox's
 * {@link PolyglotSandbox#tools()} ({@code other} for any other name); {@code status} a
 * {@link SandboxEvent.ToolCall.Status} in lower case; {@code operation} an {@link Operation#id()};
 * {@code layer} a {@link Layer#id()}. Code, paths, labels and tool arguments never become tags.
 *
 * <p>Runs are counted when they end, from their {@link ExecutionResult}: tool calls and denials with them,
 * from {@link ExecutionResult#events()}, so a run's calls and denials beyond the 1,000 events a run keeps
 * ({@link ExecutionResult#droppedEvents()}) are not counted, and a denied attempt repeated in one run
 * counts once, as it is audited once. The same holds under both isolations.
 *
 * <p>Meters are made once per tag combination and then only incremented: a run costs a few counter and
 * timer updates on the thread that ends it.
 */
public final class SandboxMetrics implements AutoCloseable {
  /** Runs that ended: tags {@code language}, {@code outcome}, {@code limit}. */
  public static final String RUNS = "sandbox.runs";
  /** The guest's own time: tags {@code language}, {@code outcome}. */
  public static final String RUN_DURATION = "sandbox.run.duration";
  /** Time waiting for a turn: tag {@code language}. */
  public static final String QUEUE_DURATION = "sandbox.run.queue.duration";
  /** The sandbox's set-up before the program: tag {@code language}. */
  public static final String SETUP_DURATION = "sandbox.run.setup.duration";
  /** Host tool calls and their duration: tags {@code tool}, {@code status}. */
  public static final String TOOL_CALLS = "sandbox.tool.calls";
  /** Refused operations: tags {@code operation}, {@code layer}. */
  public static final String DENIED_OPERATIONS = "sandbox.denied.operations";
  /** Runs running now. */
  public static final String RUNNING = "sandbox.runs.running";
  /** Runs waiting for a turn now. */
  public static final String WAITING = "sandbox.runs.waiting";
  /** Warm-pool contexts ready now: tag {@code language}. */
  public static final String WARM_CONTEXTS = "sandbox.contexts.warm";
  /** Worker processes ready now (process isolation only). */
  public static final String READY_WORKERS = "sandbox.workers.ready";

  /** The outcomes of runs without a result, after the {@link Outcome}s. */
  private static final String[] OUTCOMES;
  private static final int REJECTED = Outcome.values().length;
  private static final int CANCELLED_WAITING = REJECTED + 1;
  private static final int FAILED = REJECTED + 2;

  static {
    Outcome[] o = Outcome.values();
    OUTCOMES = new String[o.length + 3];
    for (int i = 0; i < o.length; i++) {
      OUTCOMES[i] = o[i].name().toLowerCase(Locale.ROOT);
    }
    OUTCOMES[REJECTED] = "rejected";
    OUTCOMES[CANCELLED_WAITING] = "cancelled";
    OUTCOMES[FAILED] = "failed";
  }

  private static final int LIMITS = Limit.values().length + 1;
  private static final int STATUSES = SandboxEvent.ToolCall.Status.values().length;

  private final PolyglotSandbox sandbox;
  private final MeterRegistry registry;
  private final Tags common;
  private final double[] percentiles;
  private final boolean histogram;
  private final Set<String> tools;
  private final RunObserver observer;
  private final List<Meter> meters = new ArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  /** By language, outcome index and limit index (0: none). */
  private final AtomicReferenceArray<Counter> runs;
  /** By language and outcome index. */
  private final AtomicReferenceArray<Timer> durations;
  private final AtomicReferenceArray<Timer> queues;
  private final AtomicReferenceArray<Timer> setups;
  private final AtomicReferenceArray<Counter> denials;
  private final Map<String, AtomicReferenceArray<Timer>> toolTimers = new ConcurrentHashMap<>();

  private SandboxMetrics(Builder b, PolyglotSandbox sandbox, MeterRegistry registry) {
    this.sandbox = sandbox;
    this.registry = registry;
    this.common = b.tags;
    this.percentiles = b.percentiles;
    this.histogram = b.histogram;
    this.tools = Set.copyOf(sandbox.tools().stream().map(Tool::name).toList());
    int languages = Language.values().length;
    this.runs = new AtomicReferenceArray<>(languages * OUTCOMES.length * LIMITS);
    this.durations = new AtomicReferenceArray<>(languages * OUTCOMES.length);
    this.queues = new AtomicReferenceArray<>(languages);
    this.setups = new AtomicReferenceArray<>(languages);
    this.denials = new AtomicReferenceArray<>(Operation.values().length * Layer.values().length);
    gauge(RUNNING, Tags.empty(), "Runs running now", s -> s.runningRuns());
    gauge(WAITING, Tags.empty(), "Runs waiting for a turn now", s -> s.waitingRuns());
    for (Language l : sandbox.policy().languages()) {
      gauge(WARM_CONTEXTS, Tags.of("language", l.id()), "Warm-pool contexts ready now", s -> s.warmContexts(l));
    }
    if (sandbox.isolation().isProcess()) {
      gauge(READY_WORKERS, Tags.empty(), "Worker processes ready to take runs now", s -> s.readyWorkers());
    }
    // One observation per language, without state: a run costs no allocation here.
    RunObserver.Run[] byLanguage = new RunObserver.Run[languages];
    for (Language l : Language.values()) {
      byLanguage[l.ordinal()] = (result, failure) -> ended(l, result, failure);
    }
    this.observer = script -> byLanguage[script.language().ordinal()];
    sandbox.addRunObserver(observer);
  }

  /**
   * Attaches the meters of {@code sandbox} to {@code registry} with the defaults: timers without percentiles
   * or histogram buckets, no extra tags.
   */
  public static SandboxMetrics bind(PolyglotSandbox sandbox, MeterRegistry registry) {
    return builder().bind(sandbox, registry);
  }

  /** Configures the meters before {@link Builder#bind}. */
  public static Builder builder() {
    return new Builder();
  }

  private void ended(Language language, ExecutionResult result, Throwable failure) {
    if (closed.get()) {
      return;
    }
    int l = language.ordinal();
    if (result == null) {
      int outcome = failure instanceof RejectedExecutionException ? REJECTED
          : failure instanceof CancellationException ? CANCELLED_WAITING : FAILED;
      runCounter(l, outcome, 0).increment();
      return;
    }
    int outcome = result.outcome().ordinal();
    int limit = result.limit().map(x -> x.ordinal() + 1).orElse(0);
    runCounter(l, outcome, limit).increment();
    ExecutionResult.Usage usage = result.usage();
    timer(durations, l * OUTCOMES.length + outcome, () -> timer(RUN_DURATION, "The guest's own time in a run",
        Tags.of("language", language.id(), "outcome", OUTCOMES[outcome]))).record(usage.wallTime());
    timer(queues, l, () -> timer(QUEUE_DURATION, "Time a run waited for a turn", Tags.of("language", language.id())))
        .record(usage.queueTime());
    timer(setups, l, () -> timer(SETUP_DURATION, "The sandbox's set-up before a run's program",
        Tags.of("language", language.id()))).record(usage.setupTime());
    for (SandboxEvent e : result.events()) {
      switch (e) {
        case SandboxEvent.ToolCall t -> toolTimer(t.tool(), t.status()).record(t.duration());
        case SandboxEvent.DeniedOperation d -> denial(d.operation(), d.layer()).increment();
        case SandboxEvent.OutputRejected o -> denial(Operation.OUTPUT_WRITE, o.layer()).increment();
        case SandboxEvent.LimitExceeded x -> { } // in the run's limit tag
      }
    }
  }

  private Counter runCounter(int language, int outcome, int limit) {
    int i = (language * OUTCOMES.length + outcome) * LIMITS + limit;
    Counter c = runs.get(i);
    if (c == null) {
      c = register(Counter.builder(RUNS).description("Runs that ended, by language, outcome and limit")
          .tags(common).tags("language", Language.values()[language].id(), "outcome", OUTCOMES[outcome],
              "limit", limit == 0 ? "none" : Limit.values()[limit - 1].id()).register(registry));
      runs.set(i, c);
    }
    return c;
  }

  private Counter denial(Operation operation, Layer layer) {
    int i = operation.ordinal() * Layer.values().length + layer.ordinal();
    Counter c = denials.get(i);
    if (c == null) {
      c = register(Counter.builder(DENIED_OPERATIONS).description("Operations the sandbox refused, by operation and layer")
          .tags(common).tags("operation", operation.id(), "layer", layer.id()).register(registry));
      denials.set(i, c);
    }
    return c;
  }

  private Timer toolTimer(String tool, SandboxEvent.ToolCall.Status status) {
    String name = tools.contains(tool) ? tool : "other";
    AtomicReferenceArray<Timer> byStatus = toolTimers.computeIfAbsent(name, k -> new AtomicReferenceArray<>(STATUSES));
    return timer(byStatus, status.ordinal(), () -> timer(TOOL_CALLS, "Host tool calls, by tool and status",
        Tags.of("tool", name, "status", status.name().toLowerCase(Locale.ROOT))));
  }

  private static Timer timer(AtomicReferenceArray<Timer> cache, int i, Supplier<Timer> make) {
    Timer t = cache.get(i);
    if (t == null) {
      t = make.get();
      cache.set(i, t);
    }
    return t;
  }

  private Timer timer(String name, String description, Tags tags) {
    Timer.Builder b = Timer.builder(name).description(description).tags(common).tags(tags);
    if (percentiles.length > 0) {
      b.publishPercentiles(percentiles);
    }
    if (histogram) {
      b.publishPercentileHistogram();
    }
    return register(b.register(registry));
  }

  private void gauge(String name, Tags tags, String description, java.util.function.ToDoubleFunction<PolyglotSandbox> f) {
    register(Gauge.builder(name, sandbox, f).description(description).tags(common).tags(tags).register(registry));
  }

  private <M extends Meter> M register(M meter) {
    synchronized (meters) {
      meters.add(meter);
    }
    return meter;
  }

  /**
   * Detaches the meters: the sandbox's runs are no longer observed and every meter this made is removed
   * from the registry. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    sandbox.removeRunObserver(observer);
    synchronized (meters) {
      meters.forEach(registry::remove);
      meters.clear();
    }
  }

  /**
   * How the timers publish their distribution, and tags every meter carries. Defaults: no percentiles, no
   * histogram buckets (the registry's own settings, such as Spring Boot's
   * {@code management.metrics.distribution.*}, still apply), no extra tags.
   */
  public static final class Builder {
    private double[] percentiles = new double[0];
    private boolean histogram;
    private Tags tags = Tags.empty();

    private Builder() {}

    /**
     * Percentiles each timer computes in the client, such as {@code 0.5, 0.95, 0.99}.
     *
     * @throws IllegalArgumentException naming the value if one is not in [0, 1]
     */
    public Builder publishPercentiles(double... percentiles) {
      Objects.requireNonNull(percentiles, "percentiles");
      for (double p : percentiles) {
        if (!(p >= 0 && p <= 1)) {
          throw new IllegalArgumentException("percentile " + p + " is not in [0, 1]");
        }
      }
      this.percentiles = percentiles.clone();
      return this;
    }

    /** Publishes histogram buckets for each timer, for percentiles computed by the monitoring system. */
    public Builder publishPercentileHistogram() {
      this.histogram = true;
      return this;
    }

    /**
     * A tag every meter carries, such as {@code sandbox=plugins} to tell the sandboxes of one application
     * apart (meters of two sandboxes with the same tags are the same meters).
     *
     * @throws IllegalArgumentException if {@code key} is one of the meters' own tags
     */
    public Builder tag(String key, String value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      if (Set.of("language", "outcome", "limit", "tool", "status", "operation", "layer").contains(key)) {
        throw new IllegalArgumentException("tag '" + key + "' is one of the meters' own tags");
      }
      this.tags = tags.and(Tag.of(key, value));
      return this;
    }

    /** Attaches the meters of {@code sandbox} to {@code registry}; see {@link SandboxMetrics}. */
    public SandboxMetrics bind(PolyglotSandbox sandbox, MeterRegistry registry) {
      Objects.requireNonNull(sandbox, "sandbox");
      Objects.requireNonNull(registry, "registry");
      return new SandboxMetrics(this, sandbox, registry);
    }
  }
}
