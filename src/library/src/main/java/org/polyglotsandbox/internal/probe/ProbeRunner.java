package org.polyglotsandbox.internal.probe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import org.polyglotsandbox.EscapeProbe;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolicyReport;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.internal.spi.ProbeSuite;

/**
 * Runs the escape probe: prepares the host fixtures, plans the battery for the policy's mounts and
 * tools, runs each language's part ({@link LanguageRun}, the languages side by side) and returns every
 * probe's result, in the battery's order. {@link EscapeProbe} is its only caller outside this package.
 *
 * <p>{@code -Dsandbox.probe.trace=true} prints when each sandbox and run starts to stderr.
 */
public final class ProbeRunner {
  /** A name no one registers: every policy's gateway must refuse it. */
  static final String UNDECLARED_TOOL = "audit.undeclared";

  private final ProbeSuite.Settings settings;
  private final List<Probe> extra;
  /** Runs at once, in all languages together: the parallelism, at most the processors. */
  private final int parallelism;
  private final Semaphore running;

  /** @param extra probes to run besides the standard battery (tests plant wrong expectations with them) */
  ProbeRunner(ProbeSuite.Settings settings, List<Probe> extra) {
    this.settings = settings;
    this.extra = List.copyOf(extra);
    this.parallelism = Math.max(1, Math.min(settings.parallelism(), Runtime.getRuntime().availableProcessors()));
    this.running = new Semaphore(parallelism);
  }

  /**
   * Runs the standard battery.
   *
   * @return every probe's result, language by language in the battery's order
   * @throws IllegalStateException if the fixtures cannot be prepared or a sandbox cannot start
   * @throws CancellationException if the calling thread is interrupted (the interrupt status is kept)
   */
  List<EscapeProbe.Result> run() {
    Policy policy = settings.policy();
    List<Language> languages = policy.languages().stream().filter(settings.languages()::contains).toList();
    List<EscapeProbe.Result> results = new ArrayList<>();
    try (ProbeFixtures fixtures = ProbeFixtures.create(policy)) {
      List<Probe> probes = new ArrayList<>(battery(fixtures).plan(languages));
      probes.addAll(extra);
      Map<String, Object> data = fixtures.data(toolArguments());
      Judge judge = new Judge(settings.declared());
      List<Callable<List<EscapeProbe.Result>>> perLanguage = new ArrayList<>();
      for (Language language : languages) {
        List<Probe> mine = probes.stream().filter(p -> p.language() == language).toList();
        if (!mine.isEmpty()) {
          perLanguage.add(() -> new LanguageRun(this, language, mine, data, judge).run());
        }
      }
      // The languages go side by side: one's sandbox start-up and state runs (which go one at a time)
      // overlap the other's runs; the runs of both together stay within the parallelism.
      for (List<EscapeProbe.Result> r : inParallel(perLanguage, perLanguage.size(), "sandbox-probe-language")) {
        results.addAll(r);
      }
    }
    return List.copyOf(results);
  }

  /**
   * One probe run, counted against the parallelism (the languages' runs together).
   *
   * @throws CancellationException if the calling thread is interrupted while it waits (the interrupt
   *     status is kept)
   */
  ExecutionResult run(PolyglotSandbox sandbox, Script script) {
    try {
      running.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("the escape probe was interrupted");
    }
    try {
      return sandbox.run(script);
    } finally {
      running.release();
    }
  }

  /** The battery for the policy: its allowed tools as registered, in the policy's order, and the names to refuse. */
  ProbeBattery battery(ProbeFixtures fixtures) {
    Policy policy = settings.policy();
    Map<String, Tool> registered = new LinkedHashMap<>();
    settings.tools().forEach(t -> registered.put(t.name(), t));
    List<Tool> allowed = policy.tools().stream().filter(registered::containsKey).map(registered::get).toList();
    Set<String> refused = new LinkedHashSet<>(List.of(UNDECLARED_TOOL));
    refused.addAll(registered.keySet());
    refused.addAll(settings.refusedToolNames());
    refused.removeAll(policy.tools());
    return new ProbeBattery(policy, allowed, fixtures, List.copyOf(refused));
  }

  /** The {@code toolArgs} fixture: per allowed tool, its arguments, or {@code {}}. */
  private Map<String, Object> toolArguments() {
    Map<String, Object> args = new LinkedHashMap<>();
    for (String name : settings.policy().tools()) {
      args.put(name, settings.toolArguments().getOrDefault(name, Map.of()));
    }
    return args;
  }

  /** The policy narrowed to one language, as {@code bin/sandbox run} builds it for a program in that language. */
  Policy forLanguage(Language language) {
    Policy policy = settings.policy();
    Policy.Builder b = Policy.builder().allowLanguages(language).limits(policy.limits());
    policy.mounts().forEach(b::mount);
    b.allowTools(policy.tools().toArray(String[]::new));
    return b.workingDirectory(policy.workingDirectory()).build();
  }

  List<Tool> tools() {
    return settings.tools();
  }

  /**
   * Runs independent runs on a few threads: each run is single-threaded, so two cores finish the
   * battery in about half the time. The result does not depend on the order.
   */
  void runAll(List<Callable<Void>> tasks) {
    inParallel(tasks, parallelism, "sandbox-probe");
  }

  /** Calls every task on at most {@code threads} threads and returns their results in order. */
  private static <T> List<T> inParallel(List<Callable<T>> tasks, int threads, String name) {
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads), r -> Thread.ofPlatform().daemon()
        .name(name).unstarted(r));
    try {
      List<Future<T>> futures = new ArrayList<>();
      tasks.forEach(t -> futures.add(pool.submit(t)));
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        try {
          out.add(f.get());
        } catch (ExecutionException e) {
          throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("the escape probe was interrupted");
    } finally {
      pool.shutdownNow();
    }
  }

  private static final long T0 = System.nanoTime();

  static void trace(String what) {
    if (Boolean.getBoolean("sandbox.probe.trace")) {
      System.err.printf("[%6d ms] %s%n", (System.nanoTime() - T0) / 1_000_000, what);
    }
  }
}
