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
import org.polyglotsandbox.Tool;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sandbox probe [POLICY.json] [--json] [--probes]} (alias {@code audit}): runs the
 * {@link EscapeProbe} on a policy file's policy, with its demo tools, and prints the report as a table
 * or as JSON. Exit status 0 when every denied operation probed was blocked and every allowed one
 * reachable, 1 otherwise (a contradiction or an inconclusive probe).
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
        "the defaults, for both languages.",
        "'sandbox audit' is an alias of 'sandbox probe' (its earlier name).",
        "From Java: EscapeProbe.of(policy).tools(...).run()."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
        " 0:every probe observed what the policy intends",
        " 1:a denied operation was reachable, an allowed one was not, or a probe was inconclusive",
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

  private final PrintStream out;

  ProbeCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    PolicyCommand.Loaded loaded = PolicyCommand.Loaded.of(policyFile);
    EscapeProbe.Report report = run(loaded);
    if (json) {
      out.println(ResultJson.write(toJson(loaded, report)));
    } else {
      print(loaded, report, probes, out);
    }
    return report.passed() ? ExitStatus.OK.code() : ExitStatus.GUEST_ERROR.code();
  }

  /** Probes the policy with its demo tools, their sample arguments, and the other demo names refused. */
  static EscapeProbe.Report run(PolicyCommand.Loaded loaded) {
    EscapeProbe.Builder probe = EscapeProbe.of(loaded.policy()).tools(loaded.tools())
        .refusedToolNames(DemoTools.NAMES);
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
    out.println();
    out.println(report.passed()
        ? "PASS: every denied operation probed was blocked, every allowed one was reachable"
        : "FAIL: " + report.failures().size() + " of " + report.results().size() + " probes contradict the policy"
            + " or were inconclusive");
  }
}
