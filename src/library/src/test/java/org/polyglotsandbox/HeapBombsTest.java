package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Allocation bombs beside good tasks in a small heap, where a heap that runs out can leave a class whose
 * initialiser failed to break every later run. Four and then eight bombs of each kind (JavaScript arrays
 * and strings, Python lists and bytes), one kind after another, run beside good tasks in both languages
 * (with inputs) in one forked {@code -Xmx384m} JVM with default limits. In every scenario every bomb must be stopped by a limit, no good task may get a wrong
 * answer, nothing may end {@code INTERNAL_ERROR}, fail to initialise a class, wait out its start or
 * hang, and the sandbox must serve after each scenario.
 *
 * <p>With four bombs the heap guard must also stop them before the host runs out: no thread may see an
 * {@code OutOfMemoryError} (the JVM reports the first one thrown anywhere, caught or not), and every good
 * task that runs must end {@code OK}. The eight-bomb scenarios come after the four-bomb ones in the same
 * JVM on purpose: by then the bombs' loops are compiled and eight of them allocate over a gigabyte a
 * second, the hardest case measured (RESULTS.md, 2026-12-02 evening and 2026-12-03). Stopping them before
 * the heap runs out is what the guard usually achieves there but cannot promise on a busy machine
 * (docs/limits.md; CI on 272960c saw it run out once, in {@code py-bytes:8}), so what is asserted
 * for them is the way back, as {@link EightHeapBombsSoakTest} does from a cold JVM: a good task
 * whose thread met the error ends {@code LIMIT_EXCEEDED memory}, a host thread that met it says so and goes
 * on, and nothing else goes wrong. The number of errors the JVM reported is printed.
 */
@Tag("slow")
class HeapBombsTest {
  private static final List<String> SCENARIOS = List.of("js-arrays:4", "js-strings:4", "py-lists:4", "py-bytes:4",
      "js-arrays:8", "js-strings:8", "py-lists:8", "py-bytes:8");
  private static final Pattern PHASE = Pattern.compile(
      "PHASE (\\S+) goodOk=(\\d+) wrong=(\\d+) good=\\{([^}]*)\\} bombs=\\{([^}]*)\\} slowestGoodMs=(\\d+) after=(\\S+)");

  private static final String BOMB_LIMIT = "LIMIT_EXCEEDED:(cpu_time|memory|wall_time)=\\d+";
  private static final String BOMB_OUTCOMES = BOMB_LIMIT + "(, " + BOMB_LIMIT + ")*";

  @Test
  void allocationBombs_areStoppedBeforeTheHostRunsOutOfHeap_andGoodTasksKeepTheirAnswers() throws Exception {
    String out = runForked(SCENARIOS, 10, WAY_BACK_BROKEN);
    int lastFour = out.indexOf("PHASE " + SCENARIOS.get(3) + " ");
    assertThat(lastFour).as("the four-bomb scenarios ran:\n%s", out).isPositive();
    int eight = out.indexOf('\n', lastFour) + 1;
    String four = out.substring(0, eight);
    assertThat(four).as("host output of the four-bomb scenarios").doesNotContain(HEAP_RAN_OUT)
        .doesNotContain("GOOD-FAILED", "HOST-THROWABLE", "UNCAUGHT");
    // A good task whose context took its whole deadline to make never ran; that is not the bombs' doing.
    checkPhases(four, SCENARIOS.subList(0, 4), "(NOT_STARTED_IN_TIME=\\d+, )?OK=\\d+");
    String rest = out.substring(eight);
    assertThat(rest.lines().filter(l -> l.startsWith("UNCAUGHT") || l.startsWith("HOST-THROWABLE"))
        .filter(l -> !l.contains("OutOfMemoryError"))).as("host threads of the eight-bomb scenarios").isEmpty();
    checkPhases(rest, SCENARIOS.subList(4, 8), EIGHT_BOMB_GOOD_OUTCOMES);
    System.out.println("eight bombs: the JVM reported " + count(rest, HEAP_RAN_OUT[0]) + " OutOfMemoryError(s)");
  }

  /** What no scenario may show, however many bombs: the way back from a full heap broken. */
  static final String[] WAY_BACK_BROKEN = {"NoClassDefFoundError", "ExceptionInInitializerError",
      "Compiler initialization failed", "HUNG", "WRONG", "INTERNAL_ERROR", "RejectedExecutionException",
      "did not start within"};
  /** What shows that the heap ran out: the JVM's report of any OutOfMemoryError, and a harness thread's. */
  static final String[] HEAP_RAN_OUT = {"VM-OUT-OF-MEMORY-ERROR-THROWN", "OutOfMemoryError", "HOST-OOM"};
  /** A good task whose thread met the host's OutOfMemoryError ends LIMIT_EXCEEDED memory, never otherwise. */
  static final String EIGHT_BOMB_GOOD_OUTCOMES = "(LIMIT_EXCEEDED:memory=\\d+, )?(NOT_STARTED_IN_TIME=\\d+, )?OK=\\d+";

  /** Runs the scenarios, 10 s each, in a forked 384 MiB JVM; its output must hold none of {@code forbidden}. */
  static String runForked(List<String> scenarios, long timeoutMinutes, String... forbidden) throws Exception {
    List<String> args = new ArrayList<>();
    args.add("10"); // seconds per scenario
    args.addAll(scenarios);
    ForkedJvm.Result fork = ForkedJvm.run(HeapBombsMain.class, "384m", timeoutMinutes,
        List.of("-XX:OnOutOfMemoryError=echo VM-OUT-OF-MEMORY-ERROR-THROWN"), args);
    String out = fork.output();
    assertThat(fork.finished()).as("finished in time:\n%s", out).isTrue();
    assertThat(out).as("host output").doesNotContain(forbidden);
    assertThat(fork.exitStatus()).as("exit status:\n%s", out).isZero();
    return out;
  }

  /**
   * Every scenario ran, no good task got a wrong answer, the good tasks' outcomes match {@code goodOutcomes},
   * every bomb was stopped by a limit (memory, CPU or wall time), and the sandbox served after each
   * scenario.
   */
  static void checkPhases(String out, List<String> scenarios, String goodOutcomes) {
    List<String> seen = new ArrayList<>();
    Matcher m = PHASE.matcher(out);
    while (m.find()) {
      String scenario = m.group(1);
      seen.add(scenario);
      assertThat(Long.parseLong(m.group(2))).as("good tasks done in %s:\n%s", scenario, out).isPositive();
      assertThat(m.group(3)).as("wrong answers in %s", scenario).isEqualTo("0");
      assertThat(m.group(4)).as("good outcomes in %s", scenario).matches(goodOutcomes);
      // Every bomb stopped by a limit: its memory, mostly; a bomb still in the interpreter of a fresh JVM on busy
      // cores allocates slowly enough to stay under the heap budget and meets its wall-time (or CPU) limit first
      // (seen: all 4 js-arrays bombs of a JVM that took 33 s to build its sandbox beside two CPU burners).
      assertThat(m.group(5)).as("bomb outcomes in %s", scenario).matches(BOMB_OUTCOMES);
      assertThat(m.group(7)).as("serves after %s", scenario).isEqualTo("OK/42,OK/12");
    }
    assertThat(seen).as("scenarios run:\n%s", out).isEqualTo(scenarios);
  }

  static int count(String text, String what) {
    int n = 0;
    for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }
}
