package org.polyglotsandbox.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.polyglotsandbox.PolicyReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sandbox audit [POLICY.json] [--json] [--probes]}: builds sandboxes from a policy, attacks them
 * from inside with the probe battery, and compares what each operation intends with what the probes
 * observed. Exit status 0 when every denied operation probed was blocked and every allowed one
 * reachable, 1 otherwise (a contradiction or an inconclusive probe).
 */
@Command(name = "audit",
    mixinStandardHelpOptions = true,
    versionProvider = SandboxCli.Version.class,
    sortOptions = false,
    description = {
        "Attacks sandboxes built from the policy from the inside.",
        "Runs JavaScript and Python probes (host files, /proc, environment,",
        "network, processes, threads, host classes and reflection, other",
        "languages, native code, the interpreter's own files, state left for",
        "the next run, resource bombs, each allowed tool and mount) and compares",
        "per operation what the policy intends (allowed or denied) with what the",
        "probes observed (reachable or blocked). Without POLICY.json: the",
        "defaults, for both languages."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
        " 0:every probe observed what the policy intends",
        " 1:a denied operation was reachable, an allowed one was not, or a probe was inconclusive",
        " 2:bad usage or bad policy file",
        " 5:a sandbox could not start"},
    footer = "%nPolicy file syntax: docs/policy-file.md")
final class AuditCommand implements Callable<Integer> {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Parameters(index = "0", arity = "0..1", paramLabel = "POLICY.json",
      description = "A policy file; its relative host paths resolve against its own directory.")
  private String policyFile;

  @Option(names = "--json", description = "Print one JSON object instead of the table: every operation and every probe.")
  private boolean json;

  @Option(names = "--probes", description = "List every probe's result under the table, not only the failures.")
  private boolean probes;

  private final PrintStream out;

  AuditCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    Audit.Report report = Audit.run(PolicyCommand.Loaded.of(policyFile));
    if (json) {
      out.println(ResultJson.write(toJson(report)));
    } else {
      print(report, probes, out);
    }
    return report.passed() ? ExitStatus.OK.code() : ExitStatus.GUEST_ERROR.code();
  }

  static ObjectNode toJson(Audit.Report report) {
    ObjectNode o = NODES.objectNode();
    o.put("policy", report.policy());
    o.put("passed", report.passed());
    o.put("probeCount", report.results().size());
    o.put("failureCount", report.failures().size());
    o.put("elapsedMillis", report.elapsed().toMillis());
    ArrayNode operations = o.putArray("operations");
    for (Audit.Row row : report.rows()) {
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
    for (Audit.ProbeResult p : report.results()) {
      ObjectNode r = list.addObject();
      r.put("id", p.probe().id());
      r.put("language", p.probe().language().id());
      r.put("operation", p.probe().operation().id());
      r.put("target", p.entry().target());
      r.put("intended", p.intended().id());
      r.put("observed", p.observed().id());
      r.put("ok", p.ok());
      r.put("evidence", p.evidence());
    }
    return o;
  }

  static void print(Audit.Report report, boolean allProbes, PrintStream out) {
    out.println("audit: " + (report.policy() == null ? "the default policy" : Text.escapeLine(report.policy()))
        + " (languages: " + report.languages() + "): " + report.results().size() + " probes in "
        + Durations.format(report.elapsed()));
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"OPERATION", "TARGET", "INTENDED", "OBSERVED", "PROBES", ""});
    for (Audit.Row row : report.rows()) {
      PolicyReport.Entry e = row.entry();
      rows.add(new String[] {e.operation().id(), Text.escapeLine(e.target()), e.verdict().id(), row.observed(),
          String.valueOf(row.results().size()), row.results().isEmpty() ? "" : row.ok() ? "ok" : "FAIL"});
    }
    PolicyCommand.printTable(rows, out);
    List<Audit.ProbeResult> shown = allProbes ? report.results() : report.failures();
    if (!shown.isEmpty()) {
      out.println();
      out.println(allProbes ? "probes:" : "failures:");
      for (Audit.ProbeResult p : shown) {
        out.println("  " + (p.ok() ? "ok   " : "FAIL ") + Text.escapeLine(p.probe().id()) + " (" + p.probe().operation().id()
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
