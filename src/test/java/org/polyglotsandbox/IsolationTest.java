package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Two consecutive runs on one sandbox share nothing: no files, no globals, no patched built-ins. */
class IsolationTest {
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
            .mount(Mount.scratch("/scratch"))
            .build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void stateFromOneRun_isAbsentInTheNext(Language language) {
    ExecutionResult plant = sandbox.run(language, GuestCode.of(language,
        "globalThis.planted = 'yes'; Object.prototype.polluted = 1; Array.prototype.map = null;"
            + "JSON.stringify = () => 'poisoned'; 'planted'",
        String.join("\n",
            "import builtins, sys, json, types",
            "with open('/scratch/planted.txt', 'w') as f:",
            "    f.write('from run 1')",
            "planted = 'yes'",
            "builtins.planted = 'yes'",
            "builtins.len = lambda x: 0",
            "json.dumps = lambda *a, **k: 'poisoned'",
            "sys.modules['planted_module'] = types.ModuleType('planted_module')",
            "sys.path.insert(0, '/scratch')",
            "'planted'")));
    assertThatRun(plant).hasValue("planted");

    ExecutionResult probe = sandbox.run(language, GuestCode.of(language,
        "[typeof planted, ({}).polluted === undefined, typeof [].map, JSON.stringify([1])]",
        String.join("\n",
            "import builtins, sys, json, os",
            "[os.listdir('/scratch'), 'planted' in globals(), hasattr(builtins, 'planted'), len([1, 2]),",
            " json.dumps([1]), 'planted_module' in sys.modules, '/scratch' in sys.path]")));
    assertThatRun(probe).isOk();
    assertThat(probe.value()).isEqualTo(expected(language));
  }

  private static Object expected(Language language) {
    return language == Language.JAVASCRIPT
        ? List.of("undefined", true, "function", "[1]")
        : List.of(List.of(), false, false, 2L, "[1]", false, false);
  }
}
