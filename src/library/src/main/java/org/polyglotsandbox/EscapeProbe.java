package org.polyglotsandbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.polyglotsandbox.internal.spi.ProbeSuite;

/**
 * The escape probe: builds sandboxes from a policy, attacks them from the inside, and reports, for each
 * entry of the policy's {@linkplain PolicyReport catalogue}, whether what the policy intends (allowed
 * or denied) is what the probes observed (reachable or blocked). For a server that should refuse to
 * start when an operation its policy denies is reachable:
 *
 * <pre>{@code
 * EscapeProbe.of(policy).tools(tools).run().requirePassed();
 * }</pre>
 *
 * <p>For each language it builds the sandbox {@link PolyglotSandbox} builds from the policy narrowed
 * to that language, with the tools as registered, and runs some 50 to 60 probes in it for JavaScript,
 * 90 to 110 for Python (more with more mounts and tools): host files, {@code /proc}, {@code /dev}, traversal and module imports; listing;
 * writes, deletes and links outside the mounts; GraalPy's own files; each mount's operations; each
 * allowed tool and other names; sockets (against a loopback listener the probe owns); processes
 * (against marker files); signals; threads; host class lookup and loading; reflection through anything
 * the guest holds; native code; the environment; the other language; stdin; exit; state planted in
 * one run and looked for in the next two. Resource bombs (statements, CPU, memory, output, stack,
 * result size, files, tool calls, wall time) run in sandboxes with the same permissions and short caps.
 *
 * <p>The evidence: a probe counts as blocked only when the guest saw it fail and, where the refusing
 * layer records denials (the file system, the tool gateway, GraalPy's socket, process, thread and
 * native checks), the run's events hold that denial; a run the engine ended counts only with the
 * denial, a bomb only when its own limit stopped it; host-side checks (a file that appeared, a
 * connection the host accepted) overrule the guest. Anything else is {@link Observed#INCONCLUSIVE},
 * and fails the probe like a contradiction does.
 *
 * <p>What it costs and touches: several sandboxes per language and a few dozen runs (on two cores,
 * about 30 seconds for both languages, most of it starting GraalPy contexts; under 10 seconds for
 * JavaScript alone). It creates a temporary directory and listens on loopback ports, and removes both
 * before {@link Builder#run()} returns. It calls every tool the policy allows (see
 * {@link Builder#toolArguments}).
 *
 * <p>{@code bin/sandbox probe} (alias {@code audit}) is the command-line front of this class.
 *
 * @since 0.1.0
 */
public final class EscapeProbe {
  private EscapeProbe() {}

  /**
   * A probe of {@code policy}, to configure and {@linkplain Builder#run() run}. Default: no tools
   * registered, every language the policy allows, two runs at once.
   *
   * @since 0.1.0
   */
  public static Builder of(Policy policy) {
    return new Builder(Objects.requireNonNull(policy, "policy"));
  }

  /**
   * What one probe saw.
   *
   * @since 0.1.0
   */
  public enum Observed {
    /** The guest performed the operation, or the host saw it happen. */
    REACHABLE,
    /** The guest could not perform it, and the layer that refused recorded the denial where it records one. */
    BLOCKED,
    /** Neither could be shown: no answer, an unexpected answer, or a refusal nothing recorded. */
    INCONCLUSIVE;

    /**
     * A stable name for reports and JSON: {@code reachable}, {@code blocked} or {@code inconclusive}.
     *
     * @since 0.1.0
     */
    public String id() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * One probe's outcome.
   *
   * @param probe the probe's name, such as {@code js.read.etc-passwd}; stable across runs
   * @param operation the operation it attempted
   * @param target what it attempted it on: a guest or host path, a tool name, or a catalogue placeholder
   * @param entry the catalogue entry that governs the attempt ({@link PolicyReport#entryFor})
   * @param intended the verdict the probe holds the sandbox to: the entry's
   * @param evidence what the guest answered or the host saw, in one line of at most a few hundred
   *     characters; guest text, so escape it before printing it to a terminal
   * @since 0.1.0
   */
  public record Result(String probe, Language language, Operation operation, String target, PolicyReport.Entry entry,
      Verdict intended, Observed observed, String evidence) {
    /** @since 0.1.0 */
    public Result {
      Objects.requireNonNull(probe, "probe");
      Objects.requireNonNull(language, "language");
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(target, "target");
      Objects.requireNonNull(entry, "entry");
      Objects.requireNonNull(intended, "intended");
      Objects.requireNonNull(observed, "observed");
      Objects.requireNonNull(evidence, "evidence");
    }

    /**
     * Whether the observation agrees with the intention: allowed and reachable, or denied and blocked.
     *
     * @since 0.1.0
     */
    public boolean ok() {
      return observed == Observed.REACHABLE ? intended == Verdict.ALLOWED
          : observed == Observed.BLOCKED && intended == Verdict.DENIED;
    }
  }

  /**
   * One catalogue entry and the results of the probes that tested it, in the order they ran.
   *
   * @since 0.1.0
   */
  public record Row(PolicyReport.Entry entry, List<Result> results) {
    /** @since 0.1.0 */
    public Row {
      Objects.requireNonNull(entry, "entry");
      results = List.copyOf(results);
    }

    /**
     * What the policy intends for the entry.
     *
     * @since 0.1.0
     */
    public Verdict intended() {
      return entry.verdict();
    }

    /**
     * What the probes observed, in one word: {@code not probed}, {@code inconclusive} (if any probe
     * was), {@code mixed} (some reachable, some blocked), {@code reachable} or {@code blocked}.
     *
     * @since 0.1.0
     */
    public String observed() {
      if (results.isEmpty()) {
        return "not probed";
      }
      boolean reachable = results.stream().anyMatch(r -> r.observed() == Observed.REACHABLE);
      boolean blocked = results.stream().anyMatch(r -> r.observed() == Observed.BLOCKED);
      boolean inconclusive = results.stream().anyMatch(r -> r.observed() == Observed.INCONCLUSIVE);
      return inconclusive ? "inconclusive" : reachable && blocked ? "mixed" : reachable ? "reachable" : "blocked";
    }

    /**
     * Whether every probe of the entry is {@linkplain Result#ok() ok}; true when none tested it.
     *
     * @since 0.1.0
     */
    public boolean ok() {
      return results.stream().allMatch(Result::ok);
    }
  }

  /**
   * One attack of the operating-system wall's family ({@link Builder#isolation}): host Java code run inside a
   * worker's wall as if every wall before it had fallen, such as reading {@code /etc/shadow} or running
   * {@code /bin/sh}.
   *
   * @param name the attack, such as {@code exec-shell}
   * @param target what it aimed at
   * @param refused whether the wall refused it (the only passing verdict)
   * @param evidence what the attack saw
   * @since 0.1.0
   */
  public record WallAttack(String name, String target, boolean refused, String evidence) {
    /** @since 0.1.0 */
    public WallAttack {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(target, "target");
      Objects.requireNonNull(evidence, "evidence");
    }
  }

  /**
   * A whole probe's outcome. Immutable.
   *
   * @since 0.1.0
   */
  public static final class Report {
    private final PolicyReport declared;
    private final List<Row> rows;
    private final List<Result> results;
    private final Duration elapsed;
    private final List<WallAttack> wallAttacks;

    private Report(PolicyReport declared, List<Row> rows, List<Result> results, Duration elapsed,
        List<WallAttack> wallAttacks) {
      this.declared = declared;
      this.rows = rows;
      this.results = results;
      this.elapsed = elapsed;
      this.wallAttacks = wallAttacks;
    }

    /** The report of {@code results}, grouped by the entries of {@code declared}, in its order. */
    static Report of(PolicyReport declared, List<Result> results, Duration elapsed) {
      return of(declared, results, elapsed, List.of());
    }

    /** As {@link #of(PolicyReport, List, Duration)}, with the wall's attacks. */
    static Report of(PolicyReport declared, List<Result> results, Duration elapsed, List<WallAttack> wallAttacks) {
      Map<PolicyReport.Entry, List<Result>> byEntry = new LinkedHashMap<>();
      declared.entries().forEach(e -> byEntry.put(e, new ArrayList<>()));
      for (Result r : results) {
        byEntry.computeIfAbsent(r.entry(), e -> new ArrayList<>()).add(r);
      }
      List<Row> rows = new ArrayList<>();
      byEntry.forEach((e, rs) -> rows.add(new Row(e, rs)));
      return new Report(declared, List.copyOf(rows), List.copyOf(results), Objects.requireNonNull(elapsed),
          List.copyOf(wallAttacks));
    }

    /**
     * The catalogue the sandboxes were held to: the policy's {@link Policy#report()}.
     *
     * @since 0.1.0
     */
    public PolicyReport policyReport() {
      return declared;
    }

    /**
     * Whether every probe observed what the policy intends (no contradiction, nothing inconclusive), and
     * the wall refused every attack of its family.
     *
     * @since 0.1.0
     */
    public boolean passed() {
      return results.stream().allMatch(Result::ok) && wallAttacks.stream().allMatch(WallAttack::refused);
    }

    /**
     * The operating-system wall's family, in the order the attacks ran: empty unless the probe ran with
     * {@link Builder#isolation} set to process isolation.
     *
     * @since 0.1.0
     */
    public List<WallAttack> wallAttacks() {
      return wallAttacks;
    }

    /**
     * The probes that contradict the policy or were inconclusive, in the order they ran.
     *
     * @since 0.1.0
     */
    public List<Result> failures() {
      return results.stream().filter(r -> !r.ok()).toList();
    }

    /**
     * Every catalogue entry, in the catalogue's order, with the probes that tested it.
     *
     * @since 0.1.0
     */
    public List<Row> rows() {
      return rows;
    }

    /**
     * Every probe's result, JavaScript first, each language in the battery's order.
     *
     * @since 0.1.0
     */
    public List<Result> results() {
      return results;
    }

    /**
     * How long the probe took, from the fixtures' creation to the last sandbox's close.
     *
     * @since 0.1.0
     */
    public Duration elapsed() {
      return elapsed;
    }

    /**
     * Returns this report if it {@linkplain #passed() passed}; the fail-fast call for a server's start-up.
     *
     * @throws IllegalStateException if it did not, with one line per failing probe: its name, language,
     *     operation and target, the catalogue entry, what was intended and observed, and the evidence
     * @since 0.1.0
     */
    public Report requirePassed() {
      List<Result> failures = failures();
      List<WallAttack> escaped = wallAttacks.stream().filter(a -> !a.refused()).toList();
      if (failures.isEmpty() && escaped.isEmpty()) {
        return this;
      }
      StringBuilder m = new StringBuilder("escape probe failed: ").append(failures.size()).append(" of ")
          .append(results.size()).append(" probes contradict the policy or were inconclusive");
      if (!escaped.isEmpty()) {
        m.append(", and ").append(escaped.size()).append(" of ").append(wallAttacks.size())
            .append(" attacks on the operating-system wall were not refused");
      }
      m.append(':');
      for (WallAttack a : escaped) {
        m.append("\n  wall ").append(a.name()).append(" (").append(a.target()).append("): not refused: ")
            .append(oneLine(a.evidence()));
      }
      for (Result r : failures) {
        m.append("\n  ").append(r.probe()).append(" (").append(r.language().id()).append("): ")
            .append(r.operation().id()).append(' ').append(oneLine(r.target()))
            .append(" [entry ").append(r.entry().operation().id()).append(' ').append(oneLine(r.entry().target()))
            .append("]: intended ").append(r.intended().id()).append(", observed ").append(r.observed().id())
            .append(": ").append(oneLine(r.evidence()));
      }
      throw new IllegalStateException(m.toString());
    }

    /** @since 0.1.0 */
    @Override
    public String toString() {
      return "EscapeProbe.Report{probes=" + results.size() + ", failures=" + failures().size()
          + (wallAttacks.isEmpty() ? "" : ", wallAttacks=" + wallAttacks.size() + ", wallEscapes="
              + wallAttacks.stream().filter(a -> !a.refused()).count()) + ", elapsed=" + elapsed + "}";
    }

    /** Guest text on one line: control, line-separator and bidirectional characters as {@code \}{@code uXXXX}. */
    private static String oneLine(String s) {
      StringBuilder out = new StringBuilder(s.length());
      s.chars().forEach(c -> {
        boolean unsafe = c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029
            || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
        out.append(unsafe ? String.format("\\u%04x", c) : String.valueOf((char) c));
      });
      return out.toString();
    }
  }

  /**
   * Configures and runs an escape probe. Not thread-safe; each {@link #run()} probes afresh.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    private final Policy policy;
    private final Map<String, Tool> tools = new LinkedHashMap<>();
    private Set<Language> languages;
    private int parallelism = 2;
    private final Map<String, Map<String, Object>> toolArguments = new LinkedHashMap<>();
    private final Set<String> refusedToolNames = new LinkedHashSet<>();
    private PolicyReport declared;
    private PolyglotSandbox.Isolation isolation = PolyglotSandbox.Isolation.inProcess();

    private Builder(Policy policy) {
      this.policy = policy;
    }

    /**
     * Registers a tool, as {@link PolyglotSandbox.Builder#tool} does: every tool the policy allows must
     * be registered. A registered tool the policy does not allow is probed as a name the gateway must
     * refuse.
     *
     * @throws IllegalArgumentException if a tool of the same name is already registered
     * @since 0.1.0
     */
    public Builder tool(Tool tool) {
      Objects.requireNonNull(tool, "tool");
      if (tools.putIfAbsent(tool.name(), tool) != null) {
        throw new IllegalArgumentException("tool '" + tool.name() + "' is registered twice");
      }
      return this;
    }

    /**
     * Registers each tool, as {@link #tool(Tool)}.
     *
     * @since 0.1.0
     */
    public Builder tools(Collection<Tool> tools) {
      Objects.requireNonNull(tools, "tools").forEach(this::tool);
      return this;
    }

    /**
     * Probes only these languages. Default: every language the policy allows. Each language is probed
     * in a sandbox of its own, as {@code bin/sandbox run} builds one; JavaScript alone is much quicker.
     *
     * @throws IllegalArgumentException if {@code languages} is empty or holds a language the policy does
     *     not allow
     * @since 0.1.0
     */
    public Builder languages(Set<Language> languages) {
      Objects.requireNonNull(languages, "languages");
      if (languages.isEmpty()) {
        throw new IllegalArgumentException("languages must not be empty (the policy allows "
            + policy.languages().stream().map(Language::id).toList() + ")");
      }
      for (Language l : languages) {
        if (!policy.allows(Objects.requireNonNull(l, "language"))) {
          throw new IllegalArgumentException("the policy does not allow language '" + l.id() + "' (allowed: "
              + policy.languages().stream().map(Language::id).toList() + ")");
        }
      }
      this.languages = Collections.unmodifiableSet(EnumSet.copyOf(languages));
      return this;
    }

    /**
     * At most this many probe runs at once, and no more than the available processors. Each run is
     * single-threaded, so two finish the battery in about half the time of one. Default 2.
     *
     * @throws IllegalArgumentException if {@code runs} is not between 1 and 64
     * @since 0.1.0
     */
    public Builder parallelism(int runs) {
      if (runs < 1 || runs > 64) {
        throw new IllegalArgumentException("parallelism (" + runs + ") must be between 1 and 64");
      }
      this.parallelism = runs;
      return this;
    }

    /**
     * The arguments the probes pass when they call the allowed tool {@code tool}: one call to show it is
     * reachable, and in the reflection probes of the first allowed tool, a call whose result is searched
     * for host values. Default {@code {}}, which a tool whose parameter schema requires arguments refuses
     * before its handler runs (the call still counts as reachable: the gateway answered). With arguments
     * the schema accepts, the handler runs, side effects included. Separately, the tool-call bomb calls
     * the first allowed tool with {@code {}} one time more than its {@link Tool#maxCallsPerRun()}.
     *
     * @param arguments plain data (maps, lists, strings, numbers, booleans, null); checked when the probe runs
     * @throws IllegalArgumentException if the policy does not allow {@code tool}
     * @since 0.1.0
     */
    public Builder toolArguments(String tool, Map<String, ?> arguments) {
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(arguments, "arguments");
      if (!policy.allowsTool(tool)) {
        throw new IllegalArgumentException("the policy does not allow tool '" + tool + "' (allowed: "
            + policy.tools() + ")");
      }
      toolArguments.put(tool, Collections.unmodifiableMap(new LinkedHashMap<>(arguments)));
      return this;
    }

    /**
     * More tool names the probes try to call, expecting the gateway to refuse each, in every language:
     * names another configuration allows, say. Always tried: a name no one registers, and every
     * registered tool the policy does not allow. Names the policy allows are skipped.
     *
     * @throws IllegalArgumentException if a name is not a valid tool name (see {@link Tool#builder})
     * @since 0.1.0
     */
    public Builder refusedToolNames(Collection<String> names) {
      Objects.requireNonNull(names, "names").forEach(n -> refusedToolNames.add(Tool.checkName(n)));
      return this;
    }

    /**
     * With {@linkplain PolyglotSandbox.Isolation#process() process isolation}, the probe adds a family that
     * attacks the operating-system wall from inside a worker's wall (built as the sandbox builds it for
     * this policy): host Java code run as if GraalVM's wall had fallen, such as connecting to the host's
     * loopback, reading {@code /etc/shadow}, running {@code /bin/sh}, writing {@code /} or a kernel setting,
     * starting a thousand threads ({@link Report#wallAttacks()}). The guest battery itself runs in process,
     * as it does without this setting. Default: in-process, no wall family.
     *
     * @since 0.1.0
     */
    public Builder isolation(PolyglotSandbox.Isolation isolation) {
      this.isolation = Objects.requireNonNull(isolation, "isolation");
      return this;
    }

    /** Holds the sandboxes to {@code report} instead of the policy's own; tests plant contradictions so. */
    Builder heldTo(PolicyReport report) {
      this.declared = Objects.requireNonNull(report, "report");
      return this;
    }

    /**
     * Builds the sandboxes, runs every probe, closes the sandboxes and removes the fixtures.
     *
     * @return the report; a probe that contradicts the policy is a failure in it, not an exception
     * @throws IllegalStateException if the policy allows a tool that is not registered, a mount's host
     *     path does not exist, a sandbox cannot start, or the fixtures cannot be prepared
     * @throws IllegalArgumentException if a tool's arguments are not plain data
     * @throws java.util.concurrent.CancellationException if the calling thread is interrupted (the
     *     interrupt status is kept)
     * @since 0.1.0
     */
    public Report run() {
      for (String name : policy.tools()) {
        if (!tools.containsKey(name)) {
          throw new IllegalStateException("policy allows tool '" + name + "' but no tool of that name was"
              + " registered (registered: " + tools.keySet() + ")");
        }
      }
      PolicyReport held = declared != null ? declared : policy.report();
      long start = System.nanoTime();
      List<Result> results = ProbeSuite.runAll(new ProbeSuite.Settings(policy, held, List.copyOf(tools.values()),
          languages != null ? languages : policy.languages(), parallelism, toolArguments,
          List.copyOf(refusedToolNames)));
      List<WallAttack> wall = isolation.isProcess() ? org.polyglotsandbox.internal.spi.WallProbeSuite.attack(isolation, policy) : List.of();
      return Report.of(held, results, Duration.ofNanos(System.nanoTime() - start), wall);
    }
  }
}
