package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/**
 * Python's {@code time.sleep} is the process shield's (GraalPy's own was seen charging a sleeping guest
 * 100-138 MB and 250-370 ms of CPU for thread-local actions in a 2 s sleep, docs/limits.md): it
 * sleeps as long as asked, costs the guest almost no CPU, refuses what CPython refuses, and a run's
 * deadline still stops it.
 */
@Tag("slow")
class PythonSleepTest {
  /** A minute, so that the runs that must answer do on a loaded machine; the long sleep gets a deadline of its own. */
  private static final Limits LIMITS = Limits.builder().wallTime(Duration.ofSeconds(60)).build();
  private static final Duration DEADLINE = Duration.ofSeconds(2);
  /** The grace the sandbox gives a stopped guest before it abandons it. */
  private static final Duration GRACE = Duration.ofSeconds(5);
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.PYTHON).toBuilder()
        .limits(LIMITS).build()).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @Test
  void sleep_lastsAsLongAsAsked_andCostsTheGuestAlmostNoCpu() {
    ExecutionResult r = sandbox.run(Language.PYTHON, """
        import time
        t = time.monotonic()
        r = time.sleep(0.5)
        [r is None, time.monotonic() - t]""");
    assertThatRun(r).isOk();
    List<?> v = (List<?>) r.value();
    assertThat(v.get(0)).isEqualTo(true);
    assertThat(((Number) v.get(1)).doubleValue()).isBetween(0.5, 1.5);
    // About 50 returns to Python of a few microseconds each; GraalPy's own sleep used up to 37%.
    assertThat(r.usage().cpuTime()).isLessThan(Duration.ofMillis(250));
  }

  @Test
  void sleep_isTheShieldsOwn_underTimesName() {
    assertThatRun(sandbox.run(Language.PYTHON, "import time\n[time.sleep.__name__, time.sleep.__module__, time.sleep(0)]"))
        .hasValue(Arrays.asList("sleep", "time", null));
  }

  @Test
  void hostFunctionsDugOutOfTheShieldsClosures_nameNoHostClass() {
    // Python closures are introspectable: the shield's time.sleep and its process functions close over the
    // host functions it was installed with. Seen before they were named: str() of one showed
    // org.polyglotsandbox.internal.engine.ProcessShield$$Lambda/0x...
    ExecutionResult r = sandbox.run(Language.PYTHON, """
        import time, posix
        found = []
        for f in [time.sleep] + [getattr(posix, n, None) for n in ('system', 'kill', 'getpid', 'execv', 'fork')]:
            for cell in (getattr(f, '__closure__', None) or ()):
                c = cell.cell_contents
                if 'oreign' in type(c).__name__:
                    found.append(str(c))
                    found.append(repr(c))
        found""");
    assertThatRun(r).isOk().leaksNoHostDetail();
    @SuppressWarnings("unchecked")
    List<Object> found = (List<Object>) r.value();
    assertThat(found).contains("pause");
  }

  @Test
  void sleep_refusesWhatCPythonRefuses() {
    assertThatRun(sandbox.run(Language.PYTHON, """
        import time
        out = []
        for arg in (-1, float('nan'), 'x', None):
            try:
                time.sleep(arg)
                out.append('slept')
            except (ValueError, TypeError) as e:
                out.append(type(e).__name__ + ': ' + str(e))
        out""")).hasValue(List.of("ValueError: sleep length must be non-negative",
        "ValueError: Invalid value NaN (not a number)",
        "TypeError: 'str' object cannot be interpreted as an integer",
        "TypeError: 'NoneType' object cannot be interpreted as an integer"));
  }

  @Test
  void sleep_acceptsWhatHasAFloatValue() {
    assertThatRun(sandbox.run(Language.PYTHON, """
        import time
        class Hundredth:
            def __float__(self):
                return 0.01
        time.sleep(Hundredth())
        time.sleep(True)
        'ok'""")).hasValue("ok");
  }

  @Test
  void aLongSleep_isStoppedAtTheDeadline() {
    ExecutionResult r = sandbox.run(Script.of(Language.PYTHON, "import time\ntime.sleep(3600)")
        .withLimits(LIMITS.toBuilder().wallTime(DEADLINE).build()));
    assertThatRun(r).wasStoppedBy(Limit.WALL_TIME);
    // Woken at the deadline, not abandoned the grace after it.
    assertThat(r.usage().wallTime()).isLessThan(DEADLINE.plus(GRACE));
  }
}
