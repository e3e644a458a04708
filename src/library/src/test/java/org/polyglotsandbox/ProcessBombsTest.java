package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A host JVM with a 256 MiB heap survives sixteen allocation bombs of each kind at once, five rounds in a
 * row, when its guests run in worker processes: the bombs fill the workers' heaps, not the host's.
 */
@Tag("slow")
class ProcessBombsTest {
  private static final Pattern ROUND = Pattern.compile("round (\\d+): .*heap (\\d+) MiB, rss (\\d+) MiB");

  @Test
  void sixteenBombsOfEachKind_fiveRoundsInARow_leaveTheHostFlat() throws Exception {
    ForkedJvm.Result fork = ForkedJvm.run(ProcessBombsMain.class, "256m", 30, List.of(), List.of("5"));
    System.out.println(fork.output());
    assertThat(fork.finished()).as(fork.output()).isTrue();
    assertThat(fork.exitStatus()).as(fork.output()).isZero();
    Matcher m = ROUND.matcher(fork.output());
    long firstRss = -1;
    int rounds = 0;
    while (m.find()) {
      rounds++;
      long heap = Long.parseLong(m.group(2));
      long rss = Long.parseLong(m.group(3));
      assertThat(heap).as("host heap in use after round %s", m.group(1)).isLessThan(64);
      if (firstRss < 0) {
        firstRss = rss;
      }
      assertThat(rss).as("host RSS after round %s (after round 1: %d MiB)", m.group(1), firstRss)
          .isLessThan(firstRss + 64);
    }
    assertThat(rounds).isEqualTo(5);
  }
}
