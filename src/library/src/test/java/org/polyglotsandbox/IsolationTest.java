package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Task 1 plants state in every place it can reach; task 2, run afterwards on the same sandbox, sees none
 * of it: no files, no globals, no patched built-ins, prototypes or standard-library modules. Checked
 * without a pool and with warm pools of one and two contexts, so that both a context prepared before
 * task 1 ran and one prepared after it are probed.
 */
class IsolationTest {
  private static final int[] POOL_SIZES = {0, 1, 2};
  private static final Map<Integer, PolyglotSandbox> sandboxes = new java.util.HashMap<>();

  @BeforeAll
  static void build() {
    for (int size : POOL_SIZES) {
      sandboxes.put(size, PolyglotSandbox.builder()
          .policy(Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
              .mount(Mount.scratch("/scratch"))
              // Generous: on a loaded 2-core machine GraalPy's imports alone can take seconds.
              .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60)).build())
              .build())
          .warmContexts(size)
          .build());
    }
  }

  @AfterAll
  static void close() {
    sandboxes.values().forEach(PolyglotSandbox::close);
  }

  static Stream<Arguments> configurations() {
    List<Arguments> all = new ArrayList<>();
    for (Language language : Language.values()) {
      for (int size : POOL_SIZES) {
        all.add(Arguments.of(language, size));
      }
    }
    return all.stream();
  }

  private static final String JS_PLANT = String.join("\n",
      "globalThis.planted = 'yes';",
      "var plantedVar = 'yes';",
      "Object.prototype.polluted = 1;",
      "Array.prototype.map = null;",
      "Array.prototype.push = function () { return -1; };",
      "Function.prototype.call = null;",
      "String.prototype.trim = () => 'poisoned';",
      "JSON.stringify = () => 'poisoned';",
      "JSON.parse = () => 'poisoned';",
      "Math.random = () => 4;",
      "Math.PI = 3;", // read-only: silently ignored outside strict mode, but tried
      "Date.now = () => 0;",
      "try { globalThis.readText = () => 'poisoned'; delete globalThis.readText; } catch (e) {}",
      "globalThis.Error = function () { return 'poisoned'; };",
      "Object.freeze(Object.prototype);",
      "'planted'");

  private static final String JS_PROBE = String.join("\n",
      "[typeof planted, typeof plantedVar, ({}).polluted === undefined, typeof [].map,",
      " [1, 2].push(3), typeof Function.prototype.call, ' a '.trim(), JSON.stringify([1]),",
      " JSON.parse('[2]')[0], Math.random() < 1, Math.PI > 3.14, Date.now() > 0,",
      " typeof readText,",
      " new Error('x').message, Object.isFrozen(Object.prototype)]");

  private static final List<Object> JS_CLEAN = List.of("undefined", "undefined", true, "function", 3L,
      "function", "a", "[1]", 2L, true, true, true, "function", "x", false);

  private static final String PYTHON_PLANT = String.join("\n",
      "import builtins, sys, json, types, os, math, random, re, collections",
      "with open('/scratch/planted.txt', 'w') as f:",
      "    f.write('from run 1')",
      "os.mkdir('/scratch/dir')",
      "planted = 'yes'",
      "builtins.planted = 'yes'",
      "builtins.len = lambda x: 0",
      "builtins.print = lambda *a, **k: None",
      "json.dumps = lambda *a, **k: 'poisoned'",
      "json.loads = lambda *a, **k: 'poisoned'",
      "math.pi = 3",
      "os.path.join = lambda *a: 'poisoned'",
      "re.compile = None",
      "collections.OrderedDict = dict",
      "random.seed(1)",
      "sys.modules['planted_module'] = types.ModuleType('planted_module')",
      "sys.modules['math'] = types.ModuleType('math')",
      "sys.path.insert(0, '/scratch')",
      "sys.setrecursionlimit(60)",
      "sys.displayhook = None",
      "os.chdir('/scratch')",
      "int.__dict__  # a mapping proxy: built-in types cannot be patched",
      "'planted'");

  private static final String PYTHON_PROBE = String.join("\n",
      "import builtins, sys, json, os, math, re, collections",
      "[os.listdir('/scratch'), 'planted' in globals(), hasattr(builtins, 'planted'), len([1, 2]),",
      " builtins.print.__name__, json.dumps([1]), json.loads('[2]'), math.pi > 3.14,",
      " os.path.join('a', 'b'), re.compile('x') is not None, collections.OrderedDict is not dict,",
      " 'planted_module' in sys.modules, hasattr(math, 'sqrt'), '/scratch' in sys.path,",
      " sys.getrecursionlimit() > 60, sys.displayhook is not None, os.getcwd()]");

  private static final List<Object> PYTHON_CLEAN = List.of(List.of(), false, false, 2L, "print", "[1]", List.of(2L),
      true, "a/b", true, true, false, true, false, true, true, "/");

  @ParameterizedTest(name = "{0}, warm pool of {1}")
  @MethodSource("configurations")
  void stateFromOneRun_isAbsentInTheNext(Language language, int poolSize) {
    PolyglotSandbox sandbox = sandboxes.get(poolSize);
    ExecutionResult plant = sandbox.run(language, GuestCode.of(language, JS_PLANT, PYTHON_PLANT));
    assertThatRun(plant).hasValue("planted");

    // More probes than the pool holds: the later ones run in contexts made after task 1 ran.
    for (int i = 0; i < 3; i++) {
      ExecutionResult probe = sandbox.run(language, GuestCode.of(language, JS_PROBE, PYTHON_PROBE));
      assertThatRun(probe).isOk();
      assertThat(probe.value()).as("probe %d after planting", i)
          .isEqualTo(language == Language.JAVASCRIPT ? JS_CLEAN : PYTHON_CLEAN);
    }
  }

  @ParameterizedTest(name = "{0}, warm pool of {1}")
  @MethodSource("configurations")
  void aRunThatFailsOrIsStopped_leavesNothingForTheNext(Language language, int poolSize) {
    PolyglotSandbox sandbox = sandboxes.get(poolSize);
    ExecutionResult failed = sandbox.run(language, GuestCode.of(language,
        "globalThis.planted = 'yes'; throw new Error('boom')",
        "import builtins\nbuiltins.planted = 'yes'\nraise ValueError('boom')"));
    assertThatRun(failed).hasOutcome(Outcome.GUEST_ERROR);

    ExecutionResult probe = sandbox.run(language, GuestCode.of(language,
        "typeof planted", "import builtins\nstr(hasattr(builtins, 'planted'))"));
    assertThatRun(probe).hasValue(language == Language.JAVASCRIPT ? "undefined" : "False");
  }
}
