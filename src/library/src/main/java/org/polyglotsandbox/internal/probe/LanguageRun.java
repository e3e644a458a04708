package org.polyglotsandbox.internal.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import org.polyglotsandbox.EscapeProbe.Observed;
import org.polyglotsandbox.EscapeProbe;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * The runs of one language, in one sandbox with the policy's permissions and limits high enough for
 * every kind of run ({@link RunKind#ceiling}); each run asks for its kind's own limits
 * ({@code Script.withLimits}). The access probes have {@link RunKind#ACCESS}'s: the batch probes
 * share one run, the probes whose attempt may end a run each run alone, and the state probes plant in
 * one run and look in the next two, before anything else runs in that sandbox. Each bomb runs alone,
 * with its kind's limits. Independent runs go a few at a time ({@link ProbeRunner#runAll}).
 */
final class LanguageRun {
  private final ProbeRunner runner;
  private final Language language;
  private final List<Probe> probes;
  private final Map<String, Object> data;
  private final Judge judge;

  LanguageRun(ProbeRunner runner, Language language, List<Probe> probes, Map<String, Object> data, Judge judge) {
    this.runner = runner;
    this.language = language;
    this.probes = probes;
    this.data = data;
    this.judge = judge;
  }

  /** Every probe's result, in the order of the probes. */
  List<EscapeProbe.Result> run() {
    Map<Probe, EscapeProbe.Result> out = new ConcurrentHashMap<>();
    Policy base = runner.forLanguage(language);
    Limits access = RunKind.ACCESS.limits(base.limits());
    // One sandbox whose limits are the highest any kind needs; each run asks for its kind's own.
    try (PolyglotSandbox sandbox = build(base)) {
      // First, alone: a state probe must find the sandbox exactly as its own earlier run left it.
      runState(sandbox, access, of(Probe.Kind.STATE), out);
      List<Callable<Void>> tasks = new ArrayList<>();
      List<Probe> batch = of(Probe.Kind.BATCH);
      if (!batch.isEmpty()) {
        tasks.add(() -> {
          runBatch(sandbox, access, batch, out);
          return null;
        });
      }
      for (Probe p : of(Probe.Kind.ALONE)) {
        tasks.add(() -> {
          out.put(p, runAlone(sandbox, access, p));
          return null;
        });
      }
      for (Probe p : of(Probe.Kind.BOMB)) {
        Limits limits = RunKind.ofBomb(p.limit()).limits(base.limits());
        tasks.add(() -> {
          ProbeRunner.trace(p.id());
          out.put(p, judge.bomb(p, runner.run(sandbox, GuestDriver.bomb(p, data).withLimits(limits))));
          return null;
        });
      }
      runner.runAll(tasks);
    }
    return probes.stream().map(out::get).toList();
  }

  private void runBatch(PolyglotSandbox sandbox, Limits limits, List<Probe> batch,
      Map<Probe, EscapeProbe.Result> out) {
    ProbeRunner.trace(language.id() + " batch of " + batch.size());
    ExecutionResult r = runner.run(sandbox, GuestDriver.script(language, batch, Probe::code, data).withLimits(limits));
    Map<String, String> answers = GuestDriver.answers(r);
    for (Probe p : batch) {
      // If the batch died before answering, each probe runs alone to show which one and why.
      out.put(p, answers != null ? judge.access(p, r, answers.get(p.id())) : runAlone(sandbox, limits, p));
    }
  }

  private EscapeProbe.Result runAlone(PolyglotSandbox sandbox, Limits limits, Probe p) {
    ProbeRunner.trace(p.id());
    ExecutionResult r = runner.run(sandbox, GuestDriver.script(language, List.of(p), Probe::code, data).withLimits(limits));
    return judge.access(p, r, GuestDriver.answer(r, p));
  }

  /** Plants in one run and looks in the next two: a pool that hands out contexts in turn is caught too. */
  private void runState(PolyglotSandbox sandbox, Limits limits, List<Probe> state,
      Map<Probe, EscapeProbe.Result> out) {
    if (state.isEmpty()) {
      return;
    }
    ProbeRunner.trace(language.id() + " state");
    ExecutionResult planted = runner.run(sandbox, GuestDriver.script(language, state, Probe::plant, data).withLimits(limits));
    List<ExecutionResult> checks = List.of(
        runner.run(sandbox, GuestDriver.script(language, state, Probe::code, data).withLimits(limits)),
        runner.run(sandbox, GuestDriver.script(language, state, Probe::code, data).withLimits(limits)));
    for (Probe p : state) {
      String planting = GuestDriver.answer(planted, p);
      if (planting == null || !planting.startsWith("planted")) {
        out.put(p, judge.inconclusive(p, "could not plant: " + Judge.describe(planted, planting)));
        continue;
      }
      EscapeProbe.Result worst = null;
      for (ExecutionResult check : checks) {
        EscapeProbe.Result r = judge.access(p, check, GuestDriver.answer(check, p));
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

  private PolyglotSandbox build(Policy base) {
    try {
      ProbeRunner.trace("build " + language.id());
      return PolyglotSandbox.builder().policy(base.toBuilder().limits(RunKind.ceiling(base.limits())).build())
          .tools(runner.tools()).build();
    } catch (IllegalStateException e) {
      throw new IllegalStateException("the escape probe could not start a " + language.id() + " sandbox: "
          + e.getMessage(), e);
    }
  }
}
