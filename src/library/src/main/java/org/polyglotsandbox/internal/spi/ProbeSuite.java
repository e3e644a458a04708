package org.polyglotsandbox.internal.spi;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.Set;
import org.polyglotsandbox.EscapeProbe;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolicyReport;
import org.polyglotsandbox.Tool;

/**
 * The escape probe's battery as {@link EscapeProbe} sees it: one call that attacks sandboxes built from a
 * policy and returns each probe's result. Implemented in {@code internal.probe} and found with
 * {@link ServiceLoader}, so that the API imports no class of the probe room.
 */
public abstract class ProbeSuite {
  /**
   * What to probe.
   *
   * @param policy the policy to build the sandboxes from (each narrowed to one language)
   * @param declared what the probe holds the sandboxes to: normally {@code policy}'s own report
   * @param tools the registered tools, allowed by the policy or not
   * @param languages the languages to probe, in the policy's order
   * @param parallelism at most this many runs at once
   * @param toolArguments per allowed tool, the arguments the probes call it with ({@code {}} if absent)
   * @param refusedToolNames more names to try to call, besides a made-up name and the
   *     registered tools the policy does not allow; names the policy allows are skipped
   */
  public record Settings(Policy policy, PolicyReport declared, List<Tool> tools, Set<Language> languages,
      int parallelism, Map<String, Map<String, Object>> toolArguments, List<String> refusedToolNames) {
    public Settings {
      Objects.requireNonNull(policy, "policy");
      Objects.requireNonNull(declared, "declared");
      tools = List.copyOf(tools);
      languages = Set.copyOf(languages);
      toolArguments = Map.copyOf(toolArguments);
      refusedToolNames = List.copyOf(refusedToolNames);
    }
  }
  private static final ProbeSuite SUITE = ServiceLoader.load(ProbeSuite.class, ProbeSuite.class.getClassLoader())
      .findFirst()
      .orElseThrow(() -> new IllegalStateException("polyglot-sandbox's escape probe is missing from its jar ("
          + "META-INF/services/" + ProbeSuite.class.getName() + ")"));

  protected ProbeSuite() {}

  /**
   * Runs the standard battery.
   *
   * @return every probe's result, language by language in the battery's order
   * @throws IllegalStateException if the fixtures cannot be prepared or a sandbox cannot start
   * @throws java.util.concurrent.CancellationException if the calling thread is interrupted
   */
  public static List<EscapeProbe.Result> runAll(Settings settings) {
    return SUITE.run(settings);
  }

  /** See {@link #runAll}. */
  protected abstract List<EscapeProbe.Result> run(Settings settings);

}
