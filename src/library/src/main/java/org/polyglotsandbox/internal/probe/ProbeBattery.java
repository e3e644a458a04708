package org.polyglotsandbox.internal.probe;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.BiConsumer;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.Tool;

/**
 * The escape probe's standard battery, as data: for each operation class of the catalogue, attempts
 * from JavaScript and Python that try to perform it, each naming the operation and target it tests.
 * Attempts at denied operations return "reachable" only on positive evidence (the secret's nonce, a
 * host class, a file that appeared); attempts at allowed operations return "reachable" only when they
 * got what the host knows is there.
 *
 * <p>One file per family, in the order the battery runs them: {@link FileProbes}, {@link MountProbes},
 * {@link ToolProbes}, {@link NetworkProbes}, {@link ProcessProbes}, {@link ProcessStateProbes},
 * {@link ThreadProbes}, {@link HostAccessProbes}, {@link LyingValueProbes}, {@link NativeProbes},
 * {@link EnvironmentProbes}, {@link StateProbes},
 * {@link BombProbes}. The guest code of each probe is a constant of its family's class.
 *
 * @param policy the policy whose sandboxes are probed
 * @param tools the tools the policy allows, as registered (for their per-run budgets), in the policy's order
 * @param fixtures the host side: secrets, markers, listeners, mount samples
 * @param refusedTools the tool names the gateway must refuse
 */
record ProbeBattery(Policy policy, List<Tool> tools, ProbeFixtures fixtures, List<String> refusedTools) {
  /** One family's probes for each language. */
  private record Family(BiConsumer<ProbeBattery, List<Probe>> javascript,
      BiConsumer<ProbeBattery, List<Probe>> python) {}

  private static final List<Family> FAMILIES = List.of(
      new Family(FileProbes::javascript, FileProbes::python),
      new Family(MountProbes::javascript, MountProbes::python),
      new Family(ToolProbes::javascript, ToolProbes::python),
      new Family(NetworkProbes::javascript, NetworkProbes::python),
      new Family(ProcessProbes::javascript, ProcessProbes::python),
      new Family(ProcessStateProbes::javascript, ProcessStateProbes::python),
      new Family(ThreadProbes::javascript, ThreadProbes::python),
      new Family(HostAccessProbes::javascript, HostAccessProbes::python),
      new Family(LyingValueProbes::javascript, LyingValueProbes::python),
      new Family(NativeProbes::javascript, NativeProbes::python),
      new Family(EnvironmentProbes::javascript, EnvironmentProbes::python),
      new Family(StateProbes::javascript, StateProbes::python),
      new Family(BombProbes::javascript, BombProbes::python));

  ProbeBattery {
    tools = List.copyOf(tools);
    refusedTools = List.copyOf(refusedTools);
  }

  /**
   * The standard probes for the policy's mounts and tools, JavaScript first; registers the markers and
   * listeners they use with the fixtures.
   *
   * @param languages the languages to probe; each must be allowed by the policy
   */
  List<Probe> plan(Collection<Language> languages) {
    List<Probe> out = new ArrayList<>();
    for (Language language : List.of(Language.JAVASCRIPT, Language.PYTHON)) {
      if (languages.contains(language) && policy.allows(language)) {
        FAMILIES.forEach(f -> (language == Language.JAVASCRIPT ? f.javascript() : f.python()).accept(this, out));
      }
    }
    return out;
  }

  /** A JavaScript or Python string literal (both accept single-quoted strings with these escapes). */
  static String quote(String s) {
    StringBuilder b = new StringBuilder("'");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '\\' -> b.append("\\\\");
        case '\'' -> b.append("\\'");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        default -> {
          if (c < 0x20 || c > 0x7e) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('\'').toString();
  }
}
