package org.polyglotsandbox.internal.worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.ToolException;
import org.polyglotsandbox.internal.audit.Auditor;
import org.polyglotsandbox.internal.boundary.JsonSchema;
import org.polyglotsandbox.internal.boundary.NotPlainDataException;
import org.polyglotsandbox.internal.boundary.PlainData;
import org.polyglotsandbox.internal.boundary.TextSanitizer;
import org.polyglotsandbox.internal.delivery.DeliveryQueue;
import org.polyglotsandbox.internal.spi.ApiAccess;
import org.polyglotsandbox.internal.spi.RunFile;
import org.polyglotsandbox.internal.spi.RunRecord;
import org.polyglotsandbox.internal.spi.SandboxCore;

/**
 * The engine room of a sandbox with process isolation: runs go to worker processes, each running the
 * in-process engine room behind an operating-system wall. The room admits and queues runs, hands each to
 * a worker with room for it, runs the embedder's tool handlers when a worker asks, and stops what the
 * workers cannot: a run past its cap plus the kill grace, a worker whose heap ran out, one that crashed,
 * went silent or broke the channel's rules. Such a worker's processes are killed, every run on it is
 * answered at once, and a replacement starts.
 */
final class WorkerRoom extends SandboxCore {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  /** Events kept per run for an answer the host makes itself. */
  private static final int MAX_KEPT_EVENTS = 1_000;
  /** Workers in a row that ended before they were ready, after which the room stops trying. */
  private static final int MAX_FAILED_STARTS = 3;
  /** A heap this full (in permille, from the worker's last beat) makes a silent worker's run out of memory. */
  static final long FULL_HEAP_PERMILLE = 900;
  private static final AtomicInteger ROOMS = new AtomicInteger();

  private final Settings settings;
  private final ApiAccess api;
  private final Policy policy;
  private final Isolation isolation;
  private final Map<String, Tool> tools = new LinkedHashMap<>();
  private final WorkerLauncher launcher;
  private final int maxFrameBytes;
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
  private final List<Worker> workers = new ArrayList<>();
  private final AtomicLong keys = new AtomicLong();
  private final AtomicInteger workerNumbers = new AtomicInteger();
  private final ScheduledExecutorService monitor;
  private final ExecutorService handlers;
  private final Auditor auditor;
  private final DeliveryQueue<Runnable> output;
  private final CompletableFuture<Void> started = new CompletableFuture<>();
  private final int number = ROOMS.incrementAndGet();
  private volatile boolean closed;
  /** When the first worker was ready: a run's start timeout counts from then at the earliest. */
  private volatile long firstReadyNanos;
  private volatile String runtimeName = "unknown";
  /** Why workers fail to start, once {@link #MAX_FAILED_STARTS} did in a row; then every run is refused. */
  private volatile String broken;
  private int failedStarts;
  private int running;

  /** One run of the host's, from admission to its answer. */
  final class Pending {
    final long key = keys.incrementAndGet();
    final Script script;
    /** Told of each call of a tool's handler, on the host thread that calls it. */
    final RunObserver.Run observed;
    final Map<String, String> inputs;
    final Policy runPolicy;
    final CompletableFuture<ExecutionResult> result = new CompletableFuture<>();
    final long submittedNanos = System.nanoTime();
    final Auditor runAuditor;
    final Map<String, Integer> toolCalls = new ConcurrentHashMap<>();
    final Map<Long, Future<?>> handlerCalls = new ConcurrentHashMap<>();
    final List<SandboxEvent> events = java.util.Collections.synchronizedList(new ArrayList<>());
    volatile Worker worker;
    volatile long dispatchedNanos;
    volatile long deadlineNanos;
    volatile long cpuNanos;
    /** The worker's sandbox threads' CPU when the monitor first saw the run, by thread: the host's own count. */
    volatile Map<Long, Long> hostCpuAtStart;
    volatile String workerRunId;
    /** Why the host cancelled the run, once it has. */
    volatile String cancelled;

    Pending(Script script, Map<String, String> inputs, RunObserver.Run observed) {
      this.script = script;
      this.observed = observed;
      this.inputs = inputs;
      this.runPolicy = api.policyForRun(script, policy);
      this.runAuditor = auditor.forRun(script.auditedAttributes());
    }

    Limits limits() {
      return runPolicy.limits();
    }
  }

  private WorkerRoom(Settings settings, ApiAccess api, WorkerLauncher launcher) {
    this.settings = settings;
    this.api = api;
    this.policy = settings.policy();
    this.isolation = settings.isolation();
    this.launcher = launcher;
    settings.tools().forEach(t -> tools.put(t.name(), t));
    Limits l = policy.limits();
    long frame = (1L << 20) + 8 * l.maxOutputBytes() + 8 * l.maxResultChars() + 2 * l.maxTotalOutputFileBytes()
        + 64L * l.maxResultNodes();
    this.maxFrameBytes = (int) Math.min(Integer.MAX_VALUE - 64, frame);
    this.auditor = new Auditor(settings.auditListener(), "polyglot-sandbox-audit-w" + number);
    this.output = new DeliveryQueue<>("a run's output listener", "polyglot-sandbox-output-w" + number, 1_000,
        Runnable::run);
    this.monitor = Executors.newSingleThreadScheduledExecutor(daemon("polyglot-sandbox-workers-" + number));
    AtomicInteger handlerNumbers = new AtomicInteger();
    this.handlers = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "polyglot-sandbox-tool-w" + number + "-" + handlerNumbers.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts the room's workers; waits until they are ready unless the sandbox starts in the background. */
  static WorkerRoom start(Settings settings, ApiAccess api) {
    WorkerLauncher launcher = WorkerLauncher.forHost(settings.isolation(), settings.policy());
    WorkerRoom room = new WorkerRoom(settings, api, launcher);
    room.monitor.scheduleWithFixedDelay(room::watch, 50, 50, TimeUnit.MILLISECONDS);
    synchronized (room) {
      room.replenish();
    }
    if (!settings.inBackground()) {
      try {
        room.started.get(settings.isolation().workerStartTimeout().toNanos() + TimeUnit.SECONDS.toNanos(5),
            TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        room.close();
        throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
      } catch (TimeoutException e) {
        room.close();
        throw new IllegalStateException("the sandbox's worker processes did not start within "
            + settings.isolation().workerStartTimeout());
      } catch (InterruptedException e) {
        room.close();
        Thread.currentThread().interrupt();
        throw new CancellationException("interrupted while the sandbox's workers started");
      }
    }
    return room;
  }

  // ---- the API ----

  @Override
  public ExecutionResult run(Script script, Map<String, String> inputs, RunObserver.Run observed) {
    Pending p = admit(script, inputs, observed);
    try {
      return p.result.get();
    } catch (InterruptedException e) {
      cancel(p, "the calling thread was interrupted");
      try {
        return p.result.join();
      } catch (java.util.concurrent.CompletionException c) {
        if (c.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw c;
      } finally {
        Thread.currentThread().interrupt();
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (CancellationException e) {
      throw e;
    }
  }

  @Override
  public CompletableFuture<ExecutionResult> runAsync(Script script, Map<String, String> inputs,
      RunObserver.Run observed) {
    Pending p = admit(script, inputs, observed);
    CompletableFuture<ExecutionResult> out = new CompletableFuture<>();
    p.result.whenComplete((r, e) -> {
      if (e != null) {
        out.completeExceptionally(e);
      } else {
        out.complete(r);
      }
    });
    out.whenComplete((r, e) -> {
      if (out.isCancelled()) {
        cancel(p, "its future was cancelled");
      }
    });
    return out;
  }

  private Pending admit(Script script, Map<String, String> inputs, RunObserver.Run observed) {
    if (closed) {
      throw new IllegalStateException("sandbox is closed");
    }
    String why = broken;
    if (why != null) {
      throw new IllegalStateException(why);
    }
    Pending p = new Pending(script, inputs, observed);
    synchronized (this) {
      if (waiting.size() >= settings.maxWaitingRuns() && running >= settings.maxConcurrentRuns()) {
        throw new RejectedExecutionException("the sandbox is running " + running + " runs with "
            + waiting.size() + " waiting, its bounds (maxConcurrentRuns " + settings.maxConcurrentRuns()
            + ", maxWaitingRuns " + settings.maxWaitingRuns() + "); try again later");
      }
      waiting.add(p);
      dispatch();
    }
    return p;
  }

  /** Cancels a run: out of the queue, or its worker told (the worker answers it CANCELLED). */
  private void cancel(Pending p, String why) {
    synchronized (this) {
      if (waiting.remove(p)) {
        p.result.completeExceptionally(new CancellationException("the run was cancelled before it started: " + why));
        return;
      }
    }
    Worker w = p.worker;
    if (w != null && !p.result.isDone()) {
      p.cancelled = why;
      w.send(Map.of("t", "cancel", "id", p.key));
    }
  }

  @Override
  public CompletionStage<Void> started() {
    return started;
  }

  @Override
  public synchronized int runningRuns() {
    return running;
  }

  @Override
  public synchronized int waitingRuns() {
    return waiting.size();
  }

  @Override
  public int warmContexts(Language language) {
    return 0;
  }

  /** Workers ready now, busy or not. */
  @Override
  public synchronized int readyWorkers() {
    return (int) workers.stream().filter(w -> w.ready.isDone() && !w.ready.isCompletedExceptionally() && !w.ending)
        .count();
  }

  @Override
  public ThreadFactory callerThreads() {
    return Thread.ofPlatform().name("polyglot-sandbox-caller-w" + number + "-", 1).factory();
  }

  @Override
  public long undeliveredAuditEvents() {
    return auditor.undelivered();
  }

  @Override
  public String runtimeName() {
    return runtimeName;
  }

  @Override
  public String wall() {
    return "process isolation: " + isolation.workers() + " worker JVM" + (isolation.workers() == 1 ? "" : "s")
        + " (+" + isolation.spareWorkers() + " spare), " + (isolation.workerHeapBytes() >> 20) + " MiB heap each, in "
        + launcher.wall();
  }

  @Override
  public void close() {
    List<Worker> all;
    List<Pending> queued;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      all = new ArrayList<>(workers);
      queued = new ArrayList<>(waiting);
      waiting.clear();
    }
    started.completeExceptionally(new IllegalStateException("the sandbox was closed before its workers started"));
    for (Pending p : queued) {
      p.result.completeExceptionally(new IllegalStateException("sandbox is closed"));
    }
    for (Worker w : all) {
      if (w.busy()) {
        w.kill("the sandbox was closed");
      } else {
        w.closeChannel();
        w.process.onExit().copy().orTimeout(2, TimeUnit.SECONDS).exceptionally(e -> {
          w.kill("the sandbox was closed");
          return null;
        });
      }
    }
    for (Worker w : all) {
      try {
        w.process.onExit().get(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (ExecutionException | TimeoutException e) {
        w.kill("the sandbox was closed");
      }
    }
    monitor.shutdownNow();
    handlers.shutdownNow();
    output.close(Duration.ofSeconds(1));
    auditor.close(Duration.ofSeconds(5));
    launcher.close();
  }

  // ---- workers ----

  /** Starts workers until the room has its number of them and its spares. Holds the room's lock. */
  private void replenish() {
    if (closed || broken != null) {
      return;
    }
    long live = workers.stream().filter(w -> !w.ending && !w.retiring).count();
    // One start at a time: JVMs starting side by side on a small machine take as long together as one by one,
    // and the first would be ready no sooner than the last.
    boolean starting = workers.stream().anyMatch(w -> !w.ending && !w.ready.isDone());
    if (live < isolation.workers() + isolation.spareWorkers() && !starting) {
      Worker w;
      try {
        w = new Worker(workerNumbers.incrementAndGet(), launcher.launch());
      } catch (IOException | RuntimeException e) {
        fail("a worker process could not be started: " + e.getMessage());
        return;
      }
      workers.add(w);
      w.listen(maxFrameBytes, this::onFrame, this::onBroken);
      w.process.onExit().whenComplete((p, e) -> died(w));
      Map<String, Object> init = new LinkedHashMap<>();
      init.put("t", "init");
      init.put("policy", Wire.policy(policy));
      init.put("tools", tools.values().stream().map(Wire::tool).toList());
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("runs", (long) isolation.runsPerWorker());
      s.put("warmContexts", (long) settings.warmContexts());
      s.put("heapThreshold", settings.heapThreshold());
      s.put("warmUp", settings.warmUp().toNanos());
      s.put("lowerPriorityAfter", settings.lowerPriorityAfter() == null ? null : settings.lowerPriorityAfter().toNanos());
      s.put("pythonPath", settings.pythonPath());
      s.put("pythonImports", settings.pythonImports());
      init.put("settings", s);
      w.send(init);
    }
  }

  /** Workers keep failing to start: refuse runs from now on, saying why. */
  private void fail(String why) {
    broken = why;
    started.completeExceptionally(new IllegalStateException(why));
    for (Pending p : waiting) {
      p.result.completeExceptionally(new IllegalStateException(why));
    }
    waiting.clear();
  }

  /** Hands waiting runs to workers with room for them. Holds the room's lock. */
  private void dispatch() {
    while (!waiting.isEmpty() && running < settings.maxConcurrentRuns()) {
      Worker w = pick();
      if (w == null) {
        return;
      }
      Pending p = waiting.poll();
      if (p.result.isDone()) {
        continue;
      }
      p.worker = w;
      p.dispatchedNanos = System.nanoTime();
      Limits l = p.limits();
      // The run's own clock starts in the worker after its set-up, which the start timeout bounds, as in process.
      p.deadlineNanos = p.dispatchedNanos + l.wallTime().plus(isolation.killGrace()).plus(settings.startTimeout())
          .toNanos();
      w.runs.put(p.key, p);
      w.listened.put(p.key, p);
      running++;
      if (++w.runsTaken >= isolation.maxRunsPerWorker()) {
        w.retiring = true;
        replenish();
      }
      w.send(runFrame(p));
    }
  }

  /** A ready worker with room, the least busy first; at most {@link Isolation#workers()} busy at once. */
  private Worker pick() {
    long busy = workers.stream().filter(Worker::busy).count();
    Worker best = null;
    for (Worker w : workers) {
      if (!w.ready.isDone() || w.ready.isCompletedExceptionally() || w.ending || w.retiring
          || w.runs.size() >= isolation.runsPerWorker() || (!w.busy() && busy >= isolation.workers())) {
        continue;
      }
      if (best == null || w.runs.size() < best.runs.size()) {
        best = w;
      }
    }
    return best;
  }

  private Map<String, Object> runFrame(Pending p) {
    Script s = p.script;
    Map<String, Object> m = new HashMap<>();
    m.put("t", "run");
    m.put("id", p.key);
    m.put("language", s.language().name());
    m.put("code", s.code());
    m.put("name", s.name());
    m.put("label", s.label());
    m.put("inputs", p.inputs);
    m.put("resultSchema", s.resultSchema().orElse(null));
    List<Object> outputs = new ArrayList<>();
    api.outputFileDeclarations(s).forEach((path, required) -> outputs.add(Map.of("path", path, "required", required)));
    m.put("outputFiles", outputs);
    List<Object> files = new ArrayList<>();
    for (RunFile f : api.runFiles(s)) {
      files.add(Map.of("path", f.guestPath(), "bytes", Base64.getEncoder().encodeToString(f.bytes()),
          "writable", f.writable()));
    }
    m.put("files", files);
    m.put("limits", s.limits().map(Wire::limits).orElse(null));
    m.put("listen", s.outputListener().isPresent());
    return m;
  }

  // ---- frames from workers ----

  private void onFrame(Worker w, Map<String, Object> m) {
    try {
      switch (String.valueOf(m.get("t"))) {
        case "ready" -> {
          if (m.get("runtime") instanceof String name) {
            runtimeName = TextSanitizer.oneLine(name, 64);
          }
          w.jvmPid = ProcCpu.jvmPid(w.process);
          if (firstReadyNanos == 0) {
            firstReadyNanos = System.nanoTime();
          }
          synchronized (this) {
            failedStarts = 0;
            w.ready.complete(null);
            started.complete(null); // runs can be served; the other workers start one after another
            replenish();
            dispatch();
          }
        }
        case "beat" -> {
          if (m.get("heap") instanceof Long heap && heap >= 0 && heap <= 1000) {
            w.heapPermille = heap;
          }
          for (Map.Entry<String, Object> e : Wire.map(m.get("cpu")).entrySet()) {
            Pending p = w.runs.get(Long.parseLong(e.getKey()));
            if (p != null && e.getValue() instanceof Long cpu && cpu >= 0) {
              p.cpuNanos = Math.max(p.cpuNanos, cpu);
            }
          }
        }
        case "out" -> {
          // A chunk may come after its run's result: the worker delivers output on a thread of its own.
          Pending p = w.listened.get(Wire.num(m, "id"));
          if (p != null && p.script.outputListener().isPresent()) {
            var stream = ExecutionResult.OutputChunk.Stream.valueOf(Wire.str(m, "stream"));
            String runId = TextSanitizer.oneLine(Wire.str(m, "runId"), 64);
            String text = TextSanitizer.clean(Wire.str(m, "text")).text();
            Consumer<? super ExecutionResult.OutputChunk> listener = p.script.outputListener().get();
            output.offer(() -> listener.accept(new ExecutionResult.OutputChunk(runId, stream, text)));
          }
        }
        case "audit" -> {
          // Like output, an audit event may come after its run's result: the worker delivers them on a thread of its own.
          Pending p = w.listened.get(Wire.num(m, "id"));
          if (p != null) {
            SandboxEvent event = Wire.event(Wire.map(m.get("event")));
            String runId = TextSanitizer.oneLine(Wire.str(m, "runId"), 64);
            p.workerRunId = runId;
            if (p.events.size() < MAX_KEPT_EVENTS) {
              p.events.add(event);
            }
            p.runAuditor.publish(runId, p.script.label(), event);
          }
        }
        case "tool" -> toolCall(w, m);
        case "result" -> {
          Pending p = w.runs.get(Wire.num(m, "id"));
          if (p == null) {
            return; // answered already (cancelled by its future, or the host stopped it)
          }
          RunRecord record = Wire.result(Wire.map(m.get("result")), p.limits(), api,
              p.dispatchedNanos - p.submittedNanos, (int) Math.min(Integer.MAX_VALUE, auditor.undelivered()));
          finish(w, p, api.result(record));
        }
        case "refused" -> {
          Pending p = w.runs.get(Wire.num(m, "id"));
          if (p != null) {
            String message = TextSanitizer.oneLine(Wire.str(m, "message"), 500);
            synchronized (this) {
              if (w.runs.remove(p.key) != null) {
                running--;
              }
              p.handlerCalls.values().forEach(f -> f.cancel(true));
              if (p.cancelled != null) { // the worker's answer to the host's cancel
                p.result.complete(answer(p, Outcome.CANCELLED, null, "the run was cancelled: " + p.cancelled, null));
              } else {
                p.result.completeExceptionally(new IllegalStateException("the worker refused the run: " + message));
              }
              afterRun(w);
            }
          }
        }
        default -> throw new Frames.ProtocolException("a frame of an unknown type");
      }
    } catch (Frames.ProtocolException | RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, w + " broke the channel's rules and is killed: " + e.getMessage());
      w.kill("it broke the channel's rules (" + e.getMessage() + ")");
    }
  }

  private void onBroken(Worker w, String why) {
    if (why != null) {
      LOG.log(System.Logger.Level.WARNING, w + " broke the channel's rules and is killed: " + why);
      w.kill("it broke the channel's rules (" + why + ")");
    } else if (!w.ending) {
      // The worker closed its end; its exit (died) answers its runs. Make sure it does exit.
      later(() -> {
        if (w.process.isAlive()) {
          w.kill("it closed its channel");
        }
      }, 2);
    }
  }

  private void finish(Worker w, Pending p, ExecutionResult r) {
    synchronized (this) {
      if (w.runs.remove(p.key) == null) {
        return;
      }
      running--;
    }
    p.handlerCalls.values().forEach(f -> f.cancel(true));
    p.result.complete(r);
    synchronized (this) {
      afterRun(w);
    }
  }

  /** After a run left a worker: retire it if due, and hand out waiting runs. Holds the room's lock. */
  private void afterRun(Worker w) {
    if (w.retiring && !w.busy() && !w.ending) {
      w.ending = true;
      w.closeChannel();
      later(() -> {
        if (w.process.isAlive()) {
          w.kill("it was retired");
        }
      }, 5);
    }
    dispatch();
  }

  /** A tool call from a worker: checked as if the worker had not checked it, then run on a host thread. */
  private void toolCall(Worker w, Map<String, Object> m) throws Frames.ProtocolException {
    long call = Wire.num(m, "call");
    Pending p = w.runs.get(Wire.num(m, "id"));
    if (p == null) {
      w.send(Map.of("t", "answer", "call", call, "failed", "the run has ended"));
      return;
    }
    String name = Wire.str(m, "tool");
    Tool tool = tools.get(name);
    if (tool == null) {
      throw new Frames.ProtocolException("a call of a tool the policy does not allow");
    }
    int count = p.toolCalls.merge(name, 1, Integer::sum);
    if (count > tool.maxCallsPerRun()) {
      throw new Frames.ProtocolException("more calls of a tool than its budget");
    }
    String json = Wire.str(m, "args");
    if (json.getBytes(StandardCharsets.UTF_8).length > tool.maxArgumentBytes()) {
      throw new Frames.ProtocolException("tool arguments over the tool's bound");
    }
    Object parsed;
    try {
      parsed = PlainData.parse(json, true);
    } catch (IllegalArgumentException e) {
      throw new Frames.ProtocolException("tool arguments that are not JSON");
    }
    if (!(parsed instanceof Map<?, ?>)) {
      throw new Frames.ProtocolException("tool arguments that are not an object");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> args = java.util.Collections.unmodifiableMap((Map<String, Object>) parsed);
    JsonSchema schema = api.parameters(tool);
    if (!schema.violations(args).isEmpty()) {
      throw new Frames.ProtocolException("tool arguments that break the tool's schema");
    }
    Tool.Call info = new Tool.Call(name, p.workerRunId == null ? Wire.str(m, "runId") : p.workerRunId,
        p.script.label(), p.script.attributes());
    Future<?> f = handlers.submit(() -> {
      Map<String, Object> answer = new HashMap<>();
      answer.put("t", "answer");
      answer.put("call", call);
      RunObserver.HandlerCall observedCall = p.observed.handlerStarted(info);
      Throwable handlerFailure = null;
      try {
        Object value;
        try {
          value = tool.contextualHandler().call(args, info);
        } catch (Exception | Error e) {
          handlerFailure = e;
          throw e;
        } finally {
          observedCall.ended(handlerFailure);
        }
        try {
          answer.put("value", PlainData.toJson(value, PlainData.Format.strict(p.limits().maxResultDepth(),
              p.limits().maxResultNodes())));
        } catch (NotPlainDataException e) {
          LOG.log(System.Logger.Level.WARNING, "tool '" + name + "' returned an unusable result: " + e.getMessage());
          answer.put("notPlain", true);
        }
      } catch (ToolException e) {
        answer.put("toolError", String.valueOf(e.getMessage()));
      } catch (InterruptedException e) {
        answer.put("failed", "the call was cancelled");
      } catch (Exception | Error e) {
        LOG.log(System.Logger.Level.WARNING, "tool '" + name + "' failed", e);
        answer.put("failed", e.getMessage() == null ? "" : e.getMessage());
      } finally {
        p.handlerCalls.remove(call);
      }
      w.send(answer);
    });
    p.handlerCalls.put(call, f);
  }

  // ---- hard stops ----

  /** Every 50 ms: runs past their caps, silent workers, runs that waited too long to start, the pool's size. */
  private void watch() {
    try {
      long now = System.nanoTime();
      List<Worker> snapshot;
      synchronized (this) {
        snapshot = new ArrayList<>(workers);
        // While no worker is ready (the first, or replacements after every worker was killed or retired),
        // runs wait for one as they wait for a warm-up: a worker that never gets ready is killed at its own
        // start timeout, and workers that keep failing fail the waiting runs.
        boolean anyReady = readyWorkers() > 0;
        for (Iterator<Pending> it = waiting.iterator(); it.hasNext(); ) {
          Pending p = it.next();
          if (anyReady) {
            long since = p.submittedNanos - firstReadyNanos < 0 ? firstReadyNanos : p.submittedNanos;
            if (now - since > settings.startTimeout().toNanos()) {
              it.remove();
              p.result.completeExceptionally(new RejectedExecutionException("the run did not start within "
                  + settings.startTimeout() + " (the sandbox's workers were busy); the guest did not run, so the call"
                  + " may be tried again"));
            }
          }
        }
      }
      for (Worker w : snapshot) {
        if (w.ending) {
          continue;
        }
        if (!w.ready.isDone() && now - w.startedNanos > isolation.workerStartTimeout().toNanos()) {
          w.kill("it did not start within " + isolation.workerStartTimeout());
          continue;
        }
        if (w.busy() && now - w.lastHeardNanos > isolation.silenceTimeout().toNanos()) {
          Pending only = w.runs.size() == 1 ? w.runs.values().iterator().next() : null;
          if (only != null && w.heapPermille >= FULL_HEAP_PERMILLE) {
            // Silent with a full heap: its collector is working on what the guest holds (a frozen worker's
            // last beat says otherwise), and the same run would do the same again: out of memory, not a retry.
            hardStop(w, only, Limit.MEMORY, "its worker process's heap (" + (isolation.workerHeapBytes() >> 20)
                + " MiB) was " + w.heapPermille / 10 + "% full when it stopped answering for "
                + format(isolation.silenceTimeout()) + ", so the worker was killed");
          } else {
            w.kill("it sent nothing for " + isolation.silenceTimeout());
          }
          continue;
        }
        Map<Long, Long> hostCpu = null;
        for (Pending p : w.runs.values()) {
          Limits l = p.limits();
          // The host's own count: the worker's beats stop when a guest holds its JVM away from a safepoint.
          if (p.hostCpuAtStart == null) {
            p.hostCpuAtStart = ProcCpu.sandboxThreads(w.jvmPid);
          } else if (w.runs.size() == 1 && now - p.dispatchedNanos > l.maxCpuTime().toNanos()) {
            hostCpu = hostCpu != null ? hostCpu : ProcCpu.sandboxThreads(w.jvmPid);
            p.cpuNanos = Math.max(p.cpuNanos, ProcCpu.since(p.hostCpuAtStart, hostCpu));
          }
          if (p.cpuNanos > l.maxCpuTime().plus(isolation.killGrace()).toNanos()) {
            hardStop(w, p, Limit.CPU_TIME, "the run's CPU time passed its cap (" + format(l.maxCpuTime())
                + ") by more than " + format(isolation.killGrace()) + ", so its worker process was killed");
            break;
          }
          if (now - p.deadlineNanos > 0) {
            hardStop(w, p, Limit.WALL_TIME, "the run passed its wall time (" + format(l.wallTime())
                + ") by more than " + format(isolation.killGrace()) + ", so its worker process was killed");
            break;
          }
        }
      }
      synchronized (this) {
        replenish();
        dispatch();
      }
    } catch (RuntimeException | Error e) {
      LOG.log(System.Logger.Level.WARNING, "the worker monitor met an error", e);
    }
  }

  private record HardStop(long key, Limit limit, String message) {}

  private final Map<Worker, HardStop> hardStops = new ConcurrentHashMap<>();

  private void hardStop(Worker w, Pending p, Limit limit, String message) {
    hardStops.putIfAbsent(w, new HardStop(p.key, limit, message));
    w.kill(message);
  }

  /** A worker's processes ended: every run on it gets its answer, and a replacement starts. */
  private void died(Worker w) {
    boolean oomKilled = w.launched.oomKilled().getAsBoolean();
    w.launched.release();
    HardStop stop = hardStops.remove(w);
    int status;
    try {
      status = w.process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      status = -1;
    }
    boolean heap = stop == null && w.killedFor == null && (status == WorkerCommand.OUT_OF_MEMORY_STATUS || oomKilled);
    List<Pending> orphans;
    synchronized (this) {
      workers.remove(w);
      orphans = new ArrayList<>(w.runs.values());
      w.runs.clear();
      running -= orphans.size();
      if (!w.ready.isDone()) {
        w.ready.completeExceptionally(new IllegalStateException("the worker ended before it was ready"));
        if (!closed && ++failedStarts >= MAX_FAILED_STARTS) {
          fail("the sandbox's worker processes fail to start (the last ended with status " + status
              + (w.killedFor != null ? ", killed because " + w.killedFor : "") + "; the host log has its standard error)");
        }
      }
    }
    for (Pending p : orphans) {
      p.handlerCalls.values().forEach(f -> f.cancel(true));
      ExecutionResult r;
      if (stop != null && stop.key() == p.key) {
        r = answer(p, Outcome.LIMIT_EXCEEDED, stop.limit(), stop.message(), Layer.PROCESS_ISOLATION);
      } else if (heap) {
        r = answer(p, Outcome.LIMIT_EXCEEDED, Limit.MEMORY, "its worker process's heap ("
            + (isolation.workerHeapBytes() >> 20) + " MiB) or its memory cgroup ran out, so the worker ended",
            Layer.PROCESS_ISOLATION);
      } else if (closed) {
        r = answer(p, Outcome.CANCELLED, null, "the sandbox was closed", null);
      } else if (stop != null) {
        r = answer(p, Outcome.CANCELLED, null, "another run on its worker process went past its caps, so the worker"
            + " was killed", null);
      } else {
        r = answer(p, Outcome.CANCELLED, null, "its worker process ended unexpectedly ("
            + (w.killedFor != null ? "killed because " + w.killedFor : describeExit(status))
            + "); the run may be tried again", null);
      }
      p.result.complete(r);
    }
    if (!orphans.isEmpty() || w.killedFor != null) {
      LOG.log(System.Logger.Level.INFO, w + " ended (" + describeExit(status) + (w.killedFor != null ? ", killed because "
          + w.killedFor : "") + "); " + orphans.size() + " run(s) on it answered");
    }
    synchronized (this) {
      replenish();
      dispatch();
    }
  }

  /** Runs {@code task} on the monitor after {@code seconds}; once the room is closed, at once on this thread. */
  private void later(Runnable task, long seconds) {
    try {
      monitor.schedule(task, seconds, TimeUnit.SECONDS);
    } catch (RejectedExecutionException closing) {
      task.run();
    }
  }

  private static String describeExit(int status) {
    return status > 128 ? "killed by signal " + (status - 128) : "exit status " + status;
  }

  /** The answer the host makes for a run whose worker ended without giving one. */
  private ExecutionResult answer(Pending p, Outcome outcome, Limit limit, String message, Layer layer) {
    long now = System.nanoTime();
    long dispatched = p.dispatchedNanos == 0 ? now : p.dispatchedNanos;
    List<SandboxEvent> events;
    synchronized (p.events) {
      events = new ArrayList<>(p.events);
    }
    String runId = p.workerRunId != null ? p.workerRunId : UUID.randomUUID().toString();
    if (limit != null) {
      SandboxEvent e = new SandboxEvent.LimitExceeded(Instant.now(), limit, message, layer);
      events.add(e);
      p.runAuditor.publish(runId, p.script.label(), e);
    }
    ExecutionResult.Usage usage = new ExecutionResult.Usage(Duration.ofNanos(now - dispatched),
        Duration.ofNanos(p.cpuNanos), 0, OptionalLong.empty(), 0, 0, 0,
        Duration.ofNanos(dispatched - p.submittedNanos), Duration.ZERO);
    return api.result(new RunRecord(outcome, limit, null, message, List.of(), null, "", "", usage, List.copyOf(events),
        null, ExecutionResult.OutputNotes.NONE, Map.of(), List.of(), runId, p.script.label(), 0, 0, 0));
  }

  private static String format(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
