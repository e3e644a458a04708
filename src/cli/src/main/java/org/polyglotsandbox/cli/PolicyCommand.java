package org.polyglotsandbox.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolicyReport;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.Tool;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code sandbox policy COMMAND}: commands about policy files. */
@Command(name = "policy",
    mixinStandardHelpOptions = true,
    versionProvider = SandboxCli.Version.class,
    description = "Commands about policy files.",
    synopsisSubcommandLabel = "COMMAND",
    footer = "%nPolicy file syntax: docs/policy-file.md")
final class PolicyCommand implements Callable<Integer> {
  @Spec
  private CommandSpec spec;

  /** {@code sandbox policy} alone: prints the usage to stderr. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitStatus.USAGE.code();
  }

  /**
   * A policy file (or none) as the command line uses it, with what the file left open spelled out;
   * {@code runEnded} takes each ended run's id so that its tools drop what they kept for it.
   */
  record Loaded(String file, Policy policy, boolean languagesFromProgram, List<Tool> tools,
      Consumer<String> runEnded) {
    /** Parses the policy file named on the command line; a bad path or file is a usage error. */
    static PolicyFile read(String policyFile) {
      try {
        return PolicyFile.parse(Path.of(policyFile));
      } catch (InvalidPathException e) {
        throw new UsageException("policy file " + Text.quote(policyFile) + " is not a valid path");
      } catch (PolicyFileException e) {
        throw new UsageException(e.getMessage());
      }
    }

    /** The file's languages, or both when it lists none (a run then allows just its program's language). */
    static Loaded of(String policyFile) {
      if (policyFile == null) {
        return new Loaded(null, Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON), true, List.of(),
            runId -> {});
      }
      PolicyFile p = read(policyFile);
      List<Language> languages = new ArrayList<>(p.languages().isEmpty() ? List.of(Language.values()) : p.languages());
      Policy policy = p.toBuilder(languages.get(0), languages.subList(1, languages.size()).toArray(Language[]::new))
          .build();
      return new Loaded(policyFile, policy, p.languages().isEmpty(), p.tools(), p::runEnded);
    }

    /** This policy narrowed to one language, as {@code sandbox run} builds it for a program in that language. */
    Policy forLanguage(Language language) {
      Policy.Builder b = Policy.builder().allowLanguages(language).limits(policy.limits());
      policy.mounts().forEach(b::mount);
      b.allowTools(policy.tools().toArray(String[]::new));
      return b.workingDirectory(policy.workingDirectory()).build();
    }

    String languagesText() {
      return languagesFromProgram ? "the program's own (js or python; one per run)"
          : policy.languages().stream().map(Language::id).collect(Collectors.joining(", "));
    }
  }

  /**
   * {@code sandbox policy explain [POLICY.json] [--json] [--isolation process|in-process]}: what a policy
   * allows and denies, operation by operation, with the layers that enforce each denial, and where guest
   * code runs under the isolation asked for (as the sandbox would require it, not as this host gives it).
   */
  @Command(name = "explain",
      mixinStandardHelpOptions = true,
      versionProvider = SandboxCli.Version.class,
      description = {
          "Shows what a policy allows and denies, and what enforces each denial.",
          "Prints the allowlist and the escape surface (every other operation",
          "guest code could attempt, all denied), with the layers that enforce",
          "each denial. Without POLICY.json: the defaults, which an empty policy",
          "file ({}) and a run without --policy get. Also says where guest code",
          "runs (--isolation)."},
      exitCodeListHeading = "%nExit status:%n",
      exitCodeList = {" 0:printed", " 2:bad usage or bad policy file"},
      footer = "%nPolicy file syntax: docs/policy-file.md")
  static final class Explain implements Callable<Integer> {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    @Parameters(index = "0", arity = "0..1", paramLabel = "POLICY.json",
        description = "A policy file; its relative host paths resolve against its own directory.")
    private String policyFile;

    @Option(names = "--json", description = "Print one JSON object (stable field names) instead of the table.")
    private boolean json;

    @Option(names = "--isolation", paramLabel = "process|in-process", converter = IsolationOption.ModeConverter.class,
        description = {"The isolation to explain the policy under: in-process (the default, as for run and",
            "probe) or process (worker JVMs behind the OS wall, mcp's default where the OS gives it)."})
    private IsolationOption.Mode isolation;

    @Option(names = "--weak-wall", description = IsolationOption.WEAK_WALL_HELP)
    private boolean weakWall;

    private final PrintStream out;

    Explain(PrintStream out) {
      this.out = out;
    }

    @Override
    public Integer call() {
      Loaded loaded = Loaded.of(policyFile);
      Isolation where = IsolationOption.resolve("policy explain", isolation, IsolationOption.Mode.IN_PROCESS, null,
          Isolation.process().workers(), weakWall, Isolation.process().spareWorkers());
      PolicyReport report = loaded.policy().report();
      if (json) {
        out.println(ResultJson.write(toJson(loaded, report, where)));
      } else {
        print(loaded, report, where);
      }
      return ExitStatus.OK.code();
    }

    private static ObjectNode toJson(Loaded loaded, PolicyReport report, Isolation isolation) {
      ObjectNode o = NODES.objectNode();
      o.put("policy", loaded.file());
      ArrayNode languages = o.putArray("languages");
      loaded.policy().languages().forEach(l -> languages.add(l.id()));
      o.put("languagesFromProgram", loaded.languagesFromProgram());
      ObjectNode i = o.putObject("isolation");
      i.put("mode", isolation.isProcess() ? IsolationOption.Mode.PROCESS.id() : IsolationOption.Mode.IN_PROCESS.id());
      i.put("weakWallAccepted", isolation.acceptsWeakWall());
      i.put("description", IsolationOption.describe(isolation));
      o.set("allowed", entries(report.allowed()));
      o.set("escapeSurface", entries(report.escapeSurface()));
      return o;
    }

    static ArrayNode entries(List<PolicyReport.Entry> entries) {
      ArrayNode a = NODES.arrayNode();
      for (PolicyReport.Entry e : entries) {
        ObjectNode o = a.addObject();
        o.put("operation", e.operation().id());
        o.put("target", e.target());
        o.put("verdict", e.verdict().id());
        ArrayNode layers = o.putArray("layers");
        e.layers().forEach(l -> layers.add(l.id()));
        o.put("note", e.note());
      }
      return a;
    }

    private void print(Loaded loaded, PolicyReport report, Isolation where) {
      Policy p = loaded.policy();
      out.println("policy: " + (loaded.file() == null ? "none (the defaults)" : Text.escapeLine(loaded.file())));
      out.println("languages: " + loaded.languagesText());
      out.println("mounts: " + (p.mounts().isEmpty() ? "none" : p.mounts().stream().map(Explain::mount)
          .collect(Collectors.joining(", "))));
      out.println("working directory: " + Text.escapeLine(p.workingDirectory()));
      out.println("tools: " + (p.tools().isEmpty() ? "none" : String.join(", ", p.tools())));
      out.println("isolation: " + IsolationOption.describe(where) + (isolation != null ? ""
          : " (run and probe unless --isolation process; mcp uses process isolation where the OS gives the wall)"));
      out.println();
      out.println("allowed (" + report.allowed().size() + "):");
      table(report.allowed());
      out.println();
      out.println("denied, the escape surface (" + report.escapeSurface().size() + "):");
      table(report.escapeSurface());
    }

    private static String mount(Mount m) {
      String access = m.hostPath().isEmpty() ? "scratch" : m.isWritable() ? "rw" : "ro";
      return Text.escapeLine(m.guestPath()) + " (" + access
          + m.hostPath().map(h -> ", copy of " + Text.escapeLine(h.toString())).orElse("") + ")";
    }

    private void table(List<PolicyReport.Entry> entries) {
      List<String[]> rows = new ArrayList<>();
      rows.add(new String[] {"OPERATION", "TARGET", "LAYERS", "NOTE"});
      for (PolicyReport.Entry e : entries) {
        rows.add(new String[] {e.operation().id(), Text.escapeLine(e.target()),
            e.layers().isEmpty() ? "-" : e.layers().stream().map(Layer::id).collect(Collectors.joining(", ")),
            Text.escapeLine(e.note())});
      }
      printTable(rows, out);
    }
  }

  /** Prints rows as left-aligned columns two spaces apart, indented by two; the last column is not padded. */
  static void printTable(List<String[]> rows, PrintStream out) {
    int columns = rows.get(0).length;
    int[] width = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns - 1; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder("  ");
      for (int i = 0; i < columns; i++) {
        line.append(row[i]);
        if (i < columns - 1) {
          line.append(" ".repeat(width[i] - row[i].length() + 2));
        }
      }
      out.println(line.toString().stripTrailing());
    }
  }
}
