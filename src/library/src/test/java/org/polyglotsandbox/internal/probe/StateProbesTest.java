package org.polyglotsandbox.internal.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.internal.spi.ProbeSuite;

/**
 * Each state probe's look finds what its plant left when both run in the same context: the probe would
 * report a sandbox that hands a used context to the next run. (The escape probe itself runs them in
 * separate runs and expects "blocked"; a look that could not find its plant would pass there too.)
 */
class StateProbesTest {
  @Test
  void everyLook_findsItsPlant_inTheContextThatPlantedIt() {
    // Every plant and look of a language in one run: a minute of each clock, for a loaded machine.
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
        .mount(Mount.scratch("/scratch")).workingDirectory("/scratch")
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60)).build())
        .build();
    ProbeRunner runner = new ProbeRunner(new ProbeSuite.Settings(policy, policy.report(), List.of(),
        policy.languages(), 2, Map.of(), List.of()), List.of());
    try (ProbeFixtures fixtures = ProbeFixtures.create(policy);
        PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).build()) {
      List<Probe> state = runner.battery(fixtures).plan(policy.languages()).stream()
          .filter(p -> p.kind() == Probe.Kind.STATE).toList();
      assertThat(state).extracting(Probe::id).contains("js.state.global", "js.state.prototype", "js.state.builtin",
          "py.state.builtins", "py.state.module", "py.state.environ", "py.state.sys-path", "py.state.file");
      Map<String, Object> data = fixtures.data(Map.of());
      for (Language language : policy.languages()) {
        List<Probe> mine = state.stream().filter(p -> p.language() == language).toList();
        ExecutionResult r = sandbox.run(GuestDriver.script(language, mine, StateProbesTest::plantThenLook, data));
        Map<String, String> answers = GuestDriver.answers(r);
        assertThat(answers).as(r.toString()).isNotNull().hasSize(mine.size());
        answers.forEach((id, answer) -> assertThat(answer).as(id).startsWith("reachable: "));
      }
    }
  }

  /** One body: the probe's plant, then its look, in the same context. */
  private static String plantThenLook(Probe p) {
    if (p.language() == Language.JAVASCRIPT) {
      return "if ((function (audit) {\n" + p.plant() + "\n})(audit) !== 'planted') { return 'not planted'; }\n"
          + p.code();
    }
    String plant = String.join("\n", p.plant().lines().map(l -> "    " + l).toList());
    return "def plant(audit):\n" + plant + "\nif plant(audit) != 'planted':\n    return 'not planted'\n" + p.code();
  }
}
