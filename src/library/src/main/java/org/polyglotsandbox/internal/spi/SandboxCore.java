package org.polyglotsandbox.internal.spi;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.polyglotsandbox.AuditEvent;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.Tool;

/**
 * The engine room as {@code PolyglotSandbox} sees it: admission, run execution, the warm pool, the
 * watchdog. The API holds one and delegates to it; it never names the class that implements it, which
 * {@link ServiceLoader} finds in this library ({@code internal.engine}), so that the API imports no
 * engine-room class.
 *
 * <p>Every argument is already checked by the API: the script's language is allowed, its inputs are
 * encoded, the tools are the policy's allowed ones.
 */
public abstract class SandboxCore implements AutoCloseable {
  /**
   * What the API's builder settled, checked. {@code singleRun}: the sandbox will run one program, so
   * the warm-up runs that protect later runs are skipped. {@code inBackground}: the warm-up runs on a
   * thread of its own and runs wait for it.
   */
  public record Settings(Policy policy, List<Tool> tools, double heapThreshold, int maxConcurrentRuns,
      int maxWaitingRuns, int warmContexts, Duration warmUp, Consumer<? super AuditEvent> auditListener,
      Duration startTimeout, boolean singleRun, boolean inBackground, List<String> pythonPath,
      List<String> pythonImports, Duration lowerPriorityAfter, Isolation isolation) {}

  /**
   * Makes an engine room: one in {@code internal.engine} for in-process runs, one in {@code internal.worker}
   * for worker processes, found with {@link ServiceLoader}.
   */
  public interface Factory {
    /** Whether this factory makes the room for {@code isolation}. */
    boolean serves(Isolation isolation);

    SandboxCore create(Settings settings, ApiAccess api);
  }

  private static final List<Factory> FACTORIES = ServiceLoader.load(Factory.class, Factory.class.getClassLoader())
      .stream().map(ServiceLoader.Provider::get).toList();

  protected SandboxCore() {}

  /** Makes the engine room and warms it up (see {@code PolyglotSandbox.Builder#build}). */
  public static SandboxCore create(Settings settings, ApiAccess api) {
    for (Factory f : FACTORIES) {
      if (f.serves(settings.isolation())) {
        return f.create(settings, api);
      }
    }
    throw new IllegalStateException("polyglot-sandbox's engine for " + settings.isolation() + " is missing from its jar"
        + " (META-INF/services/" + Factory.class.getName() + ")");
  }

  /**
   * Runs one script and waits for it; see {@code PolyglotSandbox#run(Script)}. {@code observed} is told of
   * each call of a tool's handler (it never throws); the API tells it of the run's end.
   */
  public abstract ExecutionResult run(Script script, Map<String, String> inputs, RunObserver.Run observed);

  /** Starts one script; see {@code PolyglotSandbox#runAsync(Script)} and {@link #run}. */
  public abstract CompletableFuture<ExecutionResult> runAsync(Script script, Map<String, String> inputs,
      RunObserver.Run observed);

  /** Completes when the warm-up has ended; see {@code PolyglotSandbox#started()}. */
  public abstract CompletionStage<Void> started();

  public abstract int runningRuns();

  /** Worker processes ready to take runs; see {@code PolyglotSandbox#readyWorkers()}. */
  public int readyWorkers() {
    return 0;
  }

  public abstract int waitingRuns();

  public abstract int warmContexts(Language language);

  /** See {@code PolyglotSandbox#callerThreads()}. */
  public abstract java.util.concurrent.ThreadFactory callerThreads();

  /** See {@code PolyglotSandbox#undeliveredAuditEvents()}. */
  public abstract long undeliveredAuditEvents();

  /** The Truffle runtime's name: a compiler's, or {@code "Interpreted"} on the fallback. */
  public abstract String runtimeName();

  /** Where guest code runs and behind which walls, in one line; see {@code PolyglotSandbox#isolationInForce()}. */
  public String wall() {
    return "in-process: guest code runs in this JVM, behind GraalVM's sandbox policy and the sandbox's own layers";
  }

  @Override
  public abstract void close();
}
