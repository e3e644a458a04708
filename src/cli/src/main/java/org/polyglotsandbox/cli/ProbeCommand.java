package org.polyglotsandbox.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.polyglotsandbox.EscapeProbe;
import org.polyglotsandbox.PolicyReport;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.Tool;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sandbox probe [POLICY.json] [--json] [--probes]} (alias {@code audit}): runs the
 * {@link EscapeProbe} on a policy file's policy, with its demo tools, and prints the report as a table
 * or as JSON; with {@code --isolation process}, also the attacks on the operating-system wall. Exit status
 * 0 when every denied operation probed was blocked, every allowed one reachable and every attack on the
 * wall refused, 1 otherwise (a contradiction, an inconclusive probe, an attack that got through).
 */
@Command(name = "probe",
    aliases = "audit",
    mixinStandardHelpOptions = true,
    versionProvider = SandboxCli.Version.class,
    sortOptions = false,
    description = {
        "Attacks sandboxes built from the policy from the inside.",
        "Runs the escape probe, JavaScript and Python probes (host files, /proc,",
        "environment, network, processes, threads, host classes and reflection,",
        "other languages, native code, the interpreter's own files, state left",
        "for the next run, resource bombs, each allowed tool and mount), and",
        "compares per operation what the policy intends (allowed or denied) with",
        "what the probes observed (reachable or blocked). Without POLICY.json:",
        "the defaults, for both languages. With --isolation process, also",
        "attacks the OS wall around worker JVMs from inside one.",
        "'sandbox audit' is an alias of 'sandbox probe' (its earlier name).",
        "From Java: EscapeProbe.of(policy).tools(...).run()."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
        " 0:every probe observed what the policy intends",
        " 1:a denied operation was reachable, an allowed one was not, a probe was inconclusive, or an attack got"
            + " through the OS wall",
        " 2:bad usage or bad policy file",
        " 5:a sandbox could not start"},
    footer = "%nPolicy file syntax: docs/policy-file.md")
final class ProbeCommand implements Callable<Integer> {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Parameters(index = "0", arity = "0..1", paramLabel = "POLICY.json",
      description = "A policy file; its relative host paths resolve against its own directory.")
  private String policyFile;

  @Option(names = "--json", description = "Print one JSON object instead of the table: every operation and every probe.")
  private boolean json;

  @Option(names = "--probes", description = "List every probe's result under the table, not only the failures.")
  private boolean probes;

  @Option(names = "--isolation", paramLabel = "process|in-process", converter = IsolationOption.ModeConverter.class,
      description = {"in-process (the default) probes the sandbox's own layers; process also attacks the OS wall",
          "around worker JVMs from inside one (host Java code as if GraalVM's wall had fallen: the host's",
          "loopback, /etc/shadow, a shell, writes to / ...), each attack failing the probe unless refused.",
          "Where the OS cannot give the wall, process exits 5 naming what is missing, unless --weak-wall."})
  private IsolationOption.Mode isolation;

  @Option(names = "--weak-wall", description = {IsolationOption.WEAK_WALL_HELP,
      "Its attacks then get through, and the probe says so."})
  private boolean weakWall;

  private final PrintStream out;

  ProbeCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    PolicyCommand.Loaded loaded = PolicyCommand.Loaded.of(policyFile);
    Isolation where = IsolationOption.resolve("probe", isolation, IsolationOption.Mode.IN_PROCESS, null, 1,
        weakWall, 0);
    EscapeProbe.Report report = run(loaded, where);
    if (json) {
      out.println(ResultJson.write(toJson(loaded, report)));
    } else {
      print(loaded, report, probes, out);
    }
    return report.passed() ? ExitStatus.OK.code() : ExitStatus.GUEST_ERROR.code();
  }

  /**
   * Probes the policy with its demo tools, their sample arguments, and the other demo names refused; with
   * process isolation, attacks the OS wall too.
   */
  static EscapeProbe.Report run(PolicyCommand.Loaded loaded, Isolation isolation) {
    EscapeProbe.Builder probe = EscapeProbe.of(loaded.policy()).tools(loaded.tools())
        .refusedToolNames(DemoTools.NAMES).isolation(isolation);
    for (Tool t : loaded.tools()) {
      probe.toolArguments(t.name(), DemoTools.sampleArguments(t.name()));
    }
    try {
      return probe.run();
    } catch (IllegalStateException e) {
      throw new StartException(e.getMessage(), e);
    }
  }

  static ObjectNode toJson(PolicyCommand.Loaded loaded, EscapeProbe.Report report) {
    ObjectNode o = NODES.objectNode();
    o.put("policy", loaded.file());
    o.put("passed", report.passed());
    o.put("probeCount", report.results().size());
    o.put("failureCount", report.failures().size());
    o.put("elapsedMillis", report.elapsed().toMillis());
    ArrayNode operations = o.putArray("operations");
    for (EscapeProbe.Row row : report.rows()) {
      ObjectNode r = operations.addObject();
      PolicyReport.Entry e = row.entry();
      r.put("operation", e.operation().id());
      r.put("target", e.target());
      r.put("intended", e.verdict().id());
      r.put("observed", row.observed());
      r.put("probes", row.results().size());
      r.put("ok", row.ok());
      ArrayNode layers = r.putArray("layers");
      e.layers().forEach(l -> layers.add(l.id()));
    }
    ArrayNode list = o.putArray("probes");
    for (EscapeProbe.Result p : report.results()) {
      ObjectNode r = list.addObject();
      r.put("id", p.probe());
      r.put("language", p.language().id());
      r.put("operation", p.operation().id());
      r.put("target", p.entry().target());
      r.put("intended", p.intended().id());
      r.put("observed", p.observed().id());
      r.put("ok", p.ok());
      r.put("evidence", p.evidence());
    }
    ArrayNode wall = o.putArray("wallAttacks");
    for (EscapeProbe.WallAttack a : report.wallAttacks()) {
      ObjectNode r = wall.addObject();
      r.put("name", a.name());
      r.put("target", a.target());
      r.put("refused", a.refused());
      r.put("evidence", a.evidence());
    }
    return o;
  }

  static void print(PolicyCommand.Loaded loaded, EscapeProbe.Report report, boolean allProbes, PrintStream out) {
    out.println("audit: " + (loaded.file() == null ? "the default policy" : Text.escapeLine(loaded.file()))
        + " (languages: " + loaded.languagesText() + "): " + report.results().size() + " probes in "
        + Durations.format(report.elapsed()));
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"OPERATION", "TARGET", "INTENDED", "OBSERVED", "PROBES", ""});
    for (EscapeProbe.Row row : report.rows()) {
      PolicyReport.Entry e = row.entry();
      rows.add(new String[] {e.operation().id(), Text.escapeLine(e.target()), e.verdict().id(), row.observed(),
          String.valueOf(row.results().size()), row.results().isEmpty() ? "" : row.ok() ? "ok" : "FAIL"});
    }
    PolicyCommand.printTable(rows, out);
    List<EscapeProbe.Result> shown = allProbes ? report.results() : report.failures();
    if (!shown.isEmpty()) {
      out.println();
      out.println(allProbes ? "probes:" : "failures:");
      for (EscapeProbe.Result p : shown) {
        out.println("  " + (p.ok() ? "ok   " : "FAIL ") + Text.escapeLine(p.probe()) + " (" + p.operation().id()
            + " " + Text.escapeLine(p.entry().target()) + "): intended " + p.intended().id() + ", observed "
            + p.observed().id() + ": " + Text.escapeLine(p.evidence()));
      }
    }
    if (!report.wallAttacks().isEmpty()) {
      out.println();
      out.println("the OS wall around a worker JVM, attacked from inside:");
      List<String[]> attacks = new ArrayList<>();
      attacks.add(new String[] {"ATTACK", "TARGET", "", "EVIDENCE"});
      for (EscapeProbe.WallAttack a : report.wallAttacks()) {
        attacks.add(new String[] {Text.escapeLine(a.name()), Text.escapeLine(a.target()),
            a.refused() ? "ok" : "FAIL", Text.escapeLine(a.evidence())});
      }
      PolicyCommand.printTable(attacks, out);
    }
    long escaped = report.wallAttacks().stream().filter(a -> !a.refused()).count();
    out.println();
    if (report.passed()) {
      out.println("PASS: every denied operation probed was blocked, every allowed one was reachable"
          + (report.wallAttacks().isEmpty() ? "" : ", and the OS wall refused every attack"));
    } else {
      List<String> why = new ArrayList<>();
      if (!report.failures().isEmpty()) {
        why.add(report.failures().size() + " of " + report.results().size() + " probes contradict the policy"
            + " or were inconclusive");
      }
      if (escaped > 0) {
        why.add(escaped + " of " + report.wallAttacks().size() + " attacks got through the OS wall");
      }
      out.println("FAIL: " + String.join("; ", why));
    }
  }
}
