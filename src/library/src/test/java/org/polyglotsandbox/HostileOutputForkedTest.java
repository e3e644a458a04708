package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The results of {@link HostileOutputMain}, returned in a forked JVM with a 256 MiB heap: each would
 * need gigabytes of host heap to copy, so without the output boundary's up-front length checks the
 * forked JVM would die of an {@link OutOfMemoryError}. Each must end with its expected verdict, and
 * afterwards ordinary programs still run in the same JVM.
 */
@Tag("slow")
class HostileOutputForkedTest {
  private static final Map<String, Set<String>> EXPECTED = new HashMap<>();

  static {
    EXPECTED.put("rope.js", Set.of("OUTPUT_REJECTED STRING_TOO_LONG $"));
    EXPECTED.put("rope-in-object.js", Set.of("OUTPUT_REJECTED STRING_TOO_LONG $.nested.s"));
    // A property key is flattened by GraalJS itself, on the guest's allocation budget.
    EXPECTED.put("rope-as-key.js", Set.of("OUTPUT_REJECTED STRING_TOO_LONG $", "LIMIT_EXCEEDED memory"));
    EXPECTED.put("repeated.js", Set.of("OUTPUT_REJECTED TOO_MUCH_TEXT $[4]"));
    EXPECTED.put("repeated.py", Set.of("OUTPUT_REJECTED TOO_MUCH_TEXT $[4]"));
    EXPECTED.put("repeated-repr.py", Set.of("OUTPUT_REJECTED TOO_MUCH_TEXT $[4]"));
    // 2^26 bits: about 20 million digits, far past the 1 Mi string cap.
    EXPECTED.put("big-number.py", Set.of("OUTPUT_REJECTED STRING_TOO_LONG $[0]"));
    EXPECTED.put("big-number.js", Set.of("OUTPUT_REJECTED STRING_TOO_LONG $[0]"));
    // The guest's memory cap (or the heap refusing the allocation) or the string cap, whichever acts first.
    EXPECTED.put("string-500mb.js", Set.of("OUTPUT_REJECTED STRING_TOO_LONG $", "LIMIT_EXCEEDED memory"));
    EXPECTED.put("string-500mb.py", Set.of("OUTPUT_REJECTED STRING_TOO_LONG $", "LIMIT_EXCEEDED memory"));
  }

  private static final Map<String, String> VERDICTS = new HashMap<>();
  private static String output;

  @BeforeAll
  static void runInAForkedJvm() throws IOException, InterruptedException {
    ForkedJvm.Result fork = ForkedJvm.run(HostileOutputMain.class, "256m", 10);
    output = fork.output();
    assertThat(fork.finished()).as("finished:\n%s", output).isTrue();
    assertThat(fork.exitStatus()).as("forked JVM exit status:\n%s", output).isZero();
    output.lines().filter(l -> l.startsWith("HOSTILE ")).forEach(l -> {
      String[] f = l.split(" ");
      String verdict = f[2].equals("OUTPUT_REJECTED") ? f[2] + " " + f[4] + " " + f[5] : f[2] + " " + f[3];
      VERDICTS.put(f[1], verdict);
    });
    assertThat(output).as("afterwards the JVM still runs both languages").contains("HEALTHY 42 42");
    assertThat(output).doesNotContain("OutOfMemoryError");
  }

  static Set<String> programs() {
    return HostileOutputMain.programs().keySet();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("programs")
  void hostileResult_isRejectedOrStopped_neverCopiedOntoTheHostHeap(String program) {
    assertThat(EXPECTED).as("expectation for %s", program).containsKey(program);
    assertThat(VERDICTS).as("verdicts:\n%s", output).containsKey(program);
    assertThat(EXPECTED.get(program)).as("%s:\n%s", program, output).contains(VERDICTS.get(program));
  }
}
