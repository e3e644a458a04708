package org.polyglotsandbox;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.ResourceLimits;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.polyglotsandbox.internal.boundary.BoundedOutput;
import org.polyglotsandbox.internal.boundary.ResultTooLargeException;
import org.polyglotsandbox.internal.boundary.ValueCopier;
import org.polyglotsandbox.internal.engine.ContextFactory;
import org.polyglotsandbox.internal.engine.ErrorClassifier;
import org.polyglotsandbox.internal.filesystem.GuestFileSystem;
import org.polyglotsandbox.internal.filesystem.InterpreterFiles;
import org.polyglotsandbox.internal.filesystem.JavaScriptFileApi;
import org.polyglotsandbox.internal.limits.ResourceMonitor;
import org.polyglotsandbox.internal.limits.RunGuard;
import org.polyglotsandbox.internal.limits.RunMeter;
import org.polyglotsandbox.internal.tools.ToolRegistry;

/**
 * One run: a fresh file system and context on a dedicated thread, a watchdog deadline, the result
 * copied out, and everything closed. Nothing of it outlives {@link #execute}.
 */
final class GuestRun {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  /** How long after the deadline the caller waits for a cancelled guest thread before giving up on it. */
  private static final Duration GRACE = Duration.ofSeconds(5);
  private static final AtomicLong IDS = new AtomicLong();

  private record Raw(Object value, ErrorClassifier.Verdict failure, long fileBytes, long files) {
    Raw(Object value, ErrorClassifier.Verdict failure) {
      this(value, failure, 0, 0);
    }

    Raw withFiles(GuestFileSystem fs) {
      return new Raw(value, failure, fs.bytesUsed(), fs.files());
    }
  }

  private final Engine engine;
  private final Policy policy;
  private final InterpreterFiles interpreterFiles;
  private final ScheduledExecutorService watchdog;
  private final ResourceMonitor monitor;
  private final Script script;
  /** The script's inputs as JSON text, encoded (and checked) once by the caller. */
  private final Map<String, String> inputs;
  private final RunGuard guard;
  private final RunMeter meter;
  private final ToolRegistry tools;

  GuestRun(Engine engine, Policy policy, InterpreterFiles interpreterFiles, ScheduledExecutorService watchdog,
      ResourceMonitor monitor, Script script, Map<String, String> inputs, ToolRegistry tools) {
    this.engine = engine;
    this.policy = policy;
    this.interpreterFiles = interpreterFiles;
    this.watchdog = watchdog;
    this.monitor = monitor;
    this.script = script;
    this.inputs = inputs;
    this.guard = new RunGuard(watchdog);
    this.meter = new RunMeter(guard, policy.limits().maxCpuTime(), policy.limits().maxAllocatedBytes());
    this.tools = tools;
  }

  RunGuard guard() {
    return guard;
  }

  ExecutionResult execute() {
    Limits limits = policy.limits();
    long start = System.nanoTime();
    BoundedOutput output = new BoundedOutput(limits.maxOutputBytes(),
        () -> guard.trip(Limit.OUTPUT, "output exceeded " + limits.maxOutputBytes() + " bytes",
            Layer.OUTPUT_BOUNDARY, true));
    Runnable tripDeadline =
        () -> guard.trip(Limit.WALL_TIME, "wall time exceeded " + format(limits.wallTime()), Layer.WATCHDOG, true);
    ScheduledFuture<?> deadline = watchdog.schedule(tripDeadline, limits.wallTime().toNanos(), TimeUnit.NANOSECONDS);

    CompletableFuture<Raw> done = new CompletableFuture<>();
    Thread thread = Thread.ofPlatform()
        .name("polyglot-sandbox-run-" + IDS.incrementAndGet())
        .daemon(true)
        .stackSize(limits.stackSize())
        .unstarted(() -> {
          try {
            done.complete(body(output));
          } catch (Throwable t) {
            done.completeExceptionally(t);
          }
        });
    thread.start();

    Raw raw;
    try {
      raw = done.get(limits.wallTime().plus(GRACE).toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      tripDeadline.run();
      LOG.log(System.Logger.Level.WARNING, "guest thread " + thread.getName() + " did not stop after cancellation; abandoned");
      raw = null;
    } catch (InterruptedException e) {
      guard.cancel();
      Thread.currentThread().interrupt();
      raw = new Raw(null, new ErrorClassifier.Verdict(Outcome.INTERNAL_ERROR, null,
          "run cancelled: the host thread was interrupted", List.of(), null, null));
    } catch (ExecutionException e) {
      LOG.log(System.Logger.Level.ERROR, "sandbox run failed", e.getCause());
      raw = new Raw(null, internalError());
    } finally {
      deadline.cancel(false);
    }
    return result(raw, output, Duration.ofNanos(System.nanoTime() - start));
  }

  private Raw body(BoundedOutput output) {
    Limits limits = policy.limits();
    GuestFileSystem fs;
    try {
      fs = GuestFileSystem.create(policy.mounts(), policy.workingDirectory(), guard, limits.maxFileBytes(),
          limits.maxFiles());
    } catch (UncheckedIOException e) {
      LOG.log(System.Logger.Level.ERROR, "mount could not be copied in", e);
      String what = e.getCause() instanceof java.nio.file.FileSystemException fse ? fse.getFile() : "a mount";
      return new Raw(null, new ErrorClassifier.Verdict(Outcome.INTERNAL_ERROR, null,
          "mount " + what + " could not be prepared (missing, unreadable, or larger than the file limits)",
          List.of(), null, null));
    }
    try {
      return run(fs, output).withFiles(fs);
    } finally {
      fs.close();
    }
  }

  private Raw run(GuestFileSystem fs, BoundedOutput output) {
    Limits limits = policy.limits();
    ResourceLimits statementLimit = ResourceLimits.newBuilder()
        .statementLimit(limits.maxStatements(), null)
        .onLimit(event -> guard.trip(Limit.STATEMENTS, "more than " + limits.maxStatements() + " statements",
            Layer.STATEMENT_LIMIT, false))
        .build();
    Context context = null;
    try {
      context = ContextFactory.newContext(engine, script.language(),
          script.language() == Language.PYTHON ? interpreterFiles.forPython(fs) : fs,
          output.stdout(), output.stderr(), statementLimit);
      guard.attach(context);
      if (script.language() == Language.JAVASCRIPT) {
        JavaScriptFileApi.install(context, fs);
      }
      if (!tools.isEmpty()) {
        tools.gateway(script.language(), limits, guard).install(context);
      }
      bindInputs(context);
      Source source = Source.newBuilder(script.language().id(), script.code(), script.name()).buildLiteral();
      meter.start();
      monitor.add(meter);
      Value value = context.eval(source);
      return new Raw(new ValueCopier(script.language(), limits).copy(value), null);
    } catch (ResultTooLargeException e) {
      guard.trip(Limit.RESULT, e.getMessage(), Layer.OUTPUT_BOUNDARY, false);
      return new Raw(null, null);
    } catch (PolyglotException e) {
      if (guard.tripped() != null) {
        return new Raw(null, null);
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
      }
      return new Raw(null, v);
    } catch (IllegalStateException e) {
      // The context was closed under the guest by a limit or the host.
      if (guard.tripped() != null) {
        return new Raw(null, null);
      }
      LOG.log(System.Logger.Level.ERROR, "sandbox run failed", e);
      return new Raw(null, internalError());
    } catch (StackOverflowError e) {
      guard.trip(Limit.STACK, "stack exhausted", Layer.CONTEXT_PERMISSIONS, false);
      return new Raw(null, null);
    } finally {
      meter.finish();
      monitor.remove(meter);
      if (context != null) {
        try {
          context.close();
        } catch (RuntimeException deadAfterLimit) {
          // A context stopped by a limit rethrows the limit from close(); it is closed regardless.
        }
      }
    }
  }

  private void bindInputs(Context context) {
    if (inputs.isEmpty()) {
      return;
    }
    String parserCode = script.language() == Language.PYTHON ? "__import__('json').loads" : "JSON.parse";
    Value parse = context.eval(Source.newBuilder(script.language().id(), parserCode, "inputs").buildLiteral());
    Value bindings = context.getBindings(script.language().id());
    for (Map.Entry<String, String> input : inputs.entrySet()) {
      bindings.putMember(input.getKey(), parse.execute(input.getValue()));
    }
  }

  private ExecutionResult result(Raw raw, BoundedOutput output, Duration wallTime) {
    RunGuard.Trip trip = guard.tripped();
    Outcome outcome;
    Limit limit = null;
    Object value = null;
    String error = null;
    List<String> stack = List.of();
    Integer exitStatus = null;
    if (trip != null) {
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
    Usage usage = new Usage(wallTime, meter.cpuTime(), meter.allocatedBytes(), statements, output.bytesWritten(),
        raw == null ? 0 : raw.fileBytes(), raw == null ? 0 : raw.files());
    return new ExecutionResult(outcome, limit, value, error, stack, exitStatus, output.stdoutText(),
        output.stderrText(), usage, guard.events(), guard.runId(), guard.droppedEvents());
  }

  private static ErrorClassifier.Verdict internalError() {
    return new ErrorClassifier.Verdict(Outcome.INTERNAL_ERROR, null, "internal error in the sandbox", List.of(),
        null, null);
  }

  static String format(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
