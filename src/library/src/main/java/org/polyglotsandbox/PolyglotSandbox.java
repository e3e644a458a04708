package org.polyglotsandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.graalvm.polyglot.Engine;
import org.polyglotsandbox.internal.boundary.NotPlainDataException;
import org.polyglotsandbox.internal.boundary.PlainData;
import org.polyglotsandbox.internal.boundary.TextSanitizer;
import org.polyglotsandbox.internal.spi.SandboxCore;

/**
 * Runs untrusted JavaScript and Python under a deny-by-default {@link Policy}.
 *
 * <pre>{@code
 * Policy policy = Policy.builder()
 *     .allowLanguages(Language.PYTHON)
 *     .mount(Mount.readOnly(Path.of("sales.csv"), "/data/sales.csv"))
 *     .limits(Limits.builder().wallTime(Duration.ofSeconds(2)).build())
 *     .build();
 * try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).build()) {
 *   ExecutionResult r = sandbox.run(Language.PYTHON, "len(open('/data/sales.csv').readlines())");
 * }
 * }</pre>
 *
 * <p>Every run gets a fresh context and a fresh in-memory file system holding only the mounts; the
 * sandbox shares one GraalVM {@link Engine} across runs for code caching and nothing else. A
 * {@linkplain Builder#warmContexts warm pool} can make contexts in advance; each is still used by one
 * run only. Runs are safe to start from many threads ({@link #run}, {@link #runAsync}); at most
 * {@linkplain Builder#maxConcurrentRuns a bound} run at once and a bounded number wait, the rest are
 * refused at once. {@link #run} never throws for anything guest code does.
 *
 * <p>Guest code affects the world only through {@link Tool}s: registered with {@link Builder#tool} and
 * allowed by name in the policy ({@link Policy.Builder#allowTools}), they appear to the guest as
 * {@code tools.name(...)}; see {@link Tool} for what happens on each call.
 *
 * <p>Every denied attempt, tripped limit and tool call is an {@link AuditEvent}: in the result, to the
 * {@linkplain Builder#auditListener listener}, and as a JDK Flight Recorder event.
 *
 * @since 0.1.0
 */
public final class PolyglotSandbox implements AutoCloseable {
  /** At most this many values in one input; larger data belongs in a file. */
  static final int MAX_INPUT_VALUES = 1_000_000;
  /** At most this many characters of strings and keys in one input. */
  static final long MAX_INPUT_CHARS = 64L << 20;
  /**
   * Inputs are host data, checked while they are encoded: a cyclic structure fails at the depth bound
   * instead of overflowing, and a structure that shares itself (a list holding itself twice, 25 levels
   * deep) at the value bound instead of filling the heap.
   */
  private static final PlainData.Format INPUTS = PlainData.Format.strict(64, MAX_INPUT_VALUES)
      .withMaxChars(MAX_INPUT_CHARS);
  private final Policy policy;
  private final List<Tool> tools;
  private final SandboxCore core;
  private volatile boolean closed;
  /** Null unless built with {@link Builder#singleRun()}; then set once the one run is admitted. */
  private final AtomicBoolean ran;
  /** {@link Builder#pythonPath} and {@link Builder#pythonImports}, for {@link #describeForModel}. */
  private final List<String> pythonPath;
  private final List<String> pythonImports;
  /** {@link Builder#isolation}, for {@link #describeForModel}. */
  private final Isolation isolation;
  private final RunObservers observers = new RunObservers();

  private PolyglotSandbox(Policy policy, List<Tool> tools, SandboxCore core, boolean singleRun,
      List<String> pythonPath, List<String> pythonImports, Isolation isolation) {
    this.policy = policy;
    this.tools = List.copyOf(tools);
    this.core = core;
    this.ran = singleRun ? new AtomicBoolean() : null;
    this.pythonPath = pythonPath;
    this.pythonImports = pythonImports;
    this.isolation = isolation;
  }

  /**
   * A builder; a policy is required.
   *
   * @since 0.1.0
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The policy every run follows.
   *
   * @since 0.1.0
   */
  public Policy policy() {
    return policy;
  }

  /**
   * The tools guest code may call: those registered whose names the policy allows, in the policy's
   * order. Registered tools the policy does not name are left out; guest code cannot see them.
   *
   * @since 0.1.0
   */
  public List<Tool> tools() {
    return tools;
  }

  /**
   * What a language model should be told about a tool that runs {@code language} code here: one
   * paragraph with the policy in force (the mounts by guest path, the tools guest code may call with
   * their parameter schemas, the limits; for Python, the {@link Builder#pythonPath} directories and the
   * modules imported ahead; with {@linkplain Isolation#process() process isolation}, that each call runs in a
   * worker process and what a call whose worker died ends with), for the description of an agent's code tool (an MCP tool, a
   * LangChain4j or Spring AI tool). Guest terms only: no host path appears; the tools' descriptions
   * appear as the embedder wrote them.
   *
   * @throws IllegalArgumentException if the policy does not allow {@code language}
   * @since 0.1.0
   */
  public String describeForModel(Language language) {
    Objects.requireNonNull(language, "language");
    if (!policy.languages().contains(language)) {
      throw new IllegalArgumentException("language " + language.id() + " is not allowed by the policy "
          + "(allowed: " + policy.languages().stream().map(Language::id).toList() + ")");
    }
    return ModelDescription.of(language, policy, tools, pythonPath, pythonImports, isolation);
  }

  /**
   * Typed stubs of the tools guest code may call here, for a model writing {@code language} code:
   * TypeScript declarations for JavaScript, a Python stub file for Python ({@link Tool#stubs} says how the
   * schemas map). They declare only the tools the policy allows; with none, just {@code ToolError} and an
   * empty {@code tools}.
   *
   * @throws IllegalArgumentException if the policy does not allow {@code language}
   * @since 0.1.0
   */
  public String toolStubs(Language language) {
    Objects.requireNonNull(language, "language");
    if (!policy.languages().contains(language)) {
      throw new IllegalArgumentException("language " + language.id() + " is not allowed by the policy "
          + "(allowed: " + policy.languages().stream().map(Language::id).toList() + ")");
    }
    return Tool.stubs(language, tools);
  }

  /**
   * The Truffle runtime in use: {@code "GraalVM CE"} (or another compiler name) with the optimizing
   * runtime, {@code "Interpreted"} on the 15-35x slower fallback.
   *
   * @since 0.1.0
   */
  public String runtimeName() {
    return core.runtimeName();
  }

  /**
   * Completes when the warm-up {@link Builder#build()} starts has ended: already complete unless the
   * sandbox was built with {@link Builder#startInBackground()}. Completes exceptionally with an
   * {@link IllegalStateException} saying why if that warm-up failed (every run then throws it too) or the
   * sandbox was closed first.
   *
   * @since 0.1.0
   */
  public java.util.concurrent.CompletionStage<Void> started() {
    return core.started();
  }

  /**
   * Where guest code runs and behind which walls, in one line for logs and reports: in this JVM, or in
   * worker processes and which operating-system layers the host gave them (see {@link Isolation}).
   *
   * @since 0.1.0
   */
  public String isolationInForce() {
    return core.wall();
  }

  /**
   * Where guest code runs: {@link Builder#isolation}'s value.
   *
   * @since 0.1.0
   */
  public Isolation isolation() {
    return isolation;
  }

  /**
   * Whether guest code is compiled to machine code (the JVM was started with the JIT flags).
   *
   * @since 0.1.0
   */
  public boolean isOptimizingRuntime() {
    return !"Interpreted".equals(core.runtimeName());
  }

  /**
   * Runs a program with no inputs.
   *
   * @since 0.1.0
   */
  public ExecutionResult run(Language language, String code) {
    return run(Script.of(language, code));
  }

  /**
   * Runs one guest program in a fresh context and file system, and destroys both before returning.
   * Waits for a turn if {@link Builder#maxConcurrentRuns} runs are already running; interrupting the
   * calling thread cancels the run. The guest's limits count from its program's first statement; the
   * wait and the sandbox's own set-up before it are bounded by {@link Builder#startTimeout} and
   * reported in {@link ExecutionResult.Usage#queueTime()} and {@link ExecutionResult.Usage#setupTime()}.
   * In a sandbox built with {@link Builder#startInBackground()}, a run first waits for the warm-up to end
   * (also in its queue time, and not bounded by the start timeout). While at most half the processors
   * have a run, the calling thread busy-waits up to 0.5 ms for the result before it sleeps, so that a
   * short run's result reaches it without a thread's wake-up (on 2 cores: 0.204 ms instead of 0.258 ms
   * median for a 100-row aggregate from the warm pool); with more runs in flight it sleeps at once, and
   * one of the {@link #callerThreads()} runs the guest itself.
   *
   * @throws IllegalArgumentException if the policy does not allow the script's language, an input is
   *     not plain data, a declared output file lies outside every mount, or a file of the run
   *     ({@link Script#withFile}) clashes with a mount or the Python home or breaks the file limits, or
   *     one of the script's own limits ({@link Script#withLimits}) is above the policy's
   * @throws RejectedExecutionException if the sandbox is at {@link Builder#maxConcurrentRuns} with
   *     {@link Builder#maxWaitingRuns} runs already waiting, or is so overloaded that the run did not
   *     start within {@link Builder#startTimeout}; either way the guest did not run, so the call may be
   *     tried again
   * @throws java.util.concurrent.CancellationException if the calling thread was interrupted while the
   *     run waited for its turn (the interrupt status is kept)
   * @throws IllegalStateException if the sandbox is closed, or its warm-up in the background failed
   *     (the message says why)
   * @since 0.1.0
   */
  public ExecutionResult run(Script script) {
    Map<String, String> inputs = admit(script);
    RunObserver.Run observed = observers.start(script);
    ExecutionResult result;
    try {
      result = core.run(script, inputs, observed).auditedWith(script);
    } catch (RuntimeException | Error e) {
      observed.ended(null, e);
      throw e;
    }
    observed.ended(result, null);
    return result;
  }

  /**
   * Starts a run and returns at once; the future completes with the result, as {@link #run(Script)}
   * returns it. It fails with {@link RejectedExecutionException} if the sandbox is too busy to queue the
   * run or the run did not start within {@link Builder#startTimeout} (the guest did not run), and with
   * {@link IllegalStateException} if the sandbox closes before the run starts or its warm-up in the
   * background failed. Cancelling
   * the future cancels the run (or its place in the queue).
   *
   * @throws IllegalArgumentException if the policy does not allow the script's language, an input is
   *     not plain data, a declared output file lies outside every mount, or a file of the run
   *     ({@link Script#withFile}) clashes with a mount or the Python home or breaks the file limits, or
   *     one of the script's own limits ({@link Script#withLimits}) is above the policy's
   * @throws IllegalStateException if the sandbox is closed
   * @since 0.1.0
   */
  public CompletableFuture<ExecutionResult> runAsync(Script script) {
    Map<String, String> inputs = admit(script);
    RunObserver.Run observed = observers.start(script);
    CompletableFuture<ExecutionResult> run;
    try {
      run = core.runAsync(script, inputs, observed);
    } catch (RuntimeException | Error e) {
      observed.ended(null, e);
      throw e;
    }
    if (script.auditedAttributes().isEmpty() && observed == RunObserver.Run.NONE) {
      return run;
    }
    // A future of its own for the result with the attributes, completed after the observers were told,
    // whose cancellation still cancels the run.
    CompletableFuture<ExecutionResult> out = new CompletableFuture<>();
    run.whenComplete((r, e) -> {
      if (e != null) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException c && c.getCause() != null
            ? c.getCause() : e;
        observed.ended(null, cause);
        out.completeExceptionally(cause);
      } else {
        ExecutionResult audited = r.auditedWith(script);
        observed.ended(audited, null);
        out.complete(audited);
      }
    });
    out.whenComplete((r, e) -> {
      if (out.isCancelled()) {
        run.cancel(true);
      }
    });
    return out;
  }

  /**
   * Runs a program with no inputs, asynchronously; see {@link #runAsync(Script)}.
   *
   * @since 0.1.0
   */
  public CompletableFuture<ExecutionResult> runAsync(Language language, String code) {
    return runAsync(Script.of(language, code));
  }

  /**
   * Runs running now.
   *
   * @since 0.1.0
   */
  public int runningRuns() {
    return core.runningRuns();
  }

  /**
   * Worker processes ready to take runs now, with {@linkplain Isolation#process() process isolation}: started,
   * warmed up and not yet killed or retired (busy or idle, spares included). Always 0 in-process.
   *
   * @since 0.1.0
   */
  public int readyWorkers() {
    return core.readyWorkers();
  }

  /**
   * Adds an observer of this sandbox's runs from the next run on: told of each run as it is admitted,
   * of each call of a tool's handler, and of the run's end ({@link RunObserver} says on which threads).
   * For metrics and traces; the {@code polyglot-sandbox-micrometer} module attaches itself with it. An
   * observer may be added more than once and is then told as often; runs already admitted are not
   * reported to it.
   *
   * @since 0.1.0
   */
  public void addRunObserver(RunObserver observer) {
    observers.add(Objects.requireNonNull(observer, "observer"));
  }

  /**
   * Removes an observer added with {@link #addRunObserver} (once, if added more than once); it is still told
   * of the runs admitted while it was there.
   *
   * @return whether it was there
   * @since 0.1.0
   */
  public boolean removeRunObserver(RunObserver observer) {
    return observers.remove(Objects.requireNonNull(observer, "observer"));
  }

  /**
   * Runs waiting for a turn now.
   *
   * @since 0.1.0
   */
  public int waitingRuns() {
    return core.waitingRuns();
  }

  /**
   * Contexts of {@code language} ready in the warm pool now: made in advance, never touched by guest
   * code. Always 0 without {@link Builder#warmContexts}.
   *
   * @since 0.1.0
   */
  public int warmContexts(Language language) {
    return core.warmContexts(language);
  }

  /**
   * Threads to call this sandbox from, for a server or harness that runs many tasks on worker threads
   * of its own: {@code Executors.newFixedThreadPool(n, sandbox.callerThreads())}. A {@link #run} called
   * on one of them runs the guest on that very thread, with no hand-off to a run thread: each thread has
   * the policy's {@link Limits#stackSize()}, as a run thread has, and every cap, the fresh context and file
   * system and the output boundary are as they are on a run thread. Measured on 2 cores, task B with
   * a new text each time: 0.81-0.82x the saturated throughput of raw GraalJS contexts with the same
   * statement limit, against 0.66-0.72x for the same sandbox called from plain threads
   * (benchmarks/RESULTS.md, 2026-12-04). What changes:
   * <ul>
   *   <li>the calling thread also closes the run's context and, with {@link Builder#warmContexts}, makes
   *       the pool's next one before {@code run} returns, so a run takes about as long as one in a fresh
   *       context: this is for throughput, not for the latency of a single call;</li>
   *   <li>a guest that ignores its cancellation (held in a tool handler that ignores interrupts) holds the
   *       calling thread until it returns, where a run thread would let the caller go
   *       shortly after the deadline with the run's result;</li>
   *   <li>an interrupt of the thread during the run does not stop the guest (its caps and {@link #close}
   *       do); one still set when the guest ends is kept for the caller, unless the sandbox stopped the
   *       run (its own cancellation may leave one); a thread interrupted before the call gets the usual
   *       cancelled result.</li>
   * </ul>
   * {@link #runAsync}, a run called from a tool handler inside such a run, and a run of another sandbox
   * still use run threads. The threads are platform threads, not daemons, named
   * {@code polyglot-sandbox-caller-N}; the factory may be used for as many threads as needed.
   *
   * @since 0.1.0
   */
  public java.util.concurrent.ThreadFactory callerThreads() {
    return core.callerThreads();
  }

  /**
   * Audit events the {@link Builder#auditListener} did not get, over all runs so far: its queue was
   * full when they happened (the listener was slower than the guests), or they were still queued when
   * the sandbox closed. They are still in each run's {@link ExecutionResult#events()}. Always 0
   * without a listener.
   *
   * @since 0.1.0
   */
  public long undeliveredAuditEvents() {
    return core.undeliveredAuditEvents();
  }

  private Map<String, String> admit(Script script) {
    Objects.requireNonNull(script, "script");
    if (closed) {
      throw new IllegalStateException("sandbox is closed");
    }
    if (!policy.allows(script.language())) {
      throw new IllegalArgumentException("policy does not allow language '" + script.language().id()
          + "' (allowed: " + policy.languages().stream().map(Language::id).toList() + ")");
    }
    Policy runPolicy = script.policyForRun(policy);
    script.checkFilesAgainst(runPolicy);
    script.checkOutputFilesAgainst(runPolicy);
    Map<String, String> inputs = new LinkedHashMap<>();
    script.inputs().forEach((name, value) -> {
      try {
        inputs.put(name, PlainData.toJson(value, INPUTS));
      } catch (NotPlainDataException e) {
        throw new IllegalArgumentException("input " + name + e.path().substring(1) + " " + e.problem()
            + (e.problem().startsWith("holds more than") ? " (each input may hold " + MAX_INPUT_VALUES + " values and "
                + MAX_INPUT_CHARS + " characters of text; pass larger data as a file)" : ""));
      }
    });
    if (ran != null && !ran.compareAndSet(false, true)) {
      throw new IllegalStateException("this sandbox was built with singleRun() and has had its run; build another");
    }
    return inputs;
  }

  /**
   * Cancels running guests, fails waiting runs, closes the warm pool's unused contexts, then releases
   * the engine and the watchdog. Last, it waits up to 5 s for the {@link Builder#auditListener} to take
   * the events still queued for it; what it has not taken by then is dropped (counted in
   * {@link #undeliveredAuditEvents()} and logged as a count), and a listener still busy is interrupted
   * and left to return on the audit thread. Idempotent.
   *
   * @since 0.1.0
   */
  @Override
  public void close() {
    closed = true;
    core.close();
  }

  /**
   * Builds a {@link PolyglotSandbox}.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    /**
     * The most runs {@link #maxConcurrentRuns} allows at once.
     *
     * @since 0.1.0
     */
    public static final int MAX_CONCURRENT_RUNS = 1024;
    private static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(30);

    private Policy policy;
    private double heapThreshold = 0.85;
    private final Map<String, Tool> tools = new LinkedHashMap<>();
    private int warmContexts;
    private int maxConcurrentRuns = Math.min(MAX_CONCURRENT_RUNS, 4 * Runtime.getRuntime().availableProcessors());
    private int maxWaitingRuns = 64;
    private Duration warmUp = Duration.ZERO;
    private Duration startTimeout = DEFAULT_START_TIMEOUT;
    private Consumer<? super AuditEvent> auditListener;
    private boolean singleRun;
    private boolean inBackground;
    private Duration lowerPriorityAfter;
    private List<String> pythonImports = List.of();
    private List<String> pythonPath = List.of();
    private Isolation isolation = Isolation.inProcess();

    private Builder() {}

    /**
     * Where guest code runs: in this JVM (the default) or in worker processes behind an operating-system
     * wall ({@link Isolation#process()}). With process isolation, {@link #warmContexts}, {@link #warmUp},
     * {@link #pythonPath}, {@link #pythonImports}, {@link #heapPressureThreshold} and
     * {@link #lowerPriorityAfter} apply inside each worker; {@link #maxConcurrentRuns} and
     * {@link #maxWaitingRuns} still bound the runs of the whole sandbox, and no more run at once than the
     * workers take ({@link Isolation#workers()} times {@link Isolation#runsPerWorker()}). {@link #build()}
     * then starts the workers one after another and, unless {@link #startInBackground()}, returns once the
     * first is ready.
     *
     * @throws NullPointerException if {@code isolation} is null
     * @since 0.1.0
     */
    public Builder isolation(Isolation isolation) {
      this.isolation = Objects.requireNonNull(isolation, "isolation");
      return this;
    }

    /**
     * Keeps this many contexts per allowed language made and initialised in advance, so that a run
     * skips the cost of a fresh context (for Python, the larger part of a short run). Default 0: every
     * run makes its own.
     *
     * <p>A pooled context is used by exactly one run and closed after it, like any other. Its
     * replacement is made by the run's own thread once the run's result is handed over (while the caller
     * reads it), so under a steady stream of runs the pool keeps up with as many callers as there are. A
     * background thread makes what the runs in flight will not (at start, after a run that could not
     * replace its context), and refills an empty pool at once only while the machine has cores to spare
     * (fewer runs than processors, or the JVM keeping under three quarters of them busy): on a saturated
     * machine it would take CPU from the runs for contexts they make themselves anyway. Mounts are copied
     * in when the run starts (or, for imports from the {@link #pythonPath}, checked against the host
     * then), so a run sees the host files as they are then. When the pool is empty a run makes its own context rather than wait.
     * Each idle context holds heap (a Python one about 3 MiB, and more with {@link #pythonImports}: about
     * 10 MiB with {@code json}, 40 MiB with pyparsing), and refilling costs CPU beside the runs.
     *
     * @throws IllegalArgumentException if {@code perLanguage} is negative or over 64
     * @since 0.1.0
     */
    public Builder warmContexts(int perLanguage) {
      if (perLanguage < 0 || perLanguage > 64) {
        throw new IllegalArgumentException("warmContexts (" + perLanguage + ") must be in [0, 64]");
      }
      this.warmContexts = perLanguage;
      return this;
    }

    /**
     * Python standard-library modules imported into every Python context before its run's first
     * statement, such as {@code "json"}: a guest's own {@code import json} then finds the module loaded.
     * Importing {@code json} costs each fresh GraalPy context hundreds of milliseconds of CPU in a warm
     * JVM and seconds in a new one (it brings {@code re}, whose pattern compiler runs as Python code,
     * cold in every context); with {@link #warmContexts} that cost is paid while the context waits in the
     * pool, not while a caller waits for the run.
     *
     * <p>Each context imports the modules itself, so each run still starts from fresh module state: what
     * a guest changes in {@code json} is gone with its context. The imports run in the run's context,
     * under its policy, before its clock starts: they count against neither its CPU nor its wall time,
     * and their statements are forgotten before its program starts (a run whose own statement limit is
     * lower than what the imports take ends with limit {@code statements} before its first statement,
     * and its error says so); what they print is dropped, not the run's output. A
     * run that makes its own context (no pool, or the pool empty) imports them while it is made, within
     * its {@link #startTimeout}. A module is looked up in GraalPy's standard library and in the
     * {@link #pythonPath} directories, so a pure-Python package from a mount can be named too.
     * {@link #build()} imports them once and fails, naming the module, if one cannot be imported. Not
     * with {@link #singleRun}. Default none.
     *
     * @throws IllegalArgumentException naming the value if a name is not a dotted Python identifier,
     *     is repeated, or more than 32 are given
     * @since 0.1.0
     */
    public Builder pythonImports(String... modules) {
      Objects.requireNonNull(modules, "modules");
      if (modules.length > 32) {
        throw new IllegalArgumentException("pythonImports: " + modules.length + " modules given, at most 32");
      }
      java.util.Set<String> seen = new java.util.LinkedHashSet<>();
      for (String m : modules) {
        if (m == null || !PYTHON_MODULE.matcher(m).matches()) {
          throw new IllegalArgumentException("pythonImports: " + (m == null ? "null"
              : "'" + TextSanitizer.oneLine(m, 64) + "'")
              + " is not a Python module name (dotted identifiers, such as json or collections.abc)");
        }
        if (!seen.add(m)) {
          throw new IllegalArgumentException("pythonImports: '" + m + "' is named twice");
        }
      }
      this.pythonImports = List.copyOf(seen);
      return this;
    }

    /**
     * Guest directories put at the front of {@code sys.path} in every Python context, in this order,
     * before the {@link #pythonImports} and the guest's first statement: where a guest's
     * {@code import} (and the sandbox's imports) find the pure-Python packages the policy mounts, as
     * {@code PYTHONPATH} would. Each must lie inside one of the policy's mounts or above one (such as
     * {@code /pkgs} for a package mounted at {@code /pkgs/pyparsing}; {@link #build()} checks).
     *
     * <p>With {@link #pythonImports}, a Python context gets the mounts on the path (at, inside or above
     * one of these directories, or holding one) copied in when it is made, before the imports, so that a
     * mounted package is imported while a pooled context waits rather than while a caller does (a
     * package of 10,000 lines takes seconds of CPU to import in every fresh context; GraalPy compiles it
     * again each time). Such a pooled context is used only if those mounts still match the host when its
     * run starts: the run compares each of their files with its host file (the same reads a copy makes)
     * and, if one changed, appeared or went, closes the context and makes its own, importing the modules
     * before its clock starts. So a run always sees, and imports, the host files as they are when it
     * starts. Each pooled Python context then holds its copy of those mounts (and the imported modules)
     * while it waits, and a package whose host files change between runs makes every pooled context go to
     * waste. The other mounts, such as a data directory, are copied in when the run starts, as always.
     * Default none.
     *
     * @throws IllegalArgumentException naming the value if a directory is not an absolute guest path
     *     without {@code ..}, is repeated, or more than 16 are given
     * @since 0.1.0
     */
    public Builder pythonPath(String... guestDirectories) {
      Objects.requireNonNull(guestDirectories, "guestDirectories");
      if (guestDirectories.length > 16) {
        throw new IllegalArgumentException("pythonPath: " + guestDirectories.length
            + " directories given, at most 16");
      }
      java.util.Set<String> seen = new java.util.LinkedHashSet<>();
      for (String d : guestDirectories) {
        String dir;
        try {
          dir = Mount.normalizeGuestPath(d);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("pythonPath: " + (d == null ? "null"
              : TextSanitizer.oneLine(e.getMessage(), 200)), e);
        }
        if (!seen.add(dir)) {
          throw new IllegalArgumentException("pythonPath: '" + dir + "' is named twice");
        }
      }
      this.pythonPath = List.copyOf(seen);
      return this;
    }

    private static final java.util.regex.Pattern PYTHON_MODULE =
        java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}(\\.[A-Za-z_][A-Za-z0-9_]{0,63}){0,7}");

    /**
     * How many runs may execute at once; more wait for a turn, up to {@link #maxWaitingRuns}. Default four
     * per available processor (at most {@value #MAX_CONCURRENT_RUNS}). Each running guest holds a platform thread with the policy's stack size
     * (8 MiB by default), so the bound is {@value #MAX_CONCURRENT_RUNS}.
     *
     * @throws IllegalArgumentException if {@code runs} is not in [1, {@value #MAX_CONCURRENT_RUNS}]
     * @since 0.1.0
     */
    public Builder maxConcurrentRuns(int runs) {
      if (runs < 1 || runs > MAX_CONCURRENT_RUNS) {
        throw new IllegalArgumentException("maxConcurrentRuns (" + runs + ") must be in [1, " + MAX_CONCURRENT_RUNS
            + "]");
      }
      this.maxConcurrentRuns = runs;
      return this;
    }

    /**
     * How many runs may wait for a turn; past that a run is refused at once with
     * {@link RejectedExecutionException}. 0 refuses every run that cannot start at once. Default 64.
     *
     * @throws IllegalArgumentException if {@code runs} is negative
     * @since 0.1.0
     */
    public Builder maxWaitingRuns(int runs) {
      if (runs < 0) {
        throw new IllegalArgumentException("maxWaitingRuns (" + runs + ") must not be negative");
      }
      this.maxWaitingRuns = runs;
      return this;
    }

    /**
     * How long a run may take to start: from the call to {@link PolyglotSandbox#run} or
     * {@link PolyglotSandbox#runAsync} until its program's first statement. That covers waiting for a
     * turn ({@link #maxConcurrentRuns}) and for a thread, and the sandbox's own set-up: making the
     * context (a fresh Python context takes hundreds of milliseconds, seconds on a busy machine; one
     * from the {@link #warmContexts warm pool} next to nothing), copying the mounts in and binding the
     * inputs. None of it counts against the guest's {@link Limits}; {@link ExecutionResult.Usage}
     * reports it as {@code queueTime} and {@code setupTime}. A run that has not started by then fails
     * with {@link RejectedExecutionException} ("sandbox is overloaded"), never with a limit of the
     * guest's, and its guest never runs. Default 30 s.
     *
     * @throws IllegalArgumentException if {@code timeout} is not between 1 ms and 10 minutes
     * @since 0.1.0
     */
    public Builder startTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("startTimeout (" + timeout + ") must be between 1 ms and 10 minutes");
      }
      this.startTimeout = timeout;
      return this;
    }

    /**
     * Makes {@link #build()} spend about {@code budget} running representative programs in each allowed
     * language, so the JIT has compiled the common paths, and then wait until the warm pool is full. For a
     * server that would rather pay at start than on its first requests. Default zero: {@code build()}
     * only runs the short warm-up every sandbox needs (which includes the first context in the JVM) and
     * the pool fills in the background.
     *
     * @throws IllegalArgumentException if {@code budget} is negative or over 10 minutes
     * @since 0.1.0
     */
    public Builder warmUp(Duration budget) {
      Objects.requireNonNull(budget, "budget");
      if (budget.isNegative() || budget.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("warmUp (" + budget + ") must be between 0 and 10 minutes");
      }
      this.warmUp = budget;
      return this;
    }

    /**
     * Builds a sandbox for exactly one run, such as {@code bin/sandbox run}'s: {@link #build()} then
     * skips the warm-up runs whose job is to keep every <em>later</em> run in the JVM healthy (ordinary
     * code, inputs, a guest error and a tripped limit, each taken once so that no class is first
     * initialised on a heap a guest is filling), and a second {@link PolyglotSandbox#run run} or
     * {@link PolyglotSandbox#runAsync runAsync} is refused with {@link IllegalStateException}. The one
     * run is checked as usual (every Python context checks that GraalPy found its home where the sandbox
     * expects it, and {@code build()} still checks the extracted home against the artifact, making one
     * context first if GraalVM has yet to extract it). The run makes the first context in the JVM, which
     * takes seconds (more on a busy machine), so its {@link #startTimeout} is at least 3 minutes, as the
     * warm-up's is. Not with {@link #warmContexts} or {@link #warmUp}. Default off.
     *
     * @since 0.1.0
     */
    public Builder singleRun() {
      this.singleRun = true;
      return this;
    }

    /**
     * Makes {@link #build()} return once the engine is made, and run the warm-up (the first context of each
     * language in the JVM, which takes seconds, and {@link #warmUp}'s budget) on a thread of its own. For a
     * server that must answer at once, such as an MCP server whose client gives up on a slow
     * {@code initialize}. Everything that does not run guest code works at once ({@link PolyglotSandbox#policy},
     * {@link PolyglotSandbox#describeForModel}); a run that arrives earlier waits for the warm-up, as the
     * caller of {@code build()} would have (its queue time includes the wait). {@link
     * PolyglotSandbox#started()} completes when the warm-up has ended. A warm-up that fails makes every run
     * throw an {@link IllegalStateException} saying why, where {@code build()} would have thrown it; closing
     * the sandbox stops the warm-up. Not with {@link #singleRun}. Default off.
     *
     * @since 0.1.0
     */
    public Builder startInBackground() {
      this.inBackground = true;
      return this;
    }

    /**
     * The heap budget, as a fraction of the maximum heap ({@code -Xmx}, {@link Runtime#maxMemory()}):
     * what the host's own live data and every running guest (of every sandbox in the JVM) may hold
     * together. Default 0.85.
     *
     * <p>Each run is charged what its thread allocated since it took the run, context creation
     * included, and each garbage collection credits back what cannot have survived it. When that
     * estimate passes the budget (less what the guests allocate in a quarter of a second, and never
     * within a tenth of the heap of its end), the guests whose programs allocated the most are stopped
     * with limit {@code memory} until it is a tenth of the heap below; a run whose program allocated less
     * than 1/64 of the heap is never stopped for this. While the estimate is halfway there, or a stopped
     * run has not yet ended, new runs wait for their turn (they are not refused) unless none is running.
     * In a JVM with several sandboxes, the lowest budget applies to all.
     *
     * @throws IllegalArgumentException if {@code fraction} is not in (0.1, 1.0]
     * @since 0.1.0
     */
    public Builder heapPressureThreshold(double fraction) {
      if (!(fraction > 0.1 && fraction <= 1.0)) {
        throw new IllegalArgumentException("heapPressureThreshold (" + fraction + ") must be in (0.1, 1.0]");
      }
      this.heapThreshold = fraction;
      return this;
    }

    /**
     * Gives a run's thread the operating system's lowest priority (nice 19) once the run has used
     * {@code cpuTime} of CPU, for the rest of that run, so that on a busy machine shorter runs go first:
     * for a server running many tenants' plugins, where one CPU-bound guest would otherwise delay every
     * short run beside it. Measured on 2 cores ({@code NeighboursBenchmark}, benchmarks/RESULTS.md,
     * 2026-12-04): a 0.25 ms task's p99 beside a CPU-bound guest went from 7-8x the task alone to 1.0-1.3x
     * with 10 ms (1.0-3.2x with 100 ms); beside a guest that allocates gigabytes a second it stays about 6x,
     * since every collection stops every thread. On an idle core a lowered run is as fast as before; beside
     * busy ones it gets a small share and may meet its wall time first. Default off.
     *
     * <p>It needs Linux, Java 22 or later and native access for this library ({@code
     * --enable-native-access=ALL-UNNAMED} on the class path, or the module's name); without them {@code build()}
     * logs a warning and the sandbox lowers nothing. What it changes:
     * <ul>
     *   <li>only runs on the sandbox's own run threads are lowered; a run on one of the embedder's
     *       {@link PolyglotSandbox#callerThreads() caller threads} never is, since an unprivileged process
     *       cannot raise a priority again;</li>
     *   <li>for the same reason a lowered thread ends after its run, so the next run starts on a fresh
     *       thread at normal priority;</li>
     *   <li>a thread started on a lowered run's thread inherits its priority: a run that an inline tool's
     *       handler starts there gets a thread that also ends after it, but a thread that the handler's own
     *       code starts (a lazily started pool), or that GraalVM starts there (its compiler threads end
     *       after 10 s idle and are started again by the thread that next asks for a compilation), keeps
     *       the low priority for its life.</li>
     * </ul>
     *
     * @throws IllegalArgumentException if {@code cpuTime} is not between 1 ms and 10 minutes
     * @since 0.1.0
     */
    public Builder lowerPriorityAfter(Duration cpuTime) {
      Objects.requireNonNull(cpuTime, "cpuTime");
      if (cpuTime.compareTo(Duration.ofMillis(1)) < 0 || cpuTime.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("lowerPriorityAfter (" + cpuTime + ") must be between 1 ms and 10 minutes");
      }
      this.lowerPriorityAfter = cpuTime;
      return this;
    }

    /**
     * The policy every run follows. Required.
     *
     * @since 0.1.0
     */
    public Builder policy(Policy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Registers a tool. Guest code can call it only if the policy also allows its name.
     *
     * @throws IllegalArgumentException if a tool of the same name is already registered
     * @since 0.1.0
     */
    public Builder tool(Tool tool) {
      Objects.requireNonNull(tool, "tool");
      if (tools.putIfAbsent(tool.name(), tool) != null) {
        throw new IllegalArgumentException("tool '" + tool.name() + "' is registered twice");
      }
      return this;
    }

    /**
     * Receives every {@link AuditEvent} of every run, shortly after it happens: each denied attempt, tripped limit
     * and tool call. Default: none (the events are still in each result and emitted to JDK Flight
     * Recorder).
     *
     * <p>Threads: the listener is called on one thread of the sandbox's own, {@code
     * polyglot-sandbox-audit-N}, never on a guest's, the watchdog's or a caller's, so a slow listener
     * holds no run: each event is queued as it happens and the call returns at the run's usual time,
     * possibly before the listener has seen the run's events. Events arrive one at a time, in the
     * order they happened (per run, and across runs), each once: exactly those in each result's
     * {@link ExecutionResult#events()}. When 10,000 events wait for a listener that does not keep up,
     * further events are not delivered to it and are counted
     * ({@link ExecutionResult#undeliveredAuditEvents()}, {@link PolyglotSandbox#undeliveredAuditEvents()});
     * nothing waits for it. {@link PolyglotSandbox#close()} waits up to 5 s for the listener to take
     * the events still queued.
     *
     * <p>A listener that throws (even an {@link Error}) does not affect any run: the failure is logged
     * to the {@code org.polyglotsandbox} logger (the first with its stack trace, then every 1,000th)
     * and the event is dropped for the listener.
     *
     * @since 0.1.0
     */
    public Builder auditListener(Consumer<? super AuditEvent> listener) {
      this.auditListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * A mount's host path must exist and be readable, and must not be the host's root directory (a
     * link to {@code /} included: every run would copy the host's {@code /proc} and {@code /sys}). One
     * that exposes a system or home directory is allowed, with a warning in the log.
     */
    private static void checkHostPath(Mount m, Path p) {
      if (!Files.exists(p)) {
        throw new IllegalStateException("mount " + m.guestPath() + ": host path " + p + " does not exist");
      }
      Path real;
      try {
        real = p.toRealPath();
      } catch (IOException e) {
        throw new IllegalStateException("mount " + m.guestPath() + ": host path " + p + " cannot be resolved ("
            + e.getMessage() + ")");
      }
      if (real.getParent() == null) {
        throw new IllegalStateException("mount " + m.guestPath() + ": host path " + p
            + (real.equals(p) ? "" : " (" + real + ")") + " is the host's root directory; mount the files the"
            + " guest needs, not the whole host");
      }
      if (!Files.isReadable(real)) {
        throw new IllegalStateException("mount " + m.guestPath() + ": host path " + p + " cannot be read");
      }
      String exposed = real.startsWith("/proc") || real.startsWith("/sys") ? real.toString() : null;
      String home = System.getProperty("user.home", "");
      // The mount is a system or home directory, or a directory that holds one.
      for (String system : List.of("/etc", "/proc", "/sys", "/dev", "/boot", "/root", "/var", "/home", home)) {
        if (exposed == null && !system.isEmpty() && Path.of(system).startsWith(real)) {
          exposed = system;
        }
      }
      if (exposed != null) {
        System.getLogger("org.polyglotsandbox").log(System.Logger.Level.WARNING, "mount " + m.guestPath()
            + " exposes the host's " + exposed + " to guest code (host path " + real + ")");
      }
    }

    /**
     * Registers each tool, as {@link #tool(Tool)}.
     *
     * @since 0.1.0
     */
    public Builder tools(Collection<Tool> tools) {
      Objects.requireNonNull(tools, "tools").forEach(this::tool);
      return this;
    }

    /**
     * Creates the engine and warms up each allowed language (the first Python context in a JVM takes
     * seconds), or with {@link #startInBackground()} starts that warm-up and returns.
     *
     * @throws IllegalStateException if no policy was set, a mount's host path does not exist, cannot be
     *     read or is the host's root directory (a link to it included), or the policy allows a tool that
     *     was not registered
     * @since 0.1.0
     */
    public PolyglotSandbox build() {
      if (policy == null) {
        throw new IllegalStateException("no policy set: call policy(...) before build()");
      }
      if (singleRun && (warmContexts > 0 || !warmUp.isZero())) {
        throw new IllegalStateException("singleRun() cannot be combined with warmContexts (" + warmContexts
            + ") or warmUp (" + warmUp + "): both prepare for later runs");
      }
      if (singleRun && !pythonImports.isEmpty()) {
        throw new IllegalStateException("singleRun() cannot be combined with pythonImports " + pythonImports
            + ": the one run would pay for the imports either way");
      }
      if (!pythonImports.isEmpty() && !policy.allows(Language.PYTHON)) {
        throw new IllegalStateException("pythonImports " + pythonImports + " needs a policy that allows Python"
            + " (it allows " + policy.languages() + ")");
      }
      if (!pythonPath.isEmpty() && !policy.allows(Language.PYTHON)) {
        throw new IllegalStateException("pythonPath " + pythonPath + " needs a policy that allows Python"
            + " (it allows " + policy.languages() + ")");
      }
      for (String dir : pythonPath) {
        if (policy.mountFor(dir).isEmpty() && !policy.directoriesLeadingToMounts().contains(dir)) {
          throw new IllegalStateException("pythonPath: '" + dir + "' is neither inside nor above any of the"
              + " policy's mounts " + policy.mounts().stream().map(Mount::guestPath).toList());
        }
      }
      if (singleRun && inBackground) {
        throw new IllegalStateException("singleRun() cannot be combined with startInBackground(): a single run"
            + " has no warm-up to move off build()");
      }
      for (Mount m : policy.mounts()) {
        m.hostPath().ifPresent(p -> checkHostPath(m, p));
      }
      List<Tool> allowed = new ArrayList<>();
      for (String name : policy.tools()) {
        Tool tool = tools.get(name);
        if (tool == null) {
          throw new IllegalStateException("policy allows tool '" + name + "' but no tool of that name was"
              + " registered (registered: " + tools.keySet() + ")");
        }
        allowed.add(tool);
      }
      SandboxCore core = SandboxCore.create(new SandboxCore.Settings(policy, allowed, heapThreshold,
          maxConcurrentRuns, maxWaitingRuns, warmContexts, warmUp, auditListener, startTimeout, singleRun, inBackground,
          pythonPath, pythonImports, lowerPriorityAfter, isolation),
          ApiBridge.INSTANCE);
      return new PolyglotSandbox(policy, allowed, core, singleRun, pythonPath, pythonImports, isolation);
    }
  }

  /**
   * Where guest code runs: in the application's own JVM ({@link #inProcess()}, the default), or in
   * <em>worker</em> processes ({@link #process()}): separate JVMs the sandbox starts, each inside an
   * operating-system wall of its own.
   *
   * <p>With process isolation every run executes in a worker that runs the same engine room as in-process
   * runs do (a fresh context and file system per run, the same policy, limits, tools, inputs, output
   * listeners, audit events and {@link ExecutionResult}); the embedder's code does not change. What it adds:
   * <ul>
   *   <li>a second wall that does not depend on GraalVM's: the worker runs under {@code bubblewrap} in new
   *       user, PID, network, IPC, UTS, mount and cgroup namespaces with no capabilities, a read-only root
   *       holding only the JDK, the sandbox's jars and the mounted host files, a private {@code /tmp}, no
   *       network but loopback, and a seccomp filter that refuses {@code execve}, {@code ptrace}, sockets
   *       and the rest of the usual container denylist;</li>
   *   <li>hard stops: a run past its wall-time or CPU cap plus {@link Builder#killGrace}, a worker whose heap
   *       ran out, a crashed or silent worker: the host kills the worker's processes, answers every run that
   *       was on it at once, and starts a replacement;</li>
   *   <li>memory a guest holds is the worker's, capped by its heap ({@link Builder#workerHeapBytes}) and, where
   *       the host lets one be made, a cgroup; the host JVM's heap does not grow with guests.</li>
   * </ul>
   * The price: a worker costs a JVM's memory, a run's inputs, result and tool calls cross a pipe, and a
   * killed worker takes a second or so to replace ({@code benchmarks/RESULTS.md} has the figures).
   *
   * <p>Where the operating system cannot give the wall (no {@code bwrap}, user namespaces refused, a JDK
   * older than 22 for the seccomp filter), {@link PolyglotSandbox.Builder#build()} refuses with a message
   * naming what is missing, unless the embedder accepts a {@linkplain Builder#weakWall() weaker wall}: a
   * plain child JVM with resource limits.
   *
   * @since 0.1.0
   */
  public static final class Isolation {
    private static final Isolation IN_PROCESS = new Isolation(false, 0, 0, 0, 0, 0, Duration.ZERO, Duration.ZERO,
        false, Duration.ZERO);

    private final boolean process;
    private final int workers;
    private final int spareWorkers;
    private final long workerHeapBytes;
    private final int runsPerWorker;
    private final int maxRunsPerWorker;
    private final Duration workerStartTimeout;
    private final Duration killGrace;
    private final boolean weakWall;
    private final Duration silenceTimeout;

    private Isolation(boolean process, int workers, int spareWorkers, long workerHeapBytes, int runsPerWorker,
        int maxRunsPerWorker, Duration workerStartTimeout, Duration killGrace, boolean weakWall,
        Duration silenceTimeout) {
      this.process = process;
      this.workers = workers;
      this.spareWorkers = spareWorkers;
      this.workerHeapBytes = workerHeapBytes;
      this.runsPerWorker = runsPerWorker;
      this.maxRunsPerWorker = maxRunsPerWorker;
      this.workerStartTimeout = workerStartTimeout;
      this.killGrace = killGrace;
      this.weakWall = weakWall;
      this.silenceTimeout = silenceTimeout;
    }

    /**
     * Guest code runs in the application's own JVM, on threads of the sandbox: the default.
     *
     * @since 0.1.0
     */
    public static Isolation inProcess() {
      return IN_PROCESS;
    }

    /**
     * Process isolation with the defaults {@link Builder} lists.
     *
     * @since 0.1.0
     */
    public static Isolation process() {
      return processBuilder().build();
    }

    /**
     * Process isolation, configured.
     *
     * @since 0.1.0
     */
    public static Builder processBuilder() {
      return new Builder();
    }

    /**
     * Whether runs execute in worker processes.
     *
     * @since 0.1.0
     */
    public boolean isProcess() {
      return process;
    }

    /**
     * Workers that take runs; 0 in-process.
     *
     * @since 0.1.0
     */
    public int workers() {
      return workers;
    }

    /**
     * Workers kept started and waiting beyond {@link #workers()}, to replace one that is killed or retired.
     *
     * @since 0.1.0
     */
    public int spareWorkers() {
      return spareWorkers;
    }

    /**
     * Each worker's maximum heap ({@code -Xmx}), in bytes; 0 in-process.
     *
     * @since 0.1.0
     */
    public long workerHeapBytes() {
      return workerHeapBytes;
    }

    /**
     * Runs one worker executes at once; 0 in-process.
     *
     * @since 0.1.0
     */
    public int runsPerWorker() {
      return runsPerWorker;
    }

    /**
     * Runs a worker takes before it is retired and replaced; 0 in-process.
     *
     * @since 0.1.0
     */
    public int maxRunsPerWorker() {
      return maxRunsPerWorker;
    }

    /**
     * How long a worker may take from its start until it is ready; zero in-process.
     *
     * @since 0.1.0
     */
    public Duration workerStartTimeout() {
      return workerStartTimeout;
    }

    /**
     * How long past a run's wall-time or CPU cap the host waits before it kills the worker; zero in-process.
     *
     * @since 0.1.0
     */
    public Duration killGrace() {
      return killGrace;
    }

    /**
     * How long a busy worker may send nothing (it reports every 100 ms) before it is held dead; zero in-process.
     *
     * @since 0.1.0
     */
    public Duration silenceTimeout() {
      return silenceTimeout;
    }

    /**
     * Whether the embedder accepts a plain child JVM with resource limits where the full wall is unavailable.
     *
     * @since 0.1.0
     */
    public boolean acceptsWeakWall() {
      return weakWall;
    }

    /** @since 0.1.0 */
    @Override
    public boolean equals(Object o) {
      return o instanceof Isolation i && process == i.process && workers == i.workers && spareWorkers == i.spareWorkers
          && workerHeapBytes == i.workerHeapBytes && runsPerWorker == i.runsPerWorker
          && maxRunsPerWorker == i.maxRunsPerWorker && workerStartTimeout.equals(i.workerStartTimeout)
          && killGrace.equals(i.killGrace) && weakWall == i.weakWall && silenceTimeout.equals(i.silenceTimeout);
    }

    /** @since 0.1.0 */
    @Override
    public int hashCode() {
      return Objects.hash(process, workers, spareWorkers, workerHeapBytes, runsPerWorker, maxRunsPerWorker,
          workerStartTimeout, killGrace, weakWall, silenceTimeout);
    }

    /** @since 0.1.0 */
    @Override
    public String toString() {
      if (!process) {
        return "in-process";
      }
      return "process (workers=" + workers + ", spareWorkers=" + spareWorkers + ", workerHeap="
          + (workerHeapBytes >> 20) + " MiB, runsPerWorker=" + runsPerWorker + ", maxRunsPerWorker=" + maxRunsPerWorker
          + ", workerStartTimeout=" + workerStartTimeout + ", killGrace=" + killGrace
          + (weakWall ? ", weak wall accepted" : "") + ")";
    }

    /**
     * Configures process isolation. Defaults: 2 workers, 1 spare, a 512 MiB heap per worker, 1 run at a
     * time per worker, 200 runs before a worker is retired, 120 s for a worker to start (they start one at a time), a kill grace of
     * 500 ms, 10 s of silence before a busy worker is held dead, and the full wall required.
     *
     * @since 0.1.0
     */
    public static final class Builder {
      /**
       * The most workers one sandbox starts.
       *
       * @since 0.1.0
       */
      public static final int MAX_WORKERS = 256;
      private int workers = 2;
      private int spareWorkers = 1;
      private long workerHeapBytes = 512L << 20;
      private int runsPerWorker = 1;
      private int maxRunsPerWorker = 200;
      private Duration workerStartTimeout = Duration.ofSeconds(120);
      private Duration killGrace = Duration.ofMillis(500);
      private Duration silenceTimeout = Duration.ofSeconds(10);
      private boolean weakWall;

      private Builder() {}

      /**
       * Workers that take runs, 1 to {@value #MAX_WORKERS}.
       *
       * @since 0.1.0
       */
      public Builder workers(int workers) {
        if (workers < 1 || workers > MAX_WORKERS) {
          throw new IllegalArgumentException("workers must be 1 to " + MAX_WORKERS + ", was " + workers);
        }
        this.workers = workers;
        return this;
      }

      /**
       * Started workers waiting to replace one that is killed or retired, 0 to {@value #MAX_WORKERS}.
       *
       * @since 0.1.0
       */
      public Builder spareWorkers(int spares) {
        if (spares < 0 || spares > MAX_WORKERS) {
          throw new IllegalArgumentException("spareWorkers must be 0 to " + MAX_WORKERS + ", was " + spares);
        }
        this.spareWorkers = spares;
        return this;
      }

      /**
       * Each worker's maximum heap, 128 MiB to 64 GiB. A worker whose heap runs out exits at once; its runs
       * end {@link Outcome#LIMIT_EXCEEDED} with {@link Limit#MEMORY}. Keep it above the policy's
       * {@link Limits#maxAllocatedBytes()} bound on what one run holds times {@link #runsPerWorker}.
       *
       * @since 0.1.0
       */
      public Builder workerHeapBytes(long bytes) {
        if (bytes < (128L << 20) || bytes > (64L << 30)) {
          throw new IllegalArgumentException("workerHeapBytes must be 128 MiB to 64 GiB, was " + bytes);
        }
        this.workerHeapBytes = bytes;
        return this;
      }

      /**
       * Runs one worker executes at once, 1 to 64. With more than one, a hard stop (a run past its caps, a
       * heap that ran out) ends the other runs on that worker too: they end {@link Outcome#CANCELLED}, saying
       * why.
       *
       * @since 0.1.0
       */
      public Builder runsPerWorker(int runs) {
        if (runs < 1 || runs > 64) {
          throw new IllegalArgumentException("runsPerWorker must be 1 to 64, was " + runs);
        }
        this.runsPerWorker = runs;
        return this;
      }

      /**
       * Runs a worker takes before it is retired and replaced by a fresh process, 1 to 1,000,000.
       *
       * @since 0.1.0
       */
      public Builder maxRunsPerWorker(int runs) {
        if (runs < 1 || runs > 1_000_000) {
          throw new IllegalArgumentException("maxRunsPerWorker must be 1 to 1000000, was " + runs);
        }
        this.maxRunsPerWorker = runs;
        return this;
      }

      /**
       * How long a worker may take to start and warm up, 1 s to 10 min.
       *
       * @since 0.1.0
       */
      public Builder workerStartTimeout(Duration timeout) {
        this.workerStartTimeout = within("workerStartTimeout", timeout, Duration.ofSeconds(1), Duration.ofMinutes(10));
        return this;
      }

      /**
       * How long past a run's wall-time or CPU cap the host waits for the worker's own answer before it kills
       * the worker, 100 ms to 60 s. The worker's engine normally stops a guest at its cap; the kill is for a
       * guest inside a builtin that polls no safepoint, or a worker that no longer answers.
       *
       * @since 0.1.0
       */
      public Builder killGrace(Duration grace) {
        this.killGrace = within("killGrace", grace, Duration.ofMillis(100), Duration.ofSeconds(60));
        return this;
      }

      /**
       * How long a worker with runs may send nothing before it is held dead and killed, 1 s to 10 min.
       *
       * @since 0.1.0
       */
      public Builder silenceTimeout(Duration timeout) {
        this.silenceTimeout = within("silenceTimeout", timeout, Duration.ofSeconds(1), Duration.ofMinutes(10));
        return this;
      }

      /**
       * Accepts a weaker wall where the full one is unavailable: a child JVM without namespaces, with resource
       * limits (open files, file size, no core dumps), the JVM's caps, and the seccomp filter where the JDK
       * and kernel let it load. The policy's report and the model description then say so.
       *
       * @since 0.1.0
       */
      public Builder weakWall() {
        this.weakWall = true;
        return this;
      }

      /** @since 0.1.0 */
      public Isolation build() {
        return new Isolation(true, workers, spareWorkers, workerHeapBytes, runsPerWorker, maxRunsPerWorker,
            workerStartTimeout, killGrace, weakWall, silenceTimeout);
      }

      private static Duration within(String name, Duration d, Duration min, Duration max) {
        Objects.requireNonNull(d, name);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
          throw new IllegalArgumentException(name + " must be " + min + " to " + max + ", was " + d);
        }
        return d;
      }
    }
  }

  /**
   * Watches a sandbox's runs and the tool handlers they call, as they happen: the hook that metrics and
   * tracing (the {@code polyglot-sandbox-micrometer} module) attach to with
   * {@link PolyglotSandbox#addRunObserver}. It sees what the caller and the handlers see (the script, the
   * {@link ExecutionResult}, each handler's {@link Tool.Call}), nothing of the guest beyond that.
   *
   * <p>The same calls come under both {@linkplain PolyglotSandbox.Isolation isolations}; with process
   * isolation the handlers run on host threads, as always, and the result is the host's.
   *
   * <p>Every method is called in a run's path, on the caller's, a run's or a handler's thread: it must be
   * quick and must not block. One that throws (even an {@link Error}) changes nothing for the run: the
   * failure is logged to the {@code org.polyglotsandbox} logger and the run goes on.
   *
   * @since 0.1.0
   */
  @FunctionalInterface
  public interface RunObserver {
    /**
     * A run was admitted: called on the thread that called {@link PolyglotSandbox#run} or
     * {@link PolyglotSandbox#runAsync}, after the script was checked and before the run waits for a turn,
     * so whatever that thread carries (a current trace, say) is visible here. A script the sandbox refuses
     * at once ({@link IllegalArgumentException}, a closed sandbox) is never started.
     *
     * @return what to tell of this run's handlers and its end; {@link Run#NONE} to be told nothing more
     */
    Run runStarted(Script script);

    /** One run, as an observer follows it. */
    interface Run {
      /** Watches nothing. */
      Run NONE = (result, failure) -> {};

      /**
       * A tool's handler is about to be called for this run, on the thread that will call it (the guest's
       * thread for an {@linkplain Tool.Builder#inline() inline} tool, a handler thread otherwise), so what
       * the observer sets on that thread is visible to the handler. Calls that never reach a handler
       * (arguments refused, over the tool's budget, a tool the policy does not allow) are not reported
       * here; they are in the result's {@link ExecutionResult#events()}. Default: {@link HandlerCall#NONE}.
       *
       * @return told on the same thread, right after the handler returned or threw
       */
      default HandlerCall handlerStarted(Tool.Call call) {
        return HandlerCall.NONE;
      }

      /**
       * The run ended, once per run: with its result (whatever its {@link Outcome}), or with the failure
       * {@link PolyglotSandbox#run} throws or {@link PolyglotSandbox#runAsync}'s future completes with when
       * there is no result ({@link java.util.concurrent.RejectedExecutionException}: refused or not started
       * in time, the guest did not run; {@link java.util.concurrent.CancellationException}: interrupted or
       * cancelled while waiting; {@link IllegalStateException}: the sandbox closed or failed to start).
       * Exactly one of the two is non-null. Called before {@code run} returns or throws, or before
       * {@code runAsync}'s future completes, on the thread that completes it.
       */
      void ended(ExecutionResult result, Throwable failure);
    }

    /** One call of a tool's handler. */
    @FunctionalInterface
    interface HandlerCall {
      /** Watches nothing. */
      HandlerCall NONE = failure -> {};

      /**
       * The handler returned ({@code failure} null) or threw; its result has not been checked yet, so a
       * handler that returned can still make a call that fails ({@link SandboxEvent.ToolCall.Status}).
       */
      void ended(Throwable failure);
    }
  }
}
