package org.polyglotsandbox;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.graalvm.polyglot.Engine;
import org.polyglotsandbox.internal.audit.Auditor;
import org.polyglotsandbox.internal.boundary.InputEncoder;
import org.polyglotsandbox.internal.engine.ContextFactory;
import org.polyglotsandbox.internal.engine.LogOutputStream;
import org.polyglotsandbox.internal.filesystem.InterpreterFiles;
import org.polyglotsandbox.internal.limits.ResourceMonitor;
import org.polyglotsandbox.internal.limits.RunGuard;
import org.polyglotsandbox.internal.tools.ToolBinding;
import org.polyglotsandbox.internal.tools.ToolRegistry;

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
 * sandbox shares one GraalVM {@link Engine} across runs for code caching and nothing else. Runs are
 * safe to start from many threads. {@link #run} never throws for anything guest code does.
 *
 * <p>Guest code affects the world only through {@link Tool}s: registered with {@link Builder#tool} and
 * allowed by name in the policy ({@link Policy.Builder#allowTools}), they appear to the guest as
 * {@code tools.name(...)}; see {@link Tool} for what happens on each call.
 *
 * <p>Every denied attempt, tripped limit and tool call is an {@link AuditEvent}: in the result, to the
 * {@linkplain Builder#auditListener listener}, and as a JDK Flight Recorder event.
 */
public final class PolyglotSandbox implements AutoCloseable {
  private final Policy policy;
  private final Engine engine;
  private final InterpreterFiles interpreterFiles;
  private final ScheduledExecutorService watchdog;
  private final ResourceMonitor monitor;
  private final List<Tool> tools;
  private final ToolRegistry toolRegistry;
  private final Set<RunGuard> active = ConcurrentHashMap.newKeySet();
  private final Auditor auditor;
  private volatile boolean closed;

  private PolyglotSandbox(Policy policy, double heapThreshold, List<Tool> tools, Auditor auditor) {
    this.policy = policy;
    this.auditor = auditor;
    this.tools = List.copyOf(tools);
    Map<String, ToolBinding> bindings = new LinkedHashMap<>();
    tools.forEach(t -> bindings.put(t.name(), t.binding()));
    this.toolRegistry = new ToolRegistry(bindings);
    this.interpreterFiles = InterpreterFiles.locate();
    ScheduledThreadPoolExecutor w = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "polyglot-sandbox-watchdog");
      t.setDaemon(true);
      return t;
    });
    w.setRemoveOnCancelPolicy(true);
    this.watchdog = Executors.unconfigurableScheduledExecutorService(w);
    this.monitor = new ResourceMonitor(heapThreshold);
    watchdog.scheduleAtFixedRate(monitor, ResourceMonitor.PERIOD_MILLIS, ResourceMonitor.PERIOD_MILLIS,
        TimeUnit.MILLISECONDS);
    this.engine = ContextFactory.newEngine(policy.languages(), new LogOutputStream());
  }

  /** A builder; a policy is required. */
  public static Builder builder() {
    return new Builder();
  }

  /** The policy every run follows. */
  public Policy policy() {
    return policy;
  }

  /**
   * The tools guest code may call: those registered whose names the policy allows, in the policy's
   * order. Registered tools the policy does not name are left out; guest code cannot see them.
   */
  public List<Tool> tools() {
    return tools;
  }

  /**
   * The Truffle runtime in use: {@code "GraalVM CE"} (or another compiler name) with the optimizing
   * runtime, {@code "Interpreted"} on the 15-35x slower fallback.
   */
  public String runtimeName() {
    return engine.getImplementationName();
  }

  /** Whether guest code is compiled to machine code (the JVM was started with the JIT flags). */
  public boolean isOptimizingRuntime() {
    return !"Interpreted".equals(engine.getImplementationName());
  }

  /** Runs a program with no inputs. */
  public ExecutionResult run(Language language, String code) {
    return run(Script.of(language, code));
  }

  /**
   * Runs one guest program in a fresh context and file system, and destroys both before returning.
   *
   * @throws IllegalArgumentException if the policy does not allow the script's language, or an input
   *     is not plain data
   * @throws IllegalStateException if the sandbox is closed
   */
  public ExecutionResult run(Script script) {
    Objects.requireNonNull(script, "script");
    if (closed) {
      throw new IllegalStateException("sandbox is closed");
    }
    if (!policy.allows(script.language())) {
      throw new IllegalArgumentException("policy does not allow language '" + script.language().id()
          + "' (allowed: " + policy.languages().stream().map(Language::id).toList() + ")");
    }
    Map<String, String> inputs = new LinkedHashMap<>();
    script.inputs().forEach((name, value) -> inputs.put(name, InputEncoder.toJson(name, value)));
    GuestRun run = new GuestRun(engine, policy, interpreterFiles, watchdog, monitor, script, inputs, toolRegistry);
    run.guard().auditTo(auditor);
    active.add(run.guard());
    try {
      ExecutionResult result = run.execute();
      run.guard().finishAudit(result.events().size());
      return result;
    } finally {
      active.remove(run.guard());
    }
  }

  /** Cancels running guests, then releases the engine and the watchdog. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    active.forEach(RunGuard::cancel);
    watchdog.shutdown();
    toolRegistry.close();
    try {
      engine.close(true);
    } catch (RuntimeException e) {
      System.getLogger("org.polyglotsandbox").log(System.Logger.Level.WARNING, "engine did not close cleanly", e);
    }
  }

  private void warmUp() {
    // Runs ordinary calls first: if unbounded recursion were the first guest code in this JVM, Truffle's
    // class initialisation could fail and break every later context in the JVM.
    for (Language language : policy.languages()) {
      // Trusted code, but the first Python context in a JVM takes seconds (more on a busy machine).
      Policy warm = Policy.builder().allowLanguages(language)
          .limits(Limits.builder().wallTime(java.time.Duration.ofMinutes(3)).build()).build();
      Script warmUp = Script.of(language, WarmUp.code(language)).named("warm-up" + language.extensions().get(0));
      ExecutionResult r =
          new GuestRun(engine, warm, interpreterFiles, watchdog, monitor, warmUp, Map.of(), ToolRegistry.none())
              .execute();
      if (!r.isOk()) {
        throw new IllegalStateException("the " + language.id() + " warm-up failed: " + r.outcome() + " "
            + r.errorMessage().orElse(""));
      }
      if (language == Language.PYTHON && !(r.value() instanceof String prefix && interpreterFiles.containsPrefix(prefix))) {
        throw new IllegalStateException("GraalPy's home " + r.value() + " is not under the expected cache "
            + interpreterFiles.pythonHomes() + "; set -Dpolyglot.engine.userResourceCache consistently");
      }
    }
  }

  /** Builds a {@link PolyglotSandbox}. */
  public static final class Builder {
    private Policy policy;
    private double heapThreshold = 0.85;
    private final Map<String, Tool> tools = new LinkedHashMap<>();
    private Consumer<? super AuditEvent> auditListener;

    private Builder() {}

    /**
     * The fraction of the maximum heap that, in use after a garbage collection, counts as pressure:
     * the sandbox then stops the running guest that allocated the most (limit {@code memory}), one per
     * collection, so that the host and the other guests keep working. Default 0.85.
     */
    public Builder heapPressureThreshold(double fraction) {
      if (!(fraction > 0.1 && fraction <= 1.0)) {
        throw new IllegalArgumentException("heapPressureThreshold (" + fraction + ") must be in (0.1, 1.0]");
      }
      this.heapThreshold = fraction;
      return this;
    }

    /** The policy every run follows. Required. */
    public Builder policy(Policy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Registers a tool. Guest code can call it only if the policy also allows its name.
     *
     * @throws IllegalArgumentException if a tool of the same name is already registered
     */
    public Builder tool(Tool tool) {
      Objects.requireNonNull(tool, "tool");
      if (tools.putIfAbsent(tool.name(), tool) != null) {
        throw new IllegalArgumentException("tool '" + tool.name() + "' is registered twice");
      }
      return this;
    }

    /**
     * Receives every {@link AuditEvent} of every run, as it happens: each denied attempt, tripped limit
     * and tool call. Default: none (the events are still in each result and emitted to JDK Flight
     * Recorder).
     *
     * <p>Threads: an event the guest causes (a denial, a tool call, the statement, output, file or
     * result limit) is delivered on the run's own guest thread, before the guest continues, so a slow
     * listener slows only that run (and counts against its wall time). An event detected elsewhere
     * (the wall-time deadline, the CPU, memory and heap-pressure checks of the sandbox's watchdog) is
     * delivered on the guest thread's next event, or else on the thread that called {@link #run} before
     * it returns: the listener never runs on the shared watchdog. Events of one run arrive in order,
     * each once, all of them before {@code run} returns: those in the result's
     * {@link ExecutionResult#events()} (a guest thread that ignores cancellation and is abandoned after
     * its deadline may deliver a few more while it winds down). Runs on several threads call the
     * listener concurrently, so it must be thread-safe. It must not call back into the sandbox.
     *
     * <p>A listener that throws (even an {@link Error}) does not affect the run: the failure is logged
     * to the {@code org.polyglotsandbox} logger and the event is dropped for the listener.
     */
    public Builder auditListener(Consumer<? super AuditEvent> listener) {
      this.auditListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Registers each tool, as {@link #tool(Tool)}. */
    public Builder tools(Collection<Tool> tools) {
      Objects.requireNonNull(tools, "tools").forEach(this::tool);
      return this;
    }

    /**
     * Creates the engine and warms up each allowed language (the first Python context in a JVM takes
     * seconds).
     *
     * @throws IllegalStateException if no policy was set, a mount's host path does not exist, or the
     *     policy allows a tool that was not registered
     */
    public PolyglotSandbox build() {
      if (policy == null) {
        throw new IllegalStateException("no policy set: call policy(...) before build()");
      }
      for (Mount m : policy.mounts()) {
        m.hostPath().ifPresent(p -> {
          if (!Files.exists(p)) {
            throw new IllegalStateException("mount " + m.guestPath() + ": host path " + p + " does not exist");
          }
        });
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
      PolyglotSandbox sandbox = new PolyglotSandbox(policy, heapThreshold, allowed, new Auditor(auditListener));
      try {
        sandbox.warmUp();
      } catch (RuntimeException e) {
        sandbox.close();
        throw e;
      }
      return sandbox;
    }
  }

  private static final class WarmUp {
    static String code(Language language) {
      return switch (language) {
        case JAVASCRIPT -> "function f(n) { return n <= 0 ? 0 : 1 + f(n - 1); }\n"
            + "let s = 0; for (let i = 0; i < 200; i++) { s += f(20); } s;";
        case PYTHON -> "import sys\n"
            + "def f(n):\n    return 0 if n <= 0 else 1 + f(n - 1)\n"
            + "s = 0\nfor i in range(200):\n    s += f(20)\nsys.prefix";
      };
    }
  }
}
