package org.polyglotsandbox;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Eight allocation bombs at once of each kind in a fresh forked {@code -Xmx384m} JVM, asserting the way
 * back from a heap that does run out: every bomb is stopped by a limit, no good task gets a wrong answer
 * or an internal error, no class fails to initialise, no run waits out its start timeout, and the
 * sandbox serves after each scenario. It guards against a run thread that meets
 * {@code OutOfMemoryError} while logging and dies without closing its context, which leaves the heap full
 * for good, and against a class (such as the JFR audit event) first initialised under that pressure.
 *
 * <p>Tagged {@code soak}, not {@code slow}: {@link HeapBombsTest} asserts the same of the
 * eight-bomb scenarios in the gate, after the four-bomb ones have warmed them up. Run it with
 * {@code bin/mvn test -pl src/library -DexcludedGroups= -Dgroups=soak}.
 */
@Tag("soak")
class EightHeapBombsSoakTest {
  private static final List<String> EIGHT = List.of("js-arrays:8", "js-strings:8", "py-lists:8", "py-bytes:8");

  @Test
  void eightBombs_leaveNoWrongAnswer_andTheSandboxServesAfterEach() throws Exception {
    // A host OutOfMemoryError is counted below, not refused; what must never follow it is a wrong
    // answer, an internal error, a class that cannot be initialised, a run that cannot start, a thread that
    // hangs, or a sandbox that stops serving.
    String out = HeapBombsTest.runForked(EIGHT, 8, HeapBombsTest.WAY_BACK_BROKEN);
    HeapBombsTest.checkPhases(out, EIGHT, HeapBombsTest.EIGHT_BOMB_GOOD_OUTCOMES);
    System.out.println("eight bombs: the JVM reported " + HeapBombsTest.count(out, "VM-OUT-OF-MEMORY-ERROR-THROWN")
        + " OutOfMemoryError(s)");
  }
}
