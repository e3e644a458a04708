package org.polyglotsandbox.internal.engine;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.graalvm.polyglot.Engine;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.internal.audit.Auditor;
import org.polyglotsandbox.internal.boundary.PlainData;
import org.polyglotsandbox.internal.delivery.DeliveryQueue;
import org.polyglotsandbox.internal.filesystem.InterpreterFiles;
import org.polyglotsandbox.internal.limits.RunGuard;
import org.polyglotsandbox.internal.limits.Watchdog;
import org.polyglotsandbox.internal.pool.Admission;
import org.polyglotsandbox.internal.pool.CallerThreads;
import org.polyglotsandbox.internal.pool.CallerThreads.CallerThread;
import org.polyglotsandbox.internal.pool.RunThreads;
import org.polyglotsandbox.internal.pool.WarmPool;
import org.polyglotsandbox.internal.spi.ApiAccess;
import org.polyglotsandbox.internal.spi.SandboxCore;
import org.polyglotsandbox.internal.text.Durations;
import org.polyglotsandbox.internal.tools.ToolBinding;
import org.polyglotsandbox.internal.tools.ToolRegistry;

/**
 * The engine room behind {@code PolyglotSandbox}: one GraalVM engine shared for its code cache, the
 * admission bounds, the run threads, the warm pool, the watchdog, and the runs in progress. Found by
 * the API through {@link SandboxCore.Factory} ({@link EngineRoomProvider}); the API never names it.
 */
final class EngineRoom extends SandboxCore {
  private static final int SOURCES_KEPT = 256;
  private static final long SOURCE_CHARS_KEPT = 16L << 20;
  /** How long the warm pool holds back a refill while guests run and it still has a context ready. */
  private static final Duration REFILL_DEFER = Duration.ofMillis(50);
  /** The share of the cores the JVM must keep busy for the machine to count as saturated (warm pool). */
  private static final double SATURATED_SHARE = 0.75;
  private static final int PROCESSORS = Runtime.getRuntime().availableProcessors();
  /**
   * How long a caller with cores to spare busy-waits for its run's result before parking: long enough for
   * a short task (task B takes about 0.15 ms), short enough that a long run wastes little of a spare core.
   */
  private static final long RESULT_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(500);
  /** How long {@link #close()} waits for the audit listener to take the events still queued for it. */
  private static final Duration AUDIT_DRAIN = Duration.ofSeconds(5);
  /** Output chunks that may wait for the runs' listeners, over all runs of the sandbox. */
  static final int OUTPUT_QUEUE = 1000;
  /** The start timeout of the warm-up runs: the first Python context in a JVM takes seconds, more when busy. */
  private static final Duration WARM_UP_START = Duration.ofMinutes(3);
  /** Numbers each sandbox's audit thread. */
  private static final AtomicInteger SANDBOXES = new AtomicInteger();
  private final Policy policy;
  private final ApiAccess api;
  private final Engine engine;
  /** Keeps recent scripts' sources alive so a repeated script reuses its compiled code. */
  private final SourceCache sources = new SourceCache(SOURCES_KEPT, SOURCE_CHARS_KEPT);
  private final InterpreterFiles interpreterFiles;
  private final Watchdog watchdog;
  private final ToolRegistry toolRegistry;
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  private final Set<GuestRun> active = ConcurrentHashMap.newKeySet();
  private final Admission admission;
  private final RunThreads runThreads;
  /** Threads an embedder may call {@link #run} from, which then run the guest themselves. */
  private final CallerThreads callerThreads;
  private final int warmContexts;
  private final Auditor auditor;
  /** Hands runs' output chunks to their listeners; made at the first run that has one. Guarded by this. */
  private DeliveryQueue<Runnable> outputDelivery;
  private final String outputThreadName;
  private final Duration startTimeout;
  private final boolean singleRun;
  /** The {@code pythonPath} and {@code pythonImports}, set up in each Python context before its run; or null. */
  private final PythonImports pythonImports;
  private volatile WarmPool<Language, RunEnvironment> pool;
  private volatile boolean closed;
  private final int number;
  /**
   * Completes when the warm-up has ended, exceptionally with the {@link IllegalStateException} of a
   * warm-up that failed or a sandbox closed first. Runs wait for it.
   */
  private final CompletableFuture<Void> started = new CompletableFuture<>();
  /** The thread of a warm-up in the background, else null. */
  private volatile Thread starter;

  /**
   * Makes the engine room and runs its warm-up, here or (with {@code inBackground}) on a thread of its
   * own; closes it again if a warm-up here fails.
   */
  static EngineRoom start(Settings settings, ApiAccess api) {
    EngineRoom room = new EngineRoom(settings, api);
    if (settings.inBackground()) {
      Thread t = new Thread(() -> room.warmUpInBackground(settings.warmUp()), "polyglot-sandbox-start-" + room.number);
      t.setDaemon(true);
      room.starter = t;
      t.start();
      return room;
    }
    try {
      room.warmUp(settings.warmUp());
    } catch (RuntimeException e) {
      room.close();
      throw e;
    }
    room.started.complete(null);
    return room;
  }

  private void warmUpInBackground(Duration jitBudget) {
    try {
      warmUp(jitBudget);
      started.complete(null);
    } catch (RuntimeException | Error e) {
      if (closed) {
        started.completeExceptionally(new IllegalStateException("sandbox is closed"));
        return;
      }
      LOG.log(System.Logger.Level.WARNING, "the sandbox could not start: " + e.getMessage(), e);
      started.completeExceptionally(new IllegalStateException("the sandbox could not start: " + e.getMessage(), e));
    }
  }

  @Override
  public CompletionStage<Void> started() {
    return started.minimalCompletionStage();
  }

  /**
   * Waits for a warm-up still going in the background, as {@code build()} would have (its runs are
   * bounded, so this is); then returns, or throws why the sandbox cannot run.
   */
  private void awaitStarted() {
    if (started.isDone() && !started.isCompletedExceptionally()) {
      return;
    }
    try {
      started.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.util.concurrent.CancellationException("interrupted while waiting for the sandbox to start");
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    }
  }

  private EngineRoom(Settings s, ApiAccess api) {
    this.policy = s.policy();
    this.api = api;
    this.number = SANDBOXES.incrementAndGet();
    this.auditor = new Auditor(s.auditListener(), "polyglot-sandbox-audit-" + number);
    this.outputThreadName = "polyglot-sandbox-output-" + number;
    this.singleRun = s.singleRun();
    this.pythonImports = PythonImports.of(s.pythonPath(), s.pythonImports());
    // A single run makes the first context in the JVM itself, which the warm-up would have made.
    this.startTimeout = singleRun && s.startTimeout().compareTo(WARM_UP_START) < 0 ? WARM_UP_START : s.startTimeout();
    this.watchdog = new Watchdog(Watchdog.Ticker.SYSTEM, s.heapThreshold(), true);
    // While the host heap is over budget, new runs wait rather than add to it; while a run stopped for
    // memory has not yet closed its context, even a run alone waits.
    this.admission = new Admission(s.maxConcurrentRuns(), s.maxWaitingRuns(), watchdog::admitsNewRuns,
        watchdog::admitsRunAlone);
    watchdog.onHeapRelief(admission::wake);
    this.warmContexts = s.warmContexts();
    this.runThreads = new RunThreads(policy.limits().stackSize(), "polyglot-sandbox-run-", s.lowerPriorityAfter());
    String cannotLower = s.lowerPriorityAfter() == null ? null : RunThreads.whyPriorityCannotBeLowered();
    if (cannotLower != null) {
      LOG.log(System.Logger.Level.WARNING, "lowerPriorityAfter has no effect: " + cannotLower);
    }
    this.callerThreads = new CallerThreads(this, policy.limits().stackSize(), "polyglot-sandbox-caller-");
    Map<String, ToolBinding> bindings = new LinkedHashMap<>();
    for (Tool t : s.tools()) {
      bindings.put(t.name(), new ToolBinding(t.name(), api.parameters(t), api.resultSchema(t), t.contextualHandler(),
          t.maxCallsPerRun(), t.timeout(), t.maxArgumentBytes(), t.isInline()));
    }
    this.toolRegistry = new ToolRegistry(bindings);
    this.interpreterFiles = InterpreterFiles.locate();
    this.engine = ContextFactory.newEngine(policy.languages(), new LogOutputStream());
    OptimizingRuntime.warnIfInterpreted(engine.getImplementationName());
  }

  @Override
  public String runtimeName() {
    return engine.getImplementationName();
  }

  @Override
  public ExecutionResult run(Script script, Map<String, String> inputs, RunObserver.Run observed) {
    long called = System.nanoTime();
    awaitStarted();
    CompletableFuture<Void> turn = admission.acquire();
    try {
      turn.get(startTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      if (!turn.cancel(false)) {
        admission.release();
      }
      Thread.currentThread().interrupt();
      throw new java.util.concurrent.CancellationException("interrupted while waiting for a turn to run");
    } catch (TimeoutException e) {
      RejectedExecutionException busy = noTurn();
      if (!turn.completeExceptionally(busy)) {
        admission.release(); // the turn came just now, too late
      }
      throw busy;
    } catch (ExecutionException e) {
      throw new IllegalStateException("sandbox is closed");
    }
    GuestRun run;
    try {
      // An interrupted caller goes the usual way: its wait for the result ends at once and cancels the run.
      run = newRun(script, inputs, called,
          Thread.currentThread().isInterrupted() ? null : CallerThreads.current(this), observed);
    } catch (RuntimeException | Error e) {
      admission.release();
      throw e;
    }
    try {
      // On a machine with cores to spare (each waiting caller and its run thread take one each), the caller
      // busy-waits for a short run's result instead of parking, whose wake-up took tens of microseconds:
      // task B from the warm pool 0.258 -> 0.204 ms median on 2 cores (PeersBenchmark, RESULTS.md,
      // 2026-12-04). Beside more runs it parks at once.
      boolean coresToSpare = admission.running() * 2 <= PROCESSORS;
      return run.execute(coresToSpare ? RESULT_SPIN_NANOS : 0);
    } finally {
      finish(run);
    }
  }

  /** Why a run that waited its whole start timeout for a turn did not start. */
  private RejectedExecutionException noTurn() {
    return new RejectedExecutionException("the run did not start within its start timeout of "
        + Durations.format(startTimeout) + " (it waited all of it for a turn: " + admission.running()
        + " running, " + admission.waiting() + " waiting): the sandbox is overloaded; the guest did not run,"
        + " so the run may be tried again");
  }

  @Override
  public CompletableFuture<ExecutionResult> runAsync(Script script, Map<String, String> inputs,
      RunObserver.Run observed) {
    long called = System.nanoTime();
    if (started.isDone()) {
      return started.isCompletedExceptionally() ? CompletableFuture.failedFuture(started.exceptionNow())
          : runAsyncStarted(script, inputs, called, observed);
    }
    // After a warm-up in the background; cancelling the future meanwhile drops the run.
    CompletableFuture<ExecutionResult> out = new CompletableFuture<>();
    started.whenComplete((v, failure) -> {
      if (failure != null) {
        out.completeExceptionally(failure);
        return;
      }
      if (out.isDone()) {
        return;
      }
      CompletableFuture<ExecutionResult> run = runAsyncStarted(script, inputs, called, observed);
      out.whenComplete((r, e) -> {
        if (out.isCancelled()) {
          run.cancel(false);
        }
      });
      run.whenComplete((r, e) -> {
        if (e != null) {
          out.completeExceptionally(e);
        } else {
          out.complete(r);
        }
      });
    });
    return out;
  }

  private CompletableFuture<ExecutionResult> runAsyncStarted(Script script, Map<String, String> inputs, long called,
      RunObserver.Run observed) {
    CompletableFuture<ExecutionResult> out = new CompletableFuture<>();
    CompletableFuture<Void> turn;
    try {
      turn = admission.acquire();
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(e);
    }
    out.whenComplete((r, e) -> turn.cancel(false));
    if (!turn.isDone()) {
      // Fails the turn, which frees its place in the queue; the future then fails from the callback below.
      Watchdog.Timer waited = watchdog.after(startTimeout, () -> turn.completeExceptionally(noTurn()));
      turn.whenComplete((ignored, failure) -> waited.stop());
    }
    turn.whenComplete((ignored, failure) -> {
      if (failure != null) {
        // Completed off the watchdog thread: the embedder's callbacks on the future must not run there.
        Executor completer = watchdog.isWatchdogThread() ? runThreads : Runnable::run;
        Throwable why = failure instanceof java.util.concurrent.CancellationException
            || failure instanceof RejectedExecutionException ? failure : new IllegalStateException("sandbox is closed");
        try {
          completer.execute(() -> out.completeExceptionally(why));
        } catch (RejectedExecutionException closing) {
          out.completeExceptionally(why);
        }
        return;
      }
      if (out.isDone()) {
        admission.release();
        return;
      }
      try {
        GuestRun run = newRun(script, inputs, called, null, observed);
        out.whenComplete((r, e) -> {
          if (out.isCancelled()) {
            run.guard().cancel();
          }
        });
        run.start().whenComplete((r, e) -> {
          // The embedder's callbacks on the future never run on the shared watchdog thread (it completes
          // abandoned runs and runs that did not start in time).
          Executor finisher = watchdog.isWatchdogThread() ? runThreads : Runnable::run;
          Runnable end = () -> {
            try {
              finish(run);
            } finally {
              if (e != null) {
                out.completeExceptionally(e);
              } else {
                out.complete(r);
              }
            }
          };
          try {
            finisher.execute(end);
          } catch (RejectedExecutionException closing) {
            end.run();
          }
        });
      } catch (RuntimeException | Error e) {
        admission.release();
        out.completeExceptionally(e);
      }
    });
    return out;
  }

  @Override
  public int runningRuns() {
    return admission.running();
  }

  @Override
  public int waitingRuns() {
    return admission.waiting();
  }

  @Override
  public ThreadFactory callerThreads() {
    return callerThreads;
  }

  @Override
  public int warmContexts(Language language) {
    WarmPool<Language, RunEnvironment> p = pool;
    return p == null ? 0 : p.ready(language);
  }

  /**
   * A run that holds a turn, with a context from the pool if one is ready, tracked as active; it runs on
   * {@code caller} if not null (one of {@link #callerThreads}'s, calling {@code run}), otherwise on a run
   * thread.
   */
  private GuestRun newRun(Script script, Map<String, String> inputs, long calledNanos, CallerThread caller,
      RunObserver.Run observed) {
    WarmPool<Language, RunEnvironment> p = pool;
    Policy runPolicy = api.policyForRun(script, policy);
    Language language = script.language();
    // The pool's contexts are made with the policy's limits (the statement limit is the context's). Such a
    // run owes the pool a context from here, and its thread makes it when the run is done (onCaller,
    // thenTopUp): the pool's refill thread is left for what the runs in flight will not make.
    boolean owes = p != null && runPolicy == policy;
    RunEnvironment prepared = owes ? p.pollForTopUp(language) : null;
    try {
      GuestRun[] made = new GuestRun[1];
      Executor threads = caller != null ? onCaller(caller, p, language, owes, made)
          : p == null ? runThreads : thenTopUp(p, language, owes);
      GuestRun run = new GuestRun(engine, api, runPolicy, interpreterFiles, watchdog, threads, sources, script,
          inputs, toolRegistry, prepared, calledNanos, startTimeout, pythonImports);
      made[0] = run;
      run.observeWith(observed);
      run.guard().auditTo(auditor.forRun(script.auditedAttributes()), script.label());
      script.outputListener().ifPresent(listener -> run.streamOutputTo(listener, outputDelivery()));
      active.add(run);
      return run;
    } catch (RuntimeException | Error e) {
      // The run never starts: its pooled context is closed, and what it owed is left to the refill thread.
      if (prepared != null) {
        prepared.close();
      }
      if (owes) {
        p.settle(language, false);
      }
      throw e;
    }
  }

  /**
   * Runs a run on {@code caller}, the thread that called {@link #run} (no hand-off, no wait), then, as a
   * run thread would ({@link #thenTopUp}), makes a context for the pool. A cancellation by the sandbox (a
   * cap, {@link #close}) may leave the thread interrupted: that interrupt is the sandbox's and is cleared;
   * one that came while the guest ran and the sandbox did not stop it is the caller's and is kept.
   */
  private Executor onCaller(CallerThread caller, WarmPool<Language, RunEnvironment> p, Language language,
      boolean owes, GuestRun[] run) {
    return body -> caller.runGuest(() -> {
      try {
        body.run();
      } finally {
        boolean interrupted = Thread.interrupted();
        replace(p, language, owes);
        if (interrupted && !run[0].guard().isCancelled()) {
          caller.interrupt();
        }
      }
    });
  }

  /**
   * The run threads, each of which, once its run is over (result handed over, context closed), makes a
   * context for {@code pool} if it has room: under a steady stream of runs each run replaces the context
   * it took (or would have taken), so the pool does not run dry when more runs arrive than one refill
   * thread can serve, and the next context is made while the caller reads this run's result. The
   * interrupt status a cancelled guest may have left is cleared first: the context is the sandbox's, made
   * for a later run.
   */
  private Executor thenTopUp(WarmPool<Language, RunEnvironment> p, Language language, boolean owes) {
    return run -> {
      try {
        runThreads.execute(() -> {
          try {
            run.run();
          } finally {
            Thread.interrupted();
            replace(p, language, owes);
          }
        });
      } catch (RuntimeException | Error e) {
        if (owes) {
          p.settle(language, false); // no thread: the run fails, and owes nothing
        }
        throw e;
      }
    };
  }

  /**
   * A run's thread, when the run is over: makes a context for {@code p} if it has room, unless the
   * sandbox is closing or the host heap is over budget (then the refill thread waits too, unless the pool
   * is empty). A run that {@code owes} the pool a context settles that debt either way.
   */
  private void replace(WarmPool<Language, RunEnvironment> p, Language language, boolean owes) {
    if (p == null) {
      return;
    }
    boolean make = !closed && watchdog.admitsNewRuns();
    if (owes) {
      p.settle(language, make);
    } else if (make) {
      p.topUp(language);
    }
  }

  /** Ends a run started by {@link #newRun}: untracks it, frees its turn. */
  private void finish(GuestRun run) {
    active.remove(run);
    admission.release();
    WarmPool<Language, RunEnvironment> p = pool;
    if (p != null) {
      p.wake();
    }
  }

  /** A context for the pool: made and initialised off any run's path, with its own guard and output. */
  private RunEnvironment prepare(Language language) {
    RunGuard guard = new RunGuard(watchdog.canceller());
    return RunEnvironment.create(engine, policy, language, interpreterFiles, toolRegistry, guard,
        RunEnvironment.newOutput(policy.limits(), guard)).initialize(pythonImports);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    started.completeExceptionally(new IllegalStateException("sandbox is closed"));
    admission.close();
    Thread s = starter;
    if (s != null && s.isAlive()) {
      // Its warm-up run is cancelled by the interrupt; a later one fails once the run threads are closed.
      s.interrupt();
      try {
        s.join(GuestRun.GRACE.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    WarmPool<Language, RunEnvironment> p = pool;
    if (p != null) {
      p.close();
    }
    // A guest stuck in host code that ignores interrupts (an inline tool handler) would hold close(): each
    // run has GuestRun.GRACE to stop after its cancel, then its result is completed without it.
    List<GuestRun> running = List.copyOf(active);
    running.forEach(GuestRun::cancel);
    long giveUpAt = System.nanoTime() + GuestRun.GRACE.toNanos();
    for (GuestRun run : running) {
      run.awaitOrAbandon(giveUpAt);
    }
    runThreads.close();
    watchdog.close();
    toolRegistry.close();
    closeEngine();
    // Last: the cancelled runs' events and output are queued by now.
    auditor.close(AUDIT_DRAIN);
    DeliveryQueue<Runnable> output;
    synchronized (this) {
      output = outputDelivery;
    }
    if (output != null) {
      output.close(AUDIT_DRAIN);
    }
  }

  /** The queue to the runs' output listeners, started on first use. */
  private synchronized DeliveryQueue<Runnable> outputDelivery() {
    if (outputDelivery == null) {
      outputDelivery = new DeliveryQueue<>("a run's output listener", outputThreadName, OUTPUT_QUEUE, Runnable::run);
    }
    return outputDelivery;
  }

  /** Closes the engine on a thread of its own, waiting at most {@link GuestRun#GRACE} for it. */
  private void closeEngine() {
    Thread closer = new Thread(() -> {
      try {
        engine.close(true);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "engine did not close cleanly", e);
      }
    }, "polyglot-sandbox-engine-close");
    closer.setDaemon(true);
    closer.start();
    try {
      closer.join(GuestRun.GRACE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (closer.isAlive()) {
      LOG.log(System.Logger.Level.WARNING, "the engine is still closing (a guest thread is held in host code);"
          + " close() returns, the engine closes when that thread returns");
    }
  }

  @Override
  public long undeliveredAuditEvents() {
    return auditor.undelivered();
  }

  private void warmUp(Duration jitBudget) {
    if (singleRun) {
      checkPythonHome(); // the one check a single run still needs before its context
      watchdog.noteHostBaseline();
      return;
    }
    // Runs ordinary calls first: if unbounded recursion were the first guest code in this JVM, Truffle's
    // class initialisation could fail and break every later context in the JVM.
    for (Language language : policy.languages()) {
      if (language == Language.PYTHON) {
        // Before any Python context reads it; a home GraalVM has yet to extract is checked after the warm-up.
        interpreterFiles.verifyIfExtracted();
      }
      ExecutionResult r = warmUpRun(language, WarmUp.code(language));
      if (language == Language.PYTHON) {
        interpreterFiles.requireVirtualHome(r.value());
        interpreterFiles.verify();
      }
      // Every path a run can end on, taken once now: a class or call site first initialised later could
      // fall on a heap that a guest is filling, and a class whose initialiser fails then breaks every
      // later run in the JVM.
      warmUpRun(language, WarmUp.withInputs(language), Map.of("warm", PlainData.toJson(WarmUp.INPUT,
          PlainData.Format.strict(64, 1000))), WARM_UP_LIMITS, Outcome.OK);
      warmUpRun(language, WarmUp.guestError(language), Map.of(), WARM_UP_LIMITS, Outcome.GUEST_ERROR);
      warmUpRun(language, WarmUp.allocate(language), Map.of(), Limits.builder().wallTime(Duration.ofMinutes(3))
          .maxAllocatedBytes(1 << 20).build(), Outcome.LIMIT_EXCEEDED);
    }
    watchdog.noteHostBaseline();
    // Made with the imports before the pool, which gets it as its first Python context: no extra context.
    RunEnvironment checked = pythonImports == null || !pythonImports.imports() ? null : checkPythonImports();
    if (warmContexts > 0) {
      // A refill waits for running guests to finish (at most REFILL_DEFER) unless the pool ran empty.
      // Saturated: as many runs as cores, and the JVM keeping most cores busy (runs that wait for tools or
      // timers leave them to the refill thread); an empty pool is then left to the runs that owe it contexts.
      WarmPool<Language, RunEnvironment> made = new WarmPool<>(policy.languages(), warmContexts, this::prepare,
          "polyglot-sandbox-warm-pool", () -> admission.running() > 0 || !watchdog.admitsNewRuns(), REFILL_DEFER,
          () -> admission.running() >= PROCESSORS && !(watchdog.busyCores() < SATURATED_SHARE * PROCESSORS));
      pool = made;
      if (checked != null) {
        made.offer(Language.PYTHON, checked); // closed by the pool if it has no room or is closed already
        checked = null;
      }
      if (closed) {
        made.close(); // closed during a warm-up in the background, perhaps after close() looked for the pool
        throw new IllegalStateException("sandbox is closed");
      }
    }
    if (checked != null) {
      checked.close();
    }
    if (jitBudget.isZero()) {
      return;
    }
    // Representative work through the whole run path, so the JIT has compiled the sandbox's own code
    // (context set-up, copy-out) and the languages' common paths before the first real request.
    long end = System.nanoTime() + jitBudget.toNanos();
    int i = 0;
    while (System.nanoTime() < end) {
      for (Language language : policy.languages()) {
        warmUpRun(language, WarmUp.representative(language, i++));
      }
    }
    if (pool != null) {
      try {
        if (!pool.awaitFull(Duration.ofMinutes(2))) {
          System.getLogger("org.polyglotsandbox").log(System.Logger.Level.WARNING,
              "warm pool not full after 2 minutes; build() returns anyway");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Makes one Python context with the sandbox's imports, so that a module that cannot be imported fails
   * the start, naming it, rather than every run; returns it unused, for the pool.
   */
  private RunEnvironment checkPythonImports() {
    try {
      return prepare(Language.PYTHON);
    } catch (PythonImports.Failed e) {
      throw e;
    } catch (RuntimeException e) {
      throw new IllegalStateException("pythonImports: the imports did not complete in a fresh context under the"
          + " policy's limits: " + e.getMessage(), e);
    }
  }

  /**
   * For a single-run sandbox: GraalPy's extracted home checked against the artifact before the run's
   * context reads it (every Python context checks its own {@code sys.prefix}, RunEnvironment). If
   * GraalVM has yet to extract the home (the first Python context on this machine), one context with
   * the shortest program extracts it first, so that it is checked before any guest code.
   */
  private void checkPythonHome() {
    if (!policy.allows(Language.PYTHON) || interpreterFiles.verifyIfExtracted()) {
      return;
    }
    interpreterFiles.requireVirtualHome(warmUpRun(Language.PYTHON, "import sys\nsys.prefix").value());
    interpreterFiles.verify();
  }

  private ExecutionResult warmUpRun(Language language, String code) {
    return warmUpRun(language, code, Map.of(), WARM_UP_LIMITS, Outcome.OK);
  }

  private ExecutionResult warmUpRun(Language language, String code, Map<String, String> inputs, Limits limits,
      Outcome expected) {
    // Trusted code; the first Python context in a JVM takes seconds (more on a busy machine), hence
    // WARM_UP_START, and the generous wall time is for the JIT on a slow machine.
    Policy warm = Policy.builder().allowLanguages(language).limits(limits).build();
    Script warmUp = Script.of(language, code).named("warm-up" + language.extensions().get(0));
    ExecutionResult r = new GuestRun(engine, api, warm, interpreterFiles, watchdog, runThreads, sources, warmUp, inputs,
        ToolRegistry.none(), null, System.nanoTime(), WARM_UP_START, null).execute(0);
    if (r.outcome() != expected) {
      throw new IllegalStateException("the " + language.id() + " warm-up failed: " + r.outcome() + " "
          + r.errorMessage().orElse(""));
    }
    return r;
  }

  /** Trusted code, but the first Python context in a JVM takes seconds (more on a busy machine). */
  private static final Limits WARM_UP_LIMITS = Limits.builder().wallTime(Duration.ofMinutes(3)).build();

  private static final class WarmUp {
    /** An input of every kind of plain data. */
    static final Map<String, Object> INPUT = Map.of("n", 3, "x", 2.5, "s", "text", "b", true,
        "l", List.of(1, "a", List.of()), "big", new java.math.BigInteger("123456789012345678901234567890"));

    /** Reads the input and returns a value of every kind the copy-out knows. */
    static String withInputs(Language language) {
      return switch (language) {
        case JAVASCRIPT -> "({n: warm.n * 2, x: warm.x, s: warm.s + '!', b: !warm.b, z: null,"
            + " l: warm.l.concat([[1.5]]), m: new Map([['k', 1]]).size, big: String(warm.big)})";
        case PYTHON -> "{'n': warm['n'] * 2, 'x': warm['x'], 's': warm['s'] + '!', 'b': not warm['b'],"
            + " 'z': None, 'l': warm['l'] + [[1.5], (2,)], 'big': warm['big'] * 2}";
      };
    }

    static String guestError(Language language) {
      return switch (language) {
        case JAVASCRIPT -> "function f() { throw new TypeError('warm-up'); }\nf();";
        case PYTHON -> "def f():\n    raise ValueError('warm-up')\nf()";
      };
    }

    /** Allocates past a 1 MiB cap, then spins until the watchdog stops it: a tripped limit, a cancelled context. */
    static String allocate(Language language) {
      return switch (language) {
        case JAVASCRIPT -> "const keep = [];\nfor (let i = 0; i < 500; i++) keep.push(new Array(1000).fill(0));\nfor (;;) {}";
        case PYTHON -> "keep = [[0] * 1000 for i in range(500)]\nwhile True:\n    pass";
      };
    }

    static String code(Language language) {
      return switch (language) {
        case JAVASCRIPT -> "function f(n) { return n <= 0 ? 0 : 1 + f(n - 1); }\n"
            + "let s = 0; for (let i = 0; i < 200; i++) { s += f(20); } s;";
        case PYTHON -> "import sys\n"
            + "def f(n):\n    return 0 if n <= 0 else 1 + f(n - 1)\n"
            + "s = 0\nfor i in range(200):\n    s += f(20)\nsys.prefix";
      };
    }

    /** Small programs shaped like typical tasks: build records, aggregate, return data. */
    static String representative(Language language, int salt) {
      return switch (language) {
        case JAVASCRIPT -> "const rows = [];\n"
            + "for (let i = 0; i < 100; i++) { rows.push({id: i, price: i % 13 + 0.5, qty: i % 7}); }\n"
            + "let t = 0; for (const r of rows) { t += r.price * r.qty; }\n"
            + "JSON.parse(JSON.stringify({total: t, first: rows[0], n: " + salt + "}));";
        case PYTHON -> "import json\n"
            + "rows = [{'id': i, 'price': i % 13 + 0.5, 'qty': i % 7} for i in range(100)]\n"
            + "t = sum(r['price'] * r['qty'] for r in rows)\n"
            + "json.loads(json.dumps({'total': t, 'first': rows[0], 'n': " + salt + "}))";
      };
    }
  }
}
