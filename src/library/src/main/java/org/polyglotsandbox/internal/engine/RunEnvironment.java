package org.polyglotsandbox.internal.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.ResourceLimits;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;
import org.polyglotsandbox.internal.boundary.BoundedOutput;
import org.polyglotsandbox.internal.boundary.GuestMeasure;
import org.polyglotsandbox.internal.filesystem.GuestFileSystem;
import org.polyglotsandbox.internal.filesystem.InterpreterFiles;
import org.polyglotsandbox.internal.filesystem.JavaScriptFileApi;
import org.polyglotsandbox.internal.filesystem.PythonFileSystem;
import org.polyglotsandbox.internal.spi.RunFile;
import org.polyglotsandbox.internal.limits.RunGuard;
import org.polyglotsandbox.internal.limits.Watchdog;
import org.polyglotsandbox.internal.tools.ToolGateway;
import org.polyglotsandbox.internal.tools.ToolRegistry;

/**
 * What one run executes in: a context, the file system it sees, its output buffers and its guard, made
 * together and closed together. Made either by the run itself or in advance by the warm pool; either
 * way exactly one run {@linkplain #claim() claims} it, and nothing of it is reused afterwards.
 *
 * <p>The file system is made empty and the mounts are copied in by the run ({@link #startRun}), so a
 * context prepared seconds earlier still sees the host files as they are when its run starts. The one
 * exception: a Python context whose sandbox imports modules from its {@code pythonPath} gets the mounts
 * on that path when it is made, before the imports; a run uses it only if they still match the host
 * ({@link #mountsStillCurrent()}).
 */
final class RunEnvironment implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  /**
   * GraalPy's prefix, checked in every Python context before any guest code (a host path must never
   * show). A constant, so the engine keeps its code (it does only while the Source object lives).
   */
  private static final Source PYTHON_PREFIX =
      Source.newBuilder("python", "__import__('sys').prefix", "prefix").internal(true).buildLiteral();

  private final Language language;
  private final RunGuard guard;
  private final BoundedOutput output;
  private final GuestFileSystem fileSystem;
  private final Context context;
  /** The run's tool gateway, or null when the sandbox has no tools. */
  private ToolGateway gateway;
  private GuestMeasure measure;
  /** JavaScript only: the context's timers and thenable subscription; null for Python. */
  private JavaScriptEventLoop eventLoop;
  /** Python only: the context's coroutine runner ({@link AsyncResult#PYTHON_RUNNER}); null for JavaScript. */
  private Value coroutineRunner;
  private final AtomicBoolean claimed = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();

  private RunEnvironment(Language language, RunGuard guard, BoundedOutput output, GuestFileSystem fileSystem,
      Context context) {
    this.language = language;
    this.guard = guard;
    this.output = output;
    this.fileSystem = fileSystem;
    this.context = context;
  }

  /** The output buffers of a new run, which stop it through {@code guard} when they overflow. */
  static BoundedOutput newOutput(Limits limits, RunGuard guard) {
    return new BoundedOutput(limits.maxOutputBytes(),
        () -> guard.trip(Limit.OUTPUT, "output exceeded " + limits.maxOutputBytes() + " bytes",
            Layer.OUTPUT_BOUNDARY, true));
  }

  /**
   * Makes the environment of one run of {@code language}: an empty file system and a fresh context on
   * {@code engine} with the sandbox's own globals ({@code readText}, {@code tools}) installed. Guest code
   * has not run in it.
   */
  static RunEnvironment create(Engine engine, Policy policy, Language language, InterpreterFiles interpreterFiles,
      ToolRegistry tools, RunGuard guard, BoundedOutput output) {
    Limits limits = policy.limits();
    GuestFileSystem fs = GuestFileSystem.empty(policy, guard);
    ResourceLimits statementLimit = Watchdog.statementLimit(limits.maxStatements(), guard);
    PythonFileSystem pythonFs = language == Language.PYTHON ? interpreterFiles.forPython(fs) : null;
    Context context;
    try {
      context = ContextFactory.newContext(engine, language, pythonFs != null ? pythonFs : fs,
          output.stdout(), output.stderr(), statementLimit);
    } catch (RuntimeException e) {
      fs.close();
      throw e;
    }
    RunEnvironment env = new RunEnvironment(language, guard, output, fs, context);
    try {
      guard.attach(context);
      if (language == Language.JAVASCRIPT) {
        JavaScriptFileApi.install(context, fs);
        env.eventLoop = JavaScriptEventLoop.install(context);
        JavaScriptBuiltinBounds.install(context);
      } else {
        // The shield's code is the context's first: GraalPy has located its home (at the virtual path)
        // when it returns, and no guest code has run yet.
        ProcessShield.install(context, guard);
        pythonFs.homeLocated();
        env.coroutineRunner = context.eval(AsyncResult.PYTHON_RUNNER).execute();
        Value prefix = context.eval(PYTHON_PREFIX);
        interpreterFiles.requireVirtualHome(prefix.isString() ? prefix.asString() : prefix.toString());
      }
      // Before any guest code: the output boundary and the tool gateway ask the language's own
      // functions, which a guest may replace later.
      env.measure = GuestMeasure.in(context, language);
      if (!tools.isEmpty()) {
        env.gateway = tools.gateway(language, limits, guard);
        env.gateway.install(context, env.measure);
      }
    } catch (RuntimeException e) {
      env.close();
      throw e;
    }
    return env;
  }

  /**
   * Initialises the language ahead of the run (for Python the larger part of a fresh context's cost),
   * sets the sandbox's {@code pythonPath} and imports its {@code pythonImports} in a Python context (with
   * the mounts the imports may load modules from copied in first), then resets the statement
   * count so that the run starts with its whole budget.
   *
   * @param python the sandbox's path and imports, or null for none
   * @throws PythonImports.Failed naming the modules if the imports raised
   * @throws UncheckedIOException naming the mount's guest path if a mount could not be copied in
   */
  RunEnvironment initialize(PythonImports python) {
    context.initialize(language.id());
    if (python != null && language == Language.PYTHON) {
      // Only the mounts on the path, if there are imports; the others are copied in when the run starts.
      fileSystem.copyMountsIn(python::importsFrom);
      // What a module prints on import (this prints the Zen) is the sandbox's set-up, not the run's output.
      String step = python.imports() ? "importing the sandbox's pythonImports" : "setting the sandbox's pythonPath";
      guard.duringSetUp(step, () -> output.muteWhile(() -> python.run(context)));
    }
    context.resetLimits();
    return this;
  }

  /**
   * Whether the run may use this environment as it is: true unless mounts were copied in when it was
   * made ({@link #initialize}) and a host file of theirs has changed, appeared or gone since, or the
   * imports changed the copy. Reads those mounts' host files, as copying them in would.
   */
  boolean mountsStillCurrent() {
    try {
      return fileSystem.mountsMatchHost();
    } catch (IOException | RuntimeException e) {
      return false; // the run makes its own context, whose copy names the mount that failed
    }
  }

  /**
   * Marks this environment as used by one run.
   *
   * @throws IllegalStateException if another run already claimed it: a context is never handed out twice
   */
  RunEnvironment claim() {
    if (!claimed.compareAndSet(false, true)) {
      throw new IllegalStateException("a run environment was handed out twice");
    }
    return this;
  }

  /**
   * The run's first step: hands its label and attributes to its tool gateway (for the handlers), copies
   * the mounts in (those {@link #initialize} did not), then writes the run's own files. So the run sees
   * the host files as they are now (or, for mounts {@code initialize} copied, as they were then, which the
   * run checked with {@link #mountsStillCurrent()}), and a context prepared before its script was known gets
   * that script's context and files.
   *
   * @throws UncheckedIOException naming the mount's guest path if a mount could not be copied in
   * @throws RunFilesDoNotFit if the run's own files do not fit the file limits beside the mounts
   */
  void startRun(List<RunFile> runFiles, String label, Map<String, String> attributes, RunObserver.Run observed) {
    if (gateway != null) {
      gateway.runContext(label, attributes, observed);
    }
    fileSystem.copyMountsIn(); // those initialize did not copy
    try {
      fileSystem.addRunFiles(runFiles);
    } catch (IOException e) {
      String file = e instanceof FileSystemException fse ? fse.getFile() : "?";
      String why = e instanceof FileSystemException fse ? fse.getReason() : String.valueOf(e.getMessage());
      throw new RunFilesDoNotFit("file " + file + " of the run " + why);
    }
  }

  /** The run's own files did not fit its file system's limits; the message names the guest path. */
  static final class RunFilesDoNotFit extends RuntimeException {
    RunFilesDoNotFit(String message) {
      super(message, null, false, false);
    }
  }

  Language language() {
    return language;
  }

  RunGuard guard() {
    return guard;
  }

  BoundedOutput output() {
    return output;
  }

  GuestFileSystem fileSystem() {
    return fileSystem;
  }

  Context context() {
    return context;
  }

  /** The context's coroutine runner (Python); null for JavaScript. */
  Value coroutineRunner() {
    return coroutineRunner;
  }

  /** The output boundary's functions, made in the context before any guest code. */
  GuestMeasure measure() {
    return measure;
  }

  /** The context's event loop (JavaScript); null for Python. */
  JavaScriptEventLoop eventLoop() {
    return eventLoop;
  }

  /** Closes the context and drops the file system. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      // With cancellation: closing must not run guest code again, and a plain close() runs what the
      // guest left for the end (Python's atexit handlers, weakref.finalize, __del__), after its result
      // is out and its limits are released: an endless loop there would keep its thread and a core.
      // A context stopped by a limit can rethrow the limit from close(); it is closed regardless (with
      // assertions on, GraalVM 25.0.3 can fail an assertion instead, seen once in CI in the CLI's probe).
      Throwable closedAnyway = Watchdog.closeCancelled(context);
      if (closedAnyway != null && !guard.isCancelled() && guard.tripped() == null) {
        LOG.log(System.Logger.Level.DEBUG, "context close failed", closedAnyway);
      }
    } finally {
      fileSystem.close();
    }
  }
}
