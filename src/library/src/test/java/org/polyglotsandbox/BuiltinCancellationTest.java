package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Builtins that could run for minutes on a small input without reaching a safepoint, where a stopped run
 * stops: each is attacked from guest code, and the run must end at its cap (or with the guest error that
 * names the bound) with its thread really stopped, not abandoned still running.
 */
class BuiltinCancellationTest {
  // Short: the memory cap must not trip first. The expansions allocate about 1.3 GiB a second on an idle core
  // (the 1 GiB cap tripped at 0.8 s), and a loaded machine allocates more slowly, not faster.
  private static final Duration CAP = Duration.ofMillis(250);
  /** What a stopped guest thread may take to return: far more than a real stop, far less than the attacks. */
  private static final Duration STOPPED_WITHIN = Duration.ofSeconds(20);
  private static final String EXPANDING = "let a = [1]; for (let i = 0; i < 40; i++) a = [a, a];\n";
  private static final String EXPANDING_OBJECT = "let a = {}; for (let i = 0; i < 40; i++) a = {x: a, y: a};\n";

  private PolyglotSandbox sandbox;
  private Set<Thread> before;

  @BeforeEach
  void build() {
    before = Thread.getAllStackTraces().keySet();
    sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(CAP).maxCpuTime(Duration.ofMinutes(5)).maxStatements(Long.MAX_VALUE).build())
        .build()).build();
  }

  @AfterEach
  void close() {
    sandbox.close();
  }

  @Test
  void jsonStringifyOfAnExpandingStructure_stopsAtTheWallTimeLimit() throws InterruptedException {
    assertStoppedAtTheWallTimeLimit(Language.JAVASCRIPT, EXPANDING + "JSON.stringify(a)");
  }

  @Test
  void jsonStringifyOfAnExpandingStructure_withAReplacerArray_stopsAtTheWallTimeLimit() throws InterruptedException {
    assertStoppedAtTheWallTimeLimit(Language.JAVASCRIPT, EXPANDING_OBJECT + "JSON.stringify(a, ['x', 'y'])");
  }

  @Test
  void jsonStringifyWithAHugeSparseReplacerArray_stopsAtTheWallTimeLimit() throws InterruptedException {
    assertStoppedAtTheWallTimeLimit(Language.JAVASCRIPT, "let r = []; r.length = 2 ** 32 - 1; JSON.stringify({}, r)");
  }

  private void assertStoppedAtTheWallTimeLimit(Language language, String code) throws InterruptedException {
    ExecutionResult r = sandbox.run(language, code);
    assertThatRun(r).wasStoppedBy(Limit.WALL_TIME);
    RunThreads.assertStopped(before, STOPPED_WITHIN, code);
  }
}
