package org.polyglotsandbox.internal.engine;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.polyglotsandbox.ExecutionResult.OutputChunk;
import org.polyglotsandbox.ExecutionResult.OutputFile;
import org.polyglotsandbox.ExecutionResult.OutputNotes;
import org.polyglotsandbox.ExecutionResult.Usage;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.internal.PythonJson;
import org.polyglotsandbox.internal.boundary.BoundedOutput;
import org.polyglotsandbox.internal.boundary.JsonSchema;
import org.polyglotsandbox.internal.boundary.OutputFileCollector;
import org.polyglotsandbox.internal.boundary.ResultSchemaCheck;
import org.polyglotsandbox.internal.boundary.TextSanitizer;
import org.polyglotsandbox.internal.boundary.ValueCopier;
import org.polyglotsandbox.internal.boundary.ValueRejectedException;
import org.polyglotsandbox.internal.delivery.DeliveryQueue;
import org.polyglotsandbox.internal.filesystem.GuestFileSystem;
import org.polyglotsandbox.internal.filesystem.InterpreterFiles;
import org.polyglotsandbox.internal.limits.RunGuard;
import org.polyglotsandbox.internal.limits.RunMeter;
import org.polyglotsandbox.internal.limits.Watchdog;
import org.polyglotsandbox.internal.text.Durations;
import org.polyglotsandbox.internal.spi.ApiAccess;
import org.polyglotsandbox.internal.spi.RunRecord;
import org.polyglotsandbox.internal.tools.ToolRegistry;

/**
 * One run: a fresh file system and context on a run thread of its own, a watchdog deadline, the result
 * copied out, and everything closed by the run thread as soon as the result is handed over.
 *
 * <p>Two clocks. The run's start (waiting for a thread, making or taking the context, copying the
 * mounts in, binding the inputs: the sandbox's work) is bounded by the start timeout, counted from
 * the call to {@code run}; past it the run fails with {@link RejectedExecutionException} and the guest
 * never starts. The guest's own limits (its wall-clock deadline, CPU time, allocation, statements)
 * count from its program's first statement, so a busy sandbox never spends a guest's budget.
 */
final class GuestRun {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  /**
   * How long the caller waits for a cancelled guest thread before giving up on it: from its cancellation
   * (a CPU or heap cap, a cancel) or from its deadline, whichever comes first.
   */
  static final Duration GRACE = Duration.ofSeconds(5);

  private record Raw(Object value, ErrorClassifier.Verdict failure, long fileBytes, long files,
      OutputFileCollector.Collected outputs) {
    Raw(Object value, ErrorClassifier.Verdict failure) {
      this(value, failure, 0, 0, null);
    }

    Raw withFiles(GuestFileSystem fs, OutputFileCollector.Collected outputs) {
      return new Raw(value, failure, fs.bytesUsed(), fs.files(), outputs);
    }

    /** Whether the program ran to its end (or exited with status 0): only then is its output judged. */
    boolean finished() {
      return failure == null || failure.outcome() == Outcome.OK;
    }
  }

  // Internal sources are constants: the engine keeps their code only while the Source object lives.
  private static final Source JAVASCRIPT_INPUT_PARSER =
      Source.newBuilder("js", "JSON.parse", "inputs").internal(true).buildLiteral();
  private static final Source PYTHON_INPUT_PARSER = Source.newBuilder("python",
      "(lambda scan: lambda text: scan(text, 0)[0])(" + PythonJson.SCANNER + ")", "inputs").internal(true)
      .buildLiteral();
  /**
   * GraalPy answers a program whose last statement is not an expression, or whose last expression is
   * None, with the {@code __main__} module itself; that module, read before the guest runs, is how the
   * run tells that its value is null (as a JavaScript program ending in a statement is).
   */
  private static final Source PYTHON_MAIN_MODULE =
      Source.newBuilder("python", "__import__('sys').modules['__main__']", "main").internal(true).buildLiteral();

  private final Engine engine;
  private final ApiAccess api;
  private final Policy policy;
  private final InterpreterFiles interpreterFiles;
  private final Watchdog watchdog;
  private final Executor threads;
  private final Script script;
  /** The script's source, from the sandbox's {@link SourceCache} so that a repeated script reuses its code. */
  private final Source source;
  /** Where {@link #source} came from; also keeps the async-function form of a program with top-level await. */
  private final SourceCache sources;
  /** The script's inputs as JSON text, encoded (and checked) once by the caller. */
  private final Map<String, String> inputs;
  private final RunGuard guard;
  private final BoundedOutput output;
  private final RunMeter meter;
  private final ToolRegistry tools;
  /** Prepared in advance by the warm pool, or null: the run then makes its own. */
  private final RunEnvironment prepared;
  private final AtomicBoolean finished = new AtomicBoolean();
  private final CompletableFuture<ExecutionResult> result = new CompletableFuture<>();
  /** {@link System#nanoTime()} when {@code run} was called: the start timeout counts from here. */
  private final long calledNanos;
  private final Duration startTimeout;
  /** {@link #SETUP} until the guest starts ({@link #GUEST}) or the start times out ({@link #NOT_STARTED}). */
  private final AtomicInteger phase = new AtomicInteger(SETUP);
  private static final int SETUP = 0;
  private static final int GUEST = 1;
  private static final int NOT_STARTED = 2;
  /** Nanoseconds from the call until the run's thread took it, or -1 before that. */
  private volatile long queueNanos = -1;
  /** Nanoseconds the run's thread spent before the guest's first statement, or -1 before that. */
  private volatile long setupNanos = -1;
  /** {@link System#nanoTime()} at the guest's first statement; meaningful once {@link #setupNanos} is set. */
  private volatile long guestNanos;
  /** The guest's deadline, once it started. */
  private volatile Watchdog.Watch watch;
  private volatile Thread runner;
  /** What the run's thread is doing before the guest starts, for the start timeout's message. */
  private volatile String step = "waiting for a thread";
  /** The sandbox's imports for a Python context this run makes itself ({@link PythonImports}), or null. */
  private final PythonImports pythonImports;
  /** The environment in use, once the guest thread has it; closed by that thread after the result. */
  private volatile RunEnvironment environment;
  /** Told of each call of a tool's handler; set before the run starts. */
  private volatile RunObserver.Run observed = RunObserver.Run.NONE;

  GuestRun(Engine engine, ApiAccess api, Policy policy, InterpreterFiles interpreterFiles, Watchdog watchdog,
      Executor threads, SourceCache sources, Script script, Map<String, String> inputs,
      ToolRegistry tools, RunEnvironment prepared, long calledNanos, Duration startTimeout,
      PythonImports pythonImports) {
    this.calledNanos = calledNanos;
    this.pythonImports = pythonImports;
    this.startTimeout = startTimeout;
    this.threads = threads;
    this.source = sources.get(script.language(), script.name(), script.code());
    this.sources = sources;
    this.engine = engine;
    this.api = api;
    this.policy = policy;
    this.interpreterFiles = interpreterFiles;
    this.watchdog = watchdog;
    this.script = script;
    this.inputs = inputs;
    this.tools = tools;
    this.prepared = prepared == null ? null : prepared.claim();
    this.guard = prepared != null ? prepared.guard() : new RunGuard(watchdog.canceller());
    this.output = prepared != null ? prepared.output() : RunEnvironment.newOutput(policy.limits(), guard);
    this.meter = new RunMeter(guard, policy.limits().maxCpuTime(), policy.limits().maxAllocatedBytes());
  }

  /** Tells {@code observed} of each call of a tool's handler in this run. Call before it starts. */
  void observeWith(RunObserver.Run observed) {
    this.observed = observed;
  }

  /** Streams this run's output to {@code listener} through {@code queue} (never blocking the guest). Call before it starts. */
  void streamOutputTo(Consumer<? super OutputChunk> listener, DeliveryQueue<Runnable> queue) {
    String runId = guard.runId();
    output.streamTo((stderr, text) -> {
      OutputChunk chunk = new OutputChunk(runId, stderr ? OutputChunk.Stream.STDERR : OutputChunk.Stream.STDOUT, text);
      return queue.offer(() -> listener.accept(chunk));
    });
  }

  RunGuard guard() {
    return guard;
  }

  /** Cancels the guest (the sandbox is closing); its result follows when the guest stops. */
  void cancel() {
    guard.cancel();
  }

  /**
   * Waits until {@code giveUpAtNanos} ({@link System#nanoTime()}) for the result of a cancelled run; a guest
   * still running then (held in host code that ignores interrupts) is abandoned: its result is completed
   * as cancelled without it, and its thread closes its context whenever it returns.
   */
  void awaitOrAbandon(long giveUpAtNanos) {
    try {
      result.get(Math.max(0, giveUpAtNanos - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      logQuietly(System.Logger.Level.WARNING, "a guest thread did not stop when the sandbox closed; abandoned", null);
      finishWaiting(new Raw(null, ErrorClassifier.cancelled(ABANDONED)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // it did not start (its start timeout): nothing to abandon
    }
  }

  /**
   * Runs to the end on the calling thread's behalf; an interrupt of the caller cancels the guest.
   *
   * @param spinNanos how long the caller may busy-wait for the result before it parks (0: not at all);
   *     a short run's result then reaches it without the wake-up a parked thread needs
   * @throws RejectedExecutionException if the run did not start within its start timeout
   */
  ExecutionResult execute(long spinNanos) {
    if (Thread.currentThread().isInterrupted()) {
      // Interrupted before the call: the guest never starts, however soon its thread would finish it (a
      // preempted caller could otherwise find a fast run's result already in, and hand over OK).
      guard.cancel();
    }
    start();
    try {
      if (spinNanos > 0) {
        long until = System.nanoTime() + spinNanos;
        while (!result.isDone() && System.nanoTime() - until < 0 && !Thread.currentThread().isInterrupted()) {
          Thread.onSpinWait();
        }
      }
      if (Thread.interrupted()) {
        // As if the wait below had been interrupted: CompletableFuture.get() would hand over a result
        // that is already in without looking at the interrupt, so whether an interrupted caller's run is
        // cancelled would depend on how fast its run thread was.
        throw new InterruptedException();
      }
      return result.get();
    } catch (InterruptedException e) {
      guard.cancel();
      Thread.currentThread().interrupt();
      try {
        finish(new Raw(null, ErrorClassifier.cancelled("run cancelled: the host thread was interrupted")));
      } catch (OutOfMemoryError noRoom) {
        // The guest is cancelled: its thread, or the watchdog past the grace, finishes the run.
      }
      try {
        return result.join();
      } catch (java.util.concurrent.CompletionException notStarted) {
        throw rethrown(notStarted.getCause());
      }
    } catch (ExecutionException e) {
      throw rethrown(e.getCause());
    }
  }

  private static RuntimeException rethrown(Throwable cause) {
    // A new exception, so that its stack trace is the caller's, not the watchdog's.
    return cause instanceof RejectedExecutionException r ? new RejectedExecutionException(r.getMessage())
        : new IllegalStateException("sandbox run failed", cause);
  }

  /**
   * Starts the run on its own thread and returns at once. The future completes when the guest ends or,
   * if it ignores cancellation, {@link #GRACE} after its cancellation or its deadline, whichever is
   * first. It completes exceptionally, with {@link RejectedExecutionException}, only if the guest did
   * not start within the start timeout.
   */
  CompletableFuture<ExecutionResult> start() {
    long left = calledNanos + startTimeout.toNanos() - System.nanoTime();
    Watchdog.Timer startTimer = watchdog.after(Duration.ofNanos(Math.max(0, left)), this::startTimedOut);
    result.whenComplete((r, e) -> {
      startTimer.stop();
      stopWatch();
    });
    try {
      threads.execute(() -> {
        queueNanos = System.nanoTime() - calledNanos;
        runner = Thread.currentThread();
        // Whatever happens here, the context is closed at the end: one left open holds everything its
        // guest allocated for as long as the engine lives (eight allocation bombs in a 384 MiB heap: a run
        // thread that met OutOfMemoryError while logging died before closing, and the heap stayed full).
        try {
          Raw raw;
          try {
            raw = body();
          } catch (OutOfMemoryError e) {
            raw = outOfHeap();
          } catch (Throwable t) {
            raw = new Raw(null, internalError());
            logQuietly(System.Logger.Level.ERROR, "sandbox run failed", t);
          }
          stopWatch();
          finish(raw);
        } catch (Throwable t) {
          // finish() itself failed: the caller must still get an answer, and the context is closed below.
          if (t instanceof OutOfMemoryError) {
            Watchdog.heapExhausted();
          }
          logQuietly(System.Logger.Level.ERROR, "finishing a run failed", t);
          result.completeExceptionally(t);
        } finally {
          // Closed after the result is handed over (closing a Python context takes tens of ms), still on
          // this thread, before it takes another run.
          closeEnvironment();
        }
      });
    } catch (RejectedExecutionException | OutOfMemoryError e) {
      // No thread to run on (closing, or the JVM is out of native threads): the run fails, the host
      // keeps serving.
      LOG.log(System.Logger.Level.ERROR, "could not start a guest thread", e);
      startTimer.stop();
      releaseWatch();
      closePrepared();
      finishWaiting(new Raw(null, internalError()));
    }
    return result;
  }

  /**
   * The end of the sandbox's work and the start of the guest's: from here its deadline runs. Called on
   * the run's thread just before the program's first statement.
   *
   * @return false if the guest must not start: the start timed out, or the host cancelled the run
   */
  private boolean guestStarts() {
    if (guard.isCancelled() || !phase.compareAndSet(SETUP, GUEST)) {
      return false;
    }
    long now = System.nanoTime();
    guestNanos = now;
    setupNanos = now - calledNanos - queueNanos;
    watch = watchdog.watch(guard, meter, policy.limits().wallTime(), GRACE, this::abandon);
    if (result.isDone()) {
      stopWatch();
    }
    return true;
  }

  /** On the watchdog thread, {@link #GRACE} past the cancellation or the deadline: the guest ignored it. */
  private void abandon() {
    if (!result.isDone()) {
      Thread t = runner;
      logQuietly(System.Logger.Level.WARNING,
          "guest thread " + (t == null ? "(not started)" : t.getName()) + " did not stop after cancellation; abandoned",
          null);
      // The limit that stopped it, if one did (a limit wins over this verdict); otherwise a cancel did. If no
      // result finds room in the heap, this throws and the watchdog's next look tries again.
      finish(new Raw(null, ErrorClassifier.cancelled(ABANDONED)));
    }
  }

  private void stopWatch() {
    Watchdog.Watch w = watch;
    if (w != null) {
      w.stop();
    }
  }

  /** Ends the run's share of the heap budget (a run whose guest never started has none). */
  private void releaseWatch() {
    Watchdog.Watch w = watch;
    if (w != null) {
      w.release();
    }
  }

  /**
   * On the watchdog thread, at the start timeout: a run still being set up fails with
   * {@link RejectedExecutionException} and its guest never starts. Must not block.
   */
  private void startTimedOut() {
    if (!phase.compareAndSet(SETUP, NOT_STARTED)) {
      return;
    }
    guard.cancel(); // closes a context being prepared, on a cancel thread
    if (finished.compareAndSet(false, true)) {
      RejectedExecutionException why;
      try {
        guard.seal();
        long now = System.nanoTime();
        long queued = queuedNanos(now);
        String where = queueNanos < 0 ? "was still waiting for a thread"
            : "then set up for " + Durations.format(Duration.ofNanos(now - calledNanos - queued)) + " and was still "
                + step;
        why = new RejectedExecutionException("the run did not start within its start timeout"
            + " of " + Durations.format(startTimeout) + " (it waited " + Durations.format(Duration.ofNanos(queued))
            + " for a turn and a thread, " + where + "): the sandbox is overloaded, or the set-up too large;"
            + " the guest did not run, so the run may be tried again");
      } catch (OutOfMemoryError noRoom) {
        why = NOT_STARTED_HEAP_FULL;
      }
      try {
        result.completeExceptionally(why);
      } catch (OutOfMemoryError noRoom) {
        // Not even that: the run is unfinished again, and its cancelled thread finishes it (CANCELLED).
        finished.set(false);
      }
    }
  }

  /** Why a run did not start, when the start timeout found no heap for the whole story. */
  private static final RejectedExecutionException NOT_STARTED_HEAP_FULL = new RejectedExecutionException(
      "the run did not start within its start timeout while the host heap was full: the sandbox is overloaded;"
          + " the guest did not run, so the run may be tried again") {
    @Override
    public synchronized Throwable fillInStackTrace() {
      return this; // shared: no thread's stack
    }
  };

  /**
   * Builds the result once: from the guest thread, the abandon timer or an interrupted caller. A result
   * that cannot be built for want of heap is built again: on the run's own thread after its context is
   * closed (its guest's memory is then free), then in its lean form ({@link #leanResult}); elsewhere (the
   * watchdog must not wait) in its lean form at once, and if even that finds no room, not at all: the run
   * is then unfinished again and this throws, for the watchdog's next look or the run's thread to finish
   * it. Only a run thread that found no room through all its tries fails the result.
   *
   * @throws OutOfMemoryError if called off the run's thread and no result could be built
   */
  private void finish(Raw raw) {
    if (!finished.compareAndSet(false, true)) {
      return;
    }
    boolean onRunner = Thread.currentThread() == runner;
    int fullTries = onRunner ? FULL_TRIES : 1;
    int tries = onRunner ? FULL_TRIES + LEAN_TRIES : 2;
    for (int attempt = 1; ; attempt++) {
      try {
        result.complete(attempt <= fullTries ? result(raw, output, System.nanoTime()) : leanResult(System.nanoTime()));
        return;
      } catch (OutOfMemoryError e) {
        Watchdog.heapExhausted();
        if (attempt >= tries) {
          if (!onRunner) {
            finished.set(false);
            throw e;
          }
          result.completeExceptionally(e);
          return;
        }
        if (onRunner) {
          closeEnvironment();
          try {
            Thread.sleep(Math.min(500, 20L * attempt));
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
          }
        }
      }
    }
  }

  /**
   * {@link #finish} on a thread that may wait (one closing the sandbox, or one that could not start the run's
   * thread): tried again while the heap has no room, for about 10 s; the result then fails with the error.
   */
  private void finishWaiting(Raw raw) {
    for (int attempt = 1; ; attempt++) {
      try {
        finish(raw);
        return;
      } catch (OutOfMemoryError e) {
        if (attempt >= 50) {
          result.completeExceptionally(e);
          return;
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** How often the run's thread tries to build the whole result, and then the lean one: about 7 s, then 20 s. */
  private static final int FULL_TRIES = 20;
  private static final int LEAN_TRIES = 40;

  /**
   * The result of a run whose whole result found no room in the host heap: {@link Limit#MEMORY}, with
   * none of its output, value, files or events (the output's bytes are counted as dropped), which are what
   * can be large. Allocates a few small objects.
   */
  private ExecutionResult leanResult(long endNanos) {
    Usage usage = usage(endNanos, OptionalLong.empty(), 0, 0);
    TextSanitizer.Result none = new TextSanitizer.Result("", 0, 0, 0, 0);
    OutputNotes notes = new OutputNotes(changes(none, output.stdoutBytes()), changes(none, output.stderrBytes()),
        OutputNotes.Changes.NONE);
    int events = guard.seal().size();
    return api.result(new RunRecord(Outcome.LIMIT_EXCEEDED, Limit.MEMORY, null, LEAN_RESULT, List.of(), null, "", "",
        usage, List.of(), null, notes, Map.of(), List.of(), guard.runId(), guard.label(), output.undeliveredChunks(),
        guard.droppedEvents() + events, guard.undeliveredEvents()));
  }

  private static final String LEAN_RESULT = "limit exceeded: the host heap ran out while the run ended, so its"
      + " output, value and events were dropped";

  /** The host heap ran out in the sandbox's own work for this run: its guest's memory limit, not a failure. */
  private Raw outOfHeap() {
    Watchdog.heapExhausted();
    try {
      guard.trip(Limit.MEMORY, HEAP_RAN_OUT, Layer.WATCHDOG, false);
      return new Raw(null, null);
    } catch (OutOfMemoryError stillFull) {
      // The trip could not be recorded: the verdict says memory instead (a tripped guard would win over it).
      return new Raw(null, new ErrorClassifier.Verdict(Outcome.LIMIT_EXCEEDED, Limit.MEMORY, HEAP_RAN_OUT,
          List.of(), null, null));
    }
  }

  private static final String HEAP_RAN_OUT = "the host heap ran out while the guest ran";
  private static final String ABANDONED = "run cancelled by the host (its guest did not stop and was abandoned)";

  /** Closes the run's environment (on its thread, once), then ends the run's share of the heap budget. */
  private void closeEnvironment() {
    try {
      RunEnvironment env = environment;
      if (env != null) {
        env.close();
      }
    } catch (Throwable e) {
      // The result is out; what failed here must not end the thread with a trace on System.err.
      logQuietly(System.Logger.Level.ERROR, "closing a run's context failed", e);
    } finally {
      releaseWatch(); // only now is what the guest held unreachable
    }
  }

  /** Logs, unless logging itself fails (it allocates, and the heap may be full). */
  private static void logQuietly(System.Logger.Level level, String message, Throwable t) {
    try {
      LOG.log(level, message, t);
    } catch (Throwable ignored) {
      Watchdog.heapExhausted();
    }
  }

  private void closePrepared() {
    if (prepared != null) {
      prepared.close();
    }
  }

  /** Makes (or takes) the environment, copies the mounts in and runs; the caller closes the environment. */
  private Raw body() {
    meter.startCharging();
    RunEnvironment env = prepared;
    step = "comparing a pooled context's mounts with the host";
    if (env != null && !env.mountsStillCurrent()) {
      // Made with the mounts copied in for the pythonImports, and a host file has changed since: the
      // modules it imported may be stale, so the run makes its own context as if the pool were empty.
      LOG.log(System.Logger.Level.DEBUG, "a pooled context's mounts no longer match the host; making a new one");
      env.close();
      env = null;
    }
    if (env == null) {
      step = "making its context";
      for (int attempt = 1; ; attempt++) {
        try {
          env = RunEnvironment.create(engine, policy, script.language(), interpreterFiles, tools, guard, output)
              .claim();
          environment = env;
          // Initialising the language (for Python, most of a fresh context's cost) is the sandbox's work:
          // done here, before the guest's clock starts, as the warm pool does it in advance.
          env.initialize(pythonImports);
          break;
        } catch (RuntimeException | OutOfMemoryError e) {
          if (guard.tripped() != null) {
            return new Raw(null, null);
          }
          if (guard.isCancelled()) {
            return cancelledByHost();
          }
          if (outOfMemory(e) && phase.get() == SETUP) {
            // The host heap is full of a neighbour's (or a just-ended bomb's) data, not this guest's: the
            // context is made again once memory is freed, until the start timeout says the sandbox is
            // overloaded (BombBatteryTest: a Python context made right after a bomb raised MemoryError).
            RunEnvironment failed = environment;
            environment = null;
            if (failed != null) {
              failed.close();
            }
            step = "making its context (the host heap was full; attempt " + (attempt + 1) + ")";
            try {
              Thread.sleep(Math.min(1000, 50L * attempt));
            } catch (InterruptedException interrupted) {
              Thread.currentThread().interrupt();
              return cancelledByHost();
            }
            continue;
          }
          LOG.log(System.Logger.Level.ERROR, "could not create a context", e);
          return new Raw(null, internalError());
        }
      }
    }
    environment = env;
    step = "copying the mounts in";
    try {
      env.startRun(api.runFiles(script), script.label(), script.attributes(), observed);
    } catch (RunEnvironment.RunFilesDoNotFit e) {
      guard.trip(Limit.FILES, e.getMessage(), Layer.VIRTUAL_FILE_SYSTEM, false);
      return new Raw(null, null);
    } catch (UncheckedIOException e) {
      LOG.log(System.Logger.Level.ERROR, "mount could not be copied in", e);
      // A mount's guest path (GuestFileSystem.copyMountsIn names it), never a host one.
      String file = e.getCause() instanceof java.nio.file.FileSystemException fse ? fse.getFile() : null;
      String what = policy.mounts().stream().map(Mount::guestPath).filter(g -> g.equals(file)).findFirst()
          .orElse("a mount");
      return new Raw(null, new ErrorClassifier.Verdict(Outcome.INTERNAL_ERROR, null,
          "mount " + what + " could not be prepared (missing, unreadable, or larger than the file limits)",
          List.of(), null, null));
    }
    Raw raw = run(env);
    checkResultSchema(raw);
    return raw.withFiles(env.fileSystem(), collectOutputFiles(env.fileSystem()));
  }

  /**
   * Whether a context could not be made for want of host heap: the host's OutOfMemoryError, or what
   * {@link ErrorClassifier} calls the memory limit in a guest's failure (GraalPy's MemoryError).
   */
  private static boolean outOfMemory(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof OutOfMemoryError
          || (t instanceof PolyglotException p && ErrorClassifier.classify(p).limit() == Limit.MEMORY)) {
        return true;
      }
    }
    return false;
  }

  /** The output boundary's last check of the value, on the copy: the script's result schema. */
  private void checkResultSchema(Raw raw) {
    JsonSchema schema = api.resultSchema(script);
    if (schema == null || !raw.finished() || guard.tripped() != null
        || guard.rejection() != null) {
      return;
    }
    try {
      ResultSchemaCheck.check(schema, raw.value());
    } catch (ValueRejectedException e) {
      rejectOutput(e);
    }
  }

  /** Reads the declared output files after the guest finished, before the file system is closed. */
  private OutputFileCollector.Collected collectOutputFiles(GuestFileSystem fs) {
    Map<String, Boolean> declared = api.outputFileDeclarations(script);
    if (declared.isEmpty()) {
      return null;
    }
    Limits limits = policy.limits();
    OutputFileCollector.Collected c = OutputFileCollector.collect(fs::inMemory, declared,
        limits.maxOutputFileBytes(), limits.maxTotalOutputFileBytes());
    c.rejections().forEach(guard::outputRejected);
    return c;
  }

  private void rejectOutput(ValueRejectedException e) {
    guard.outputRejected(new SandboxEvent.OutputRejected(Instant.now(), e.reason(), e.path(), e.detail()));
  }

  private Raw run(RunEnvironment env) {
    Limits limits = policy.limits();
    Context context = env.context();
    try {
      bindInputs(context);
      Value main = script.language() == Language.PYTHON ? context.eval(PYTHON_MAIN_MODULE) : null;
      if (!guestStarts()) {
        return cancelledByHost(); // or not started at all: then the result is already made
      }
      // The engine caches code by (language, text, name) while the Source is alive (the SourceCache keeps
      // it from a script's second run on): a fresh context reuses the compiled code of an earlier run of
      // the same script. Keep all three stable (no run id in the name, no per-run prologue in the text);
      // inputs and tools stay outside the source. Otherwise every run re-parses and re-compiles
      // (FreshContextCompileBenchmark: 49 ms instead of 16 ms for task C).
      context.resetLimits();
      meter.start();
      Value value = evaluate(context);
      if (main != null && main.equals(value)) {
        return new Raw(null, null);
      }
      value = script.language() == Language.JAVASCRIPT
          ? AsyncResult.settle(context, value, env.eventLoop(), () -> guard.tripped() != null || guard.isCancelled())
          : AsyncResult.runCoroutine(env.coroutineRunner(), value);
      return new Raw(new ValueCopier(script.language(), limits, env.measure()).copy(value), null);
    } catch (AsyncResult.Unsettled e) {
      if (guard.tripped() != null) {
        return new Raw(null, null); // a limit stopped the wait for a timer
      }
      if (guard.isCancelled()) {
        return cancelledByHost();
      }
      return new Raw(null, new ErrorClassifier.Verdict(Outcome.GUEST_ERROR, null, e.getMessage(), List.of(), null,
          null));
    } catch (ValueRejectedException e) {
      rejectOutput(e);
      return new Raw(null, null);
    } catch (PolyglotException e) {
      if (guard.tripped() != null) {
        return new Raw(null, null);
      }
      if (guard.isCancelled()) {
        return cancelledByHost();
      }
      ErrorClassifier.Verdict v = ErrorClassifier.classify(e);
      if (v.limit() != null) {
        guard.trip(v.limit(), v.message(), Layer.CONTEXT_PERMISSIONS, false);
        return new Raw(null, null);
      }
      if (v.denied() != null) {
        guard.denied(v.denied(), v.denied().id(), Layer.CONTEXT_PERMISSIONS);
      }
      if (v.outcome() == Outcome.INTERNAL_ERROR) {
        LOG.log(System.Logger.Level.ERROR, "internal error in guest run", e);
      } else if (ErrorClassifier.isInterpreterFailure(v)) {
        // The interpreter's own bug, answered to the guest as its error: one line for the operator, the
        // trace only when asked for.
        LOG.log(System.Logger.Level.WARNING, () -> "the guest language failed internally on a guest's code"
            + " (the run ends GUEST_ERROR): " + TextSanitizer.oneLine(String.valueOf(e.getMessage()), 300));
        LOG.log(System.Logger.Level.DEBUG, "the guest language's internal error", e);
      }
      return new Raw(null, v);
    } catch (IllegalStateException e) {
      // The context was closed under the guest by a limit or the host.
      if (guard.tripped() != null) {
        return new Raw(null, null);
      }
      if (guard.isCancelled()) {
        return cancelledByHost();
      }
      LOG.log(System.Logger.Level.ERROR, "sandbox run failed", e);
      return new Raw(null, internalError());
    } catch (StackOverflowError e) {
      guard.trip(Limit.STACK, "stack exhausted", Layer.CONTEXT_PERMISSIONS, false);
      return new Raw(null, null);
    } catch (OutOfMemoryError e) {
      // The guest's own allocation ran the host heap out on its own thread, too fast or too large for the
      // heap guard (GraalJS copying a 100-million-character error message into the host's exception):
      // the guest's memory limit, not a failure of the sandbox. What it held is garbage now.
      guard.trip(Limit.MEMORY, "the host heap ran out while the guest ran", Layer.WATCHDOG, false);
      return new Raw(null, null);
    } finally {
      meter.finish();
    }
  }

  /**
   * Evaluates the program. A JavaScript program that does not parse as a script but does as the body of
   * an async function (top-level {@code await}, a top-level {@code return}) runs as that body, and its
   * value is what it returns, or else its last expression's, as a REPL's would be (a Promise, settled by
   * {@link AsyncResult}; see {@link AsyncProgramBody}); a program that parses as
   * neither fails with the script's syntax error. A script's value stays its last expression's.
   */
  private Value evaluate(Context context) {
    try {
      return context.eval(source);
    } catch (PolyglotException e) {
      if (script.language() != Language.JAVASCRIPT || !e.isSyntaxError() || guard.tripped() != null
          || guard.isCancelled()) {
        throw e;
      }
      Source body = asyncBody(context);
      if (body == null) {
        throw e;
      }
      return context.eval(body);
    }
  }

  /**
   * The program as the body of an async function, or null if it is not one: if the syntax error came
   * from guest code that already ran (an {@code eval}), or the program does not parse that way either.
   * Its first line keeps its number (the wrapper's head shares it), so frames point at the guest's lines.
   */
  private Source asyncBody(Context context) {
    try {
      context.parse(source);
      return null; // the program parses: its syntax error came from code it ran, which must not run twice
    } catch (PolyglotException notAScript) {
      if (!notAScript.isSyntaxError()) {
        return null;
      }
    }
    Source plain = sources.get(Language.JAVASCRIPT, script.name(), AsyncProgramBody.plain(script.code()));
    try {
      context.parse(plain);
    } catch (PolyglotException notABody) {
      return null;
    }
    String returning = AsyncProgramBody.returningLastExpression(script.code(), text -> parses(context, text));
    return returning == null ? plain : sources.get(Language.JAVASCRIPT, script.name(), returning);
  }

  /** Whether {@code text} parses as a JavaScript script; a check only, so its source is never cached. */
  private static boolean parses(Context context, String text) {
    try {
      context.parse(Source.newBuilder("js", text, "check.js").cached(false).buildLiteral());
      return true;
    } catch (PolyglotException e) {
      return false;
    }
  }

  private void bindInputs(Context context) {
    if (inputs.isEmpty()) {
      return;
    }
    step = "binding its inputs";
    Value parse = context.eval(script.language() == Language.PYTHON ? PYTHON_INPUT_PARSER : JAVASCRIPT_INPUT_PARSER);
    Value bindings = context.getBindings(script.language().id());
    for (Map.Entry<String, String> input : inputs.entrySet()) {
      bindings.putMember(input.getKey(), parse.execute(input.getValue()));
    }
  }

  private ExecutionResult result(Raw raw, BoundedOutput output, long endNanos) {
    RunGuard.Trip trip = guard.tripped();
    // Recorded only while no limit had tripped: a limit that trips later does not undo it.
    SandboxEvent.OutputRejected rejection = raw != null && raw.finished() ? guard.rejection() : null;
    Outcome outcome;
    Limit limit = null;
    Object value = null;
    String error = null;
    List<String> stack = List.of();
    Integer exitStatus = null;
    if (rejection != null) {
      outcome = Outcome.OUTPUT_REJECTED;
      error = "output rejected: " + rejection.message();
      exitStatus = raw.failure() == null ? null : raw.failure().exitStatus();
    } else if (trip != null) {
      outcome = Outcome.LIMIT_EXCEEDED;
      limit = trip.limit();
      error = "limit exceeded: " + trip.detail();
    } else if (raw.failure() != null) {
      ErrorClassifier.Verdict v = raw.failure();
      outcome = v.outcome();
      error = v.message();
      stack = v.stack();
      exitStatus = v.exitStatus();
      limit = v.limit();
    } else {
      outcome = Outcome.OK;
      value = raw.value();
    }
    OptionalLong statements = limit == Limit.STATEMENTS
        ? OptionalLong.of(policy.limits().maxStatements()) : OptionalLong.empty();
    Usage usage = usage(endNanos, statements, raw == null ? 0 : raw.fileBytes(), raw == null ? 0 : raw.files());
    TextSanitizer.Result stdout = output.stdoutSanitized();
    TextSanitizer.Result stderr = output.stderrSanitized();
    int[] errorCounts = new int[4];
    String cleanError = error == null ? null : sanitized(error, errorCounts);
    List<String> cleanStack = new ArrayList<>(stack.size());
    stack.forEach(frame -> cleanStack.add(sanitized(frame, errorCounts)));
    OutputNotes notes = new OutputNotes(changes(stdout, output.stdoutDropped()), changes(stderr, output.stderrDropped()),
        new OutputNotes.Changes(0, errorCounts[0], errorCounts[1], errorCounts[2], errorCounts[3]));
    Map<String, OutputFile> files = new LinkedHashMap<>();
    List<String> missing = List.of();
    if (raw != null && raw.outputs() != null) {
      raw.outputs().files().forEach((path, bytes) -> files.put(path, api.outputFile(path, bytes)));
      missing = raw.outputs().missing();
    }
    return api.result(new RunRecord(outcome, limit, value, cleanError, cleanStack, exitStatus, stdout.text(), stderr.text(),
        usage, sanitizedEvents(guard.seal()), rejection, notes, files, missing, guard.runId(),
        guard.label(), output.undeliveredChunks(), guard.droppedEvents(), guard.undeliveredEvents()));
  }

  /**
   * The run's usage, ended at {@code endNanos}: a phase that never began takes no time; one that never
   * ended lasted until then.
   */
  private Usage usage(long endNanos, OptionalLong statements, long fileBytes, long files) {
    long queued = queuedNanos(endNanos);
    long setUp = setupNanos >= 0 ? setupNanos : endNanos - calledNanos - queued;
    Duration wallTime = setupNanos >= 0 ? Duration.ofNanos(endNanos - guestNanos) : Duration.ZERO;
    return new Usage(wallTime, meter.cpuTime(), meter.allocatedBytes(), statements, output.bytesWritten(), fileBytes,
        files, Duration.ofNanos(queued), Duration.ofNanos(setUp));
  }

  /** How long the run waited for a turn and a thread, until {@code nowNanos} if it is waiting still. */
  private long queuedNanos(long nowNanos) {
    return queueNanos >= 0 ? queueNanos : nowNanos - calledNanos;
  }

  private static String sanitized(String text, int[] counts) {
    TextSanitizer.Result r = TextSanitizer.clean(text);
    counts[0] += r.escapeSequences();
    counts[1] += r.controls();
    counts[2] += r.invalid();
    counts[3] += r.invisible();
    return r.text();
  }

  private static OutputNotes.Changes changes(TextSanitizer.Result r, long dropped) {
    return new OutputNotes.Changes(dropped, r.escapeSequences(), r.controls(), r.invalid(), r.invisible());
  }

  /** Denial targets (guest paths, names) and limit details can quote guest text: keep it to one clean line. */
  private static List<SandboxEvent> sanitizedEvents(List<SandboxEvent> events) {
    List<SandboxEvent> out = new ArrayList<>(events.size());
    for (SandboxEvent e : events) {
      out.add(switch (e) {
        case SandboxEvent.DeniedOperation d ->
            new SandboxEvent.DeniedOperation(d.time(), d.operation(), TextSanitizer.oneLine(d.target(), 4096), d.layer());
        case SandboxEvent.LimitExceeded l ->
            new SandboxEvent.LimitExceeded(l.time(), l.limit(), TextSanitizer.oneLine(l.detail(), 4096), l.layer());
        default -> e;
      });
    }
    return out;
  }

  /** The host cancelled the run (closing the sandbox, cancelling its future) before it ended by itself. */
  private static Raw cancelledByHost() {
    return new Raw(null, ErrorClassifier.cancelled("run cancelled by the host"));
  }

  private static ErrorClassifier.Verdict internalError() {
    return new ErrorClassifier.Verdict(Outcome.INTERNAL_ERROR, null, "internal error in the sandbox", List.of(),
        null, null);
  }
}
