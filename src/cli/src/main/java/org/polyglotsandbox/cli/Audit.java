package org.polyglotsandbox.cli;

import org.polyglotsandbox.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolicyReport;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.Script;

/**
 * The live audit: builds sandboxes from a policy, runs the probe battery inside them, and compares
 * what each probe observed with what the policy intends.
 *
 * <p>A probe's observation comes from both sides of the wall: the guest's own answer ("reachable" or
 * "blocked", with evidence), the events the host recorded (a "blocked" answer counts only if the layer
 * expected to refuse it recorded the denial; a run the engine ended counts as blocked only with a
 * denial of the probe's operation; a bomb only when its limit stopped it), and host-side checks (a
 * file that appeared, a connection the host accepted), which overrule the guest. Anything else is
 * inconclusive, and fails the audit like a contradiction does.
 *
 * <p>Each language gets the sandbox {@code sandbox run} would build for it, for the access probes (its
 * time and allocation caps raised, so a slow machine cannot make a probe inconclusive), and for the
 * resource bombs sandboxes with the same permissions and short caps ({@link BombSandbox}). Batch probes
 * share one run; probes whose attempt may end a run, exits and bombs run alone, two at a time; state
 * probes plant in one run and look in the next two, before anything else runs in that sandbox.
 *
 * <p>{@code -Dsandbox.audit.trace=true} prints when each sandbox and run starts to stderr.
 */
final class Audit {
  /** What a probe saw. */
  enum Observed {
    REACHABLE,
    BLOCKED,
    INCONCLUSIVE;

    String id() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** One probe's outcome. */
  record ProbeResult(Probe probe, PolicyReport.Entry entry, Verdict intended, Observed observed,
      String evidence) {
    /** Whether the observation agrees with the intention. */
    boolean ok() {
      return observed == Observed.REACHABLE ? intended == Verdict.ALLOWED
          : observed == Observed.BLOCKED && intended == Verdict.DENIED;
    }
  }

  /** One catalogue entry and the probes that tested it. */
  record Row(PolicyReport.Entry entry, List<ProbeResult> results) {
    boolean ok() {
      return results.stream().allMatch(ProbeResult::ok);
    }

    String observed() {
      if (results.isEmpty()) {
        return "not probed";
      }
      boolean reachable = results.stream().anyMatch(r -> r.observed() == Observed.REACHABLE);
      boolean blocked = results.stream().anyMatch(r -> r.observed() == Observed.BLOCKED);
      boolean inconclusive = results.stream().anyMatch(r -> r.observed() == Observed.INCONCLUSIVE);
      return inconclusive ? "inconclusive" : reachable && blocked ? "mixed" : reachable ? "reachable" : "blocked";
    }
  }

  /** The whole audit. */
  record Report(String policy, String languages, List<Row> rows, List<ProbeResult> results, Duration elapsed) {
    boolean passed() {
      return results.stream().allMatch(ProbeResult::ok);
    }

    List<ProbeResult> failures() {
      return results.stream().filter(r -> !r.ok()).toList();
    }
  }

  /** Limits of the access probes' sandbox: the policy's, with time and allocation raised. */
  static Limits accessLimits(Limits l) {
    return l.toBuilder()
        .wallTime(max(l.wallTime(), Duration.ofMinutes(2)))
        .maxCpuTime(max(l.maxCpuTime(), Duration.ofMinutes(2)))
        .maxStatements(Math.max(l.maxStatements(), 1_000_000_000L))
        .maxAllocatedBytes(Math.max(l.maxAllocatedBytes(), 16L << 30))
        .build();
  }

  /** The sandboxes a bomb can run in: each keeps one kind of cap short and the others out of its way. */
  enum BombSandbox {
    /** Statement, memory, output, result, file and tool-call caps short (the policy's, or shorter). */
    COUNTS,
    /** A one-second CPU cap. */
    CPU,
    /** A one-second wall clock. */
    WALL,
    /**
     * Only the stack: unbounded recursion must end on the stack limit, and compiled frames are small, so
     * reaching and unwinding the end of the stack can take more than a second of CPU.
     */
    STACK_DEPTH;

    static BombSandbox of(org.polyglotsandbox.Limit limit) {
      if (limit == null) {
        return COUNTS; // a result for the output boundary to refuse
      }
      return switch (limit) {
        case CPU_TIME -> CPU;
        case STACK -> STACK_DEPTH;
        case WALL_TIME -> WALL;
        default -> COUNTS;
      };
    }

    /**
     * This sandbox's limits for a policy's: the caps under test short, the wall clock and CPU generous
     * (so a busy machine cannot make another cap trip first), file caps and stack as the policy has them.
     */
    Limits limits(Limits l) {
      Limits.Builder b = l.toBuilder()
          .wallTime(Duration.ofMinutes(1))
          .maxCpuTime(Duration.ofMinutes(1))
          .maxStatements(Long.MAX_VALUE)
          .maxAllocatedBytes(Math.max(l.maxAllocatedBytes(), 64L << 30)); // churn, not live data: the heap guard stays
      return switch (this) {
        case COUNTS -> b.maxStatements(Math.min(l.maxStatements(), 100_000L))
            .maxAllocatedBytes(Math.min(l.maxAllocatedBytes(), 512L << 20))
            .maxOutputBytes(Math.min(l.maxOutputBytes(), 64L << 10))
            .maxResultNodes(Math.min(l.maxResultNodes(), 10_000))
            .build();
        case CPU -> b.maxCpuTime(min(l.maxCpuTime(), Duration.ofSeconds(1))).build();
        case WALL -> b.wallTime(min(l.wallTime(), Duration.ofSeconds(1))).build();
        case STACK_DEPTH -> b.build();
      };
    }
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** At most this many runs at once. */
  private static final int PARALLEL_RUNS = 2;

  private final PolicyCommand.Loaded loaded;
  private final PolicyReport declared;
  private final List<Probe> extra;

  /**
   * @param loaded the policy to build the sandboxes from, with its tools
   * @param declared what the audit holds the sandbox to: normally {@code loaded}'s own report
   * @param extra probes to run besides the standard battery
   */
  Audit(PolicyCommand.Loaded loaded, PolicyReport declared, List<Probe> extra) {
    this.loaded = loaded;
    this.declared = declared;
    this.extra = List.copyOf(extra);
  }

  /** Audits {@code loaded} against its own report with the standard battery. */
  static Report run(PolicyCommand.Loaded loaded) {
    return new Audit(loaded, loaded.policy().report(), List.of()).run();
  }

  Report run() {
    long start = System.nanoTime();
    List<ProbeResult> results = new ArrayList<>();
    try (AuditSetup setup = AuditSetup.create(loaded.policy())) {
      List<Probe> probes = new ArrayList<>(ProbeBattery.standard(loaded.policy(), loaded.tools(), setup));
      probes.addAll(extra);
      Map<String, Object> data = setup.data(toolArguments());
      for (Language language : loaded.policy().languages()) {
        List<Probe> mine = probes.stream().filter(p -> p.language() == language).toList();
        if (!mine.isEmpty()) {
          results.addAll(new LanguageRun(language, mine, data).run());
        }
      }
    }
    return report(results, Duration.ofNanos(System.nanoTime() - start));
  }

  private Report report(List<ProbeResult> results, Duration elapsed) {
    Map<PolicyReport.Entry, List<ProbeResult>> byEntry = new LinkedHashMap<>();
    declared.entries().forEach(e -> byEntry.put(e, new ArrayList<>()));
    for (ProbeResult r : results) {
      byEntry.computeIfAbsent(r.entry(), e -> new ArrayList<>()).add(r);
    }
    List<Row> rows = new ArrayList<>();
    byEntry.forEach((e, rs) -> rows.add(new Row(e, List.copyOf(rs))));
    return new Report(loaded.file(), loaded.languagesText(), List.copyOf(rows), List.copyOf(results), elapsed);
  }

  /** Arguments that satisfy the demo tools' schemas; any other tool gets {@code {}}. */
  private Map<String, Object> toolArguments() {
    Map<String, Object> args = new LinkedHashMap<>();
    for (String name : loaded.policy().tools()) {
      args.put(name, switch (name) {
        case "kv.get", "lookup" -> Map.of("key", "audit");
        case "kv.put" -> Map.of("key", "audit", "value", 1L);
        default -> Map.of();
      });
    }
    return args;
  }

  /** The entry a probe tests and the verdict it holds the sandbox to. */
  private PolicyReport.Entry entryOf(Probe p) {
    return declared.entryFor(p.operation(), p.target()).orElseThrow(() -> new IllegalStateException(
        "probe " + p.id() + ": no catalogue entry for " + p.operation().id() + " " + p.target()));
  }

  /**
   * Runs independent runs on a few threads: each run is single-threaded, so two cores finish the
   * battery in about half the time. The result does not depend on the order.
   */
  private static void runAll(List<Callable<Void>> tasks) {
    int threads = Math.max(1, Math.min(PARALLEL_RUNS, Runtime.getRuntime().availableProcessors()));
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> Thread.ofPlatform().daemon()
        .name("sandbox-audit").unstarted(r));
    try {
      List<Future<Void>> futures = new ArrayList<>();
      tasks.forEach(t -> futures.add(pool.submit(t)));
      for (Future<Void> f : futures) {
        try {
          f.get();
        } catch (ExecutionException e) {
          throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartException("the audit was interrupted", e);
    } finally {
      pool.shutdownNow();
    }
  }

  /** The sandboxes and runs of one language. */
  private final class LanguageRun {
    private final Language language;
    private final List<Probe> probes;
    private final Map<String, Object> data;

    LanguageRun(Language language, List<Probe> probes, Map<String, Object> data) {
      this.language = language;
      this.probes = probes;
      this.data = data;
    }

    List<ProbeResult> run() {
      Map<Probe, ProbeResult> out = new ConcurrentHashMap<>();
      Policy base = loaded.forLanguage(language);
      Map<BombSandbox, List<Probe>> bombs = new EnumMap<>(BombSandbox.class);
      for (Probe p : of(Probe.Kind.BOMB)) {
        bombs.computeIfAbsent(BombSandbox.of(p.limit()), k -> new ArrayList<>()).add(p);
      }
      Map<BombSandbox, PolyglotSandbox> bombSandboxes = new EnumMap<>(BombSandbox.class);
      try (PolyglotSandbox sandbox = build(base, accessLimits(base.limits()))) {
        bombs.keySet().forEach(k -> bombSandboxes.put(k, build(base, k.limits(base.limits()))));
        // First, alone: a state probe must find the sandbox exactly as its own earlier run left it.
        runState(sandbox, of(Probe.Kind.STATE), out);
        List<Callable<Void>> tasks = new ArrayList<>();
        List<Probe> batch = of(Probe.Kind.BATCH);
        if (!batch.isEmpty()) {
          tasks.add(() -> {
            trace(language.id() + " batch of " + batch.size());
            ExecutionResult r = sandbox.run(driver(batch, Probe::code));
            Map<String, String> answers = answers(r);
            for (Probe p : batch) {
              // If the batch died before answering, each probe runs alone to show which one and why.
              out.put(p, answers != null ? judge(p, r, answers.get(p.id())) : runAlone(sandbox, p));
            }
            return null;
          });
        }
        for (Probe p : of(Probe.Kind.ALONE)) {
          tasks.add(() -> {
            out.put(p, runAlone(sandbox, p));
            return null;
          });
        }
        bombs.forEach((kind, list) -> list.forEach(p -> tasks.add(() -> {
          out.put(p, runBomb(bombSandboxes.get(kind), p));
          return null;
        })));
        runAll(tasks);
      } finally {
        bombSandboxes.values().forEach(PolyglotSandbox::close);
      }
      return probes.stream().map(out::get).toList();
    }

    private ProbeResult runAlone(PolyglotSandbox sandbox, Probe p) {
      trace(p.id());
      ExecutionResult r = sandbox.run(driver(List.of(p), Probe::code));
      Map<String, String> answers = answers(r);
      return judge(p, r, answers == null ? null : answers.get(p.id()));
    }

    private ProbeResult runBomb(PolyglotSandbox sandbox, Probe p) {
      trace(p.id());
      String name = "audit-" + p.id().replaceAll("[^A-Za-z0-9_.-]", "_") + language.extensions().get(0);
      return judgeBomb(p, sandbox.run(Script.of(language, p.code()).named(name).withInputs(Map.of("audit", data))));
    }

    /** Plants in one run and looks in the next two: a pool that hands out contexts in turn is caught too. */
    private void runState(PolyglotSandbox sandbox, List<Probe> state, Map<Probe, ProbeResult> out) {
      if (state.isEmpty()) {
        return;
      }
      trace(language.id() + " state");
      ExecutionResult planted = sandbox.run(driver(state, Probe::plant));
      Map<String, String> plantAnswers = answers(planted);
      List<ExecutionResult> checks = List.of(sandbox.run(driver(state, Probe::code)),
          sandbox.run(driver(state, Probe::code)));
      for (Probe p : state) {
        String planting = plantAnswers == null ? null : plantAnswers.get(p.id());
        if (planting == null || !planting.startsWith("planted")) {
          out.put(p, result(p, Observed.INCONCLUSIVE, "could not plant: " + describe(planted, planting)));
          continue;
        }
        ProbeResult worst = null;
        for (ExecutionResult check : checks) {
          Map<String, String> answers = answers(check);
          ProbeResult r = judge(p, check, answers == null ? null : answers.get(p.id()));
          if (worst == null || r.observed() != Observed.BLOCKED) {
            worst = r;
          }
        }
        out.put(p, worst);
      }
    }

    private List<Probe> of(Probe.Kind kind) {
      return probes.stream().filter(p -> p.kind() == kind).toList();
    }

    private PolyglotSandbox build(Policy base, Limits limits) {
      try {
        trace("build " + language.id());
        return PolyglotSandbox.builder().policy(base.toBuilder().limits(limits).build()).tools(loaded.tools()).build();
      } catch (IllegalStateException e) {
        throw new StartException("the audit could not start a " + language.id() + " sandbox: " + e.getMessage(), e);
      }
    }

    /** A program running each probe body and returning a map from probe id to its answer. */
    private Script driver(List<Probe> list, Function<Probe, String> body) {
      Map<String, Object> bodies = new LinkedHashMap<>();
      list.forEach(p -> bodies.put(p.id(), body.apply(p)));
      String code = language == Language.JAVASCRIPT ? JS_DRIVER : PY_DRIVER;
      return Script.of(language, code).named(language == Language.JAVASCRIPT ? "audit.js" : "audit.py")
          .withInputs(Map.of("probes", bodies, "audit", data));
    }
  }

  private static final String JS_DRIVER = """
      (() => {
        const results = {};
        for (const id of Object.keys(probes)) {
          let answer;
          try {
            answer = new Function('audit', probes[id])(audit);
          } catch (e) {
            answer = 'blocked: ' + String(e);
          }
          if (answer !== null && typeof answer === 'object' && typeof answer.then === 'function') {
            results[id] = 'unexpected: the promise did not settle';
            answer.then(v => { results[id] = String(v).slice(0, 400); },
              e => { results[id] = ('blocked: ' + String(e)).slice(0, 400); });
          } else {
            results[id] = String(answer).slice(0, 400);
          }
        }
        return results;
      })()
      """;

  /** Catches {@code Exception}, not {@code BaseException}: {@code sys.exit} must end the run. */
  private static final String PY_DRIVER = """
      def __audit(probes, audit, shared):
          results = {}
          for pid, body in probes.items():
              ns = dict(shared)
              ns['__name__'] = '__probe__'
              try:
                  source = 'def probe(audit):\\n' + '\\n'.join('    ' + line for line in body.split('\\n'))
                  exec(compile(source, '<' + pid + '>', 'exec'), ns)
                  answer = ns['probe'](audit)
              except Exception as e:
                  answer = 'blocked: ' + type(e).__name__ + ': ' + str(e)
              results[pid] = str(answer)[:400]
          return results
      __audit(probes, audit, {'tools': tools} if 'tools' in globals() else {})
      """;

  private static final long T0 = System.nanoTime();

  static void trace(String what) {
    if (Boolean.getBoolean("sandbox.audit.trace")) {
      System.err.printf("[%6d ms] %s%n", (System.nanoTime() - T0) / 1_000_000, what);
    }
  }

  /** The driver's answers, or null if the run ended before it returned them. */
  private static Map<String, String> answers(ExecutionResult r) {
    if (!r.isOk() || !(r.value() instanceof Map<?, ?> map)) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>();
    map.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
    return out;
  }

  /** Judges an access probe from its answer (null if the run ended first), the run's events and the host. */
  private ProbeResult judge(Probe p, ExecutionResult r, String answer) {
    String host = p.hostCheck() == null ? null : p.hostCheck().get();
    if (host != null) {
      return result(p, Observed.REACHABLE, "host: " + host);
    }
    if (answer != null) {
      if (answer.startsWith("reachable")) {
        if (p.toolEvent() != null && r.events().stream().noneMatch(e -> e instanceof SandboxEvent.ToolCall t
            && t.tool().equals(p.toolEvent()))) {
          return result(p, Observed.INCONCLUSIVE, "the guest saw '" + answer + "' but the gateway recorded no call of "
              + p.toolEvent());
        }
        return result(p, Observed.REACHABLE, answer);
      }
      if (answer.startsWith("blocked")) {
        if (p.denial() != null && !recorded(r, p.denial(), p.denialTarget())) {
          return result(p, Observed.INCONCLUSIVE, "the guest saw '" + answer + "' but no layer recorded a "
              + p.denial().id() + " denial of " + p.denialTarget());
        }
        return result(p, Observed.BLOCKED, answer + (p.denial() == null ? "" : " [" + p.denial().id() + " denial recorded]"));
      }
      return result(p, Observed.INCONCLUSIVE, answer);
    }
    // The run ended before the guest could answer.
    if (r.outcome() == Outcome.GUEST_ERROR && (p.denial() != null && recorded(r, p.denial(), p.denialTarget())
        || recorded(r, p.operation(), ""))) {
      return result(p, Observed.BLOCKED, "the run ended: " + r.errorMessage().orElse("") + " [denial recorded]");
    }
    if (p.operation() == Operation.JVM_EXIT && r.exitStatus().isPresent()) {
      return result(p, Observed.BLOCKED, "exit status " + r.exitStatus().getAsInt() + " ended the run; the JVM"
          + " kept running");
    }
    return result(p, Observed.INCONCLUSIVE, "the run ended without an answer: " + describe(r, null));
  }

  /** A bomb is blocked when its limit stopped it and reachable when it finished. */
  private ProbeResult judgeBomb(Probe p, ExecutionResult r) {
    if (p.limit() == null) {
      if (r.outcome() == Outcome.OUTPUT_REJECTED && r.outputRejection().isPresent()) {
        return result(p, Observed.BLOCKED, "rejected: " + r.errorMessage().orElse("output rejected"));
      }
      if (r.isOk()) {
        return result(p, Observed.REACHABLE, "the oversize result came out");
      }
      return result(p, Observed.INCONCLUSIVE, "expected OUTPUT_REJECTED, got " + describe(r, null));
    }
    if (r.outcome() == Outcome.LIMIT_EXCEEDED && r.limit().orElse(null) == p.limit()
        && r.events().stream().anyMatch(e -> e instanceof SandboxEvent.LimitExceeded l && l.limit() == p.limit())) {
      return result(p, Observed.BLOCKED, "stopped: " + r.errorMessage().orElse(p.limit().id()));
    }
    if (r.isOk()) {
      return result(p, Observed.REACHABLE, "the bomb finished: " + String.valueOf(r.value()).lines().findFirst()
          .map(s -> s.length() > 80 ? s.substring(0, 80) + "..." : s).orElse(""));
    }
    return result(p, Observed.INCONCLUSIVE, "expected limit " + Objects.requireNonNull(p.limit()).id() + ", got "
        + describe(r, null) + " after " + Durations.format(r.usage().wallTime()) + ", " + Durations.format(
            r.usage().cpuTime()) + " of CPU");
  }

  private static boolean recorded(ExecutionResult r, Operation op, String target) {
    return r.deniedOperations().stream().anyMatch(d -> d.operation() == op && d.target().contains(target));
  }

  private ProbeResult result(Probe p, Observed observed, String evidence) {
    PolicyReport.Entry entry = entryOf(p);
    Verdict intended = p.intended() != null ? p.intended() : entry.verdict();
    return new ProbeResult(p, entry, intended, observed, evidence);
  }

  private static String describe(ExecutionResult r, String answer) {
    if (answer != null) {
      return answer;
    }
    return r.outcome() + r.limit().map(l -> " (" + l.id() + ")").orElse("")
        + r.errorMessage().map(m -> ": " + m).orElse("");
  }
}
