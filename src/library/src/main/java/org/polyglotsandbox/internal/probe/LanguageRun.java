package org.polyglotsandbox.internal.probe;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import org.polyglotsandbox.EscapeProbe.Observed;
import org.polyglotsandbox.EscapeProbe;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * The sandboxes and runs of one language. The access probes run in a sandbox with the policy's
 * permissions ({@link SandboxKind#ACCESS}): the batch probes share one run, the probes whose attempt may
 * end a run each run alone, and the state probes plant in one run and look in the next two, before
 * anything else runs in that sandbox. Each bomb runs alone in the sandbox of its kind. Independent runs
 * go a few at a time ({@link ProbeRunner#runAll}).
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
    Map<SandboxKind, List<Probe>> bombs = new EnumMap<>(SandboxKind.class);
    for (Probe p : of(Probe.Kind.BOMB)) {
      bombs.computeIfAbsent(SandboxKind.ofBomb(p.limit()), k -> new ArrayList<>()).add(p);
    }
    Map<SandboxKind, PolyglotSandbox> bombSandboxes = new EnumMap<>(SandboxKind.class);
    try (PolyglotSandbox sandbox = build(base, SandboxKind.ACCESS)) {
      bombs.keySet().forEach(k -> bombSandboxes.put(k, build(base, k)));
      // First, alone: a state probe must find the sandbox exactly as its own earlier run left it.
      runState(sandbox, of(Probe.Kind.STATE), out);
      List<Callable<Void>> tasks = new ArrayList<>();
      List<Probe> batch = of(Probe.Kind.BATCH);
      if (!batch.isEmpty()) {
        tasks.add(() -> {
          runBatch(sandbox, batch, out);
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
        ProbeRunner.trace(p.id());
        out.put(p, judge.bomb(p, bombSandboxes.get(kind).run(GuestDriver.bomb(p, data))));
        return null;
      })));
      runner.runAll(tasks);
    } finally {
      bombSandboxes.values().forEach(PolyglotSandbox::close);
    }
    return probes.stream().map(out::get).toList();
  }

  private void runBatch(PolyglotSandbox sandbox, List<Probe> batch, Map<Probe, EscapeProbe.Result> out) {
    ProbeRunner.trace(language.id() + " batch of " + batch.size());
    ExecutionResult r = sandbox.run(GuestDriver.script(language, batch, Probe::code, data));
    Map<String, String> answers = GuestDriver.answers(r);
    for (Probe p : batch) {
      // If the batch died before answering, each probe runs alone to show which one and why.
      out.put(p, answers != null ? judge.access(p, r, answers.get(p.id())) : runAlone(sandbox, p));
    }
  }

  private EscapeProbe.Result runAlone(PolyglotSandbox sandbox, Probe p) {
    ProbeRunner.trace(p.id());
    ExecutionResult r = sandbox.run(GuestDriver.script(language, List.of(p), Probe::code, data));
    return judge.access(p, r, GuestDriver.answer(r, p));
  }

  /** Plants in one run and looks in the next two: a pool that hands out contexts in turn is caught too. */
  private void runState(PolyglotSandbox sandbox, List<Probe> state, Map<Probe, EscapeProbe.Result> out) {
    if (state.isEmpty()) {
      return;
    }
    ProbeRunner.trace(language.id() + " state");
    ExecutionResult planted = sandbox.run(GuestDriver.script(language, state, Probe::plant, data));
    List<ExecutionResult> checks = List.of(sandbox.run(GuestDriver.script(language, state, Probe::code, data)),
        sandbox.run(GuestDriver.script(language, state, Probe::code, data)));
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

  private PolyglotSandbox build(Policy base, SandboxKind kind) {
    try {
      ProbeRunner.trace("build " + language.id());
      return PolyglotSandbox.builder().policy(base.toBuilder().limits(kind.limits(base.limits())).build())
          .tools(runner.tools()).build();
    } catch (IllegalStateException e) {
      throw new IllegalStateException("the escape probe could not start a " + language.id() + " sandbox: "
          + e.getMessage(), e);
    }
  }
}
