package org.polyglotsandbox.internal.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The one wording of durations: what limit notes, limit details and tool timeouts say. */
class DurationsTest {
  @Test
  void wholeSeconds_readInSeconds() {
    assertThat(Durations.format(Duration.ofSeconds(20))).isEqualTo("20 s");
    assertThat(Durations.format(Duration.ofMillis(1000))).isEqualTo("1 s");
    assertThat(Durations.format(Duration.ofMinutes(2))).isEqualTo("120 s");
  }

  @Test
  void anythingElse_readsInWholeMilliseconds() {
    assertThat(Durations.format(Duration.ofMillis(300))).isEqualTo("300 ms");
    assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500 ms");
    assertThat(Durations.format(Duration.ofNanos(300_999_999))).isEqualTo("300 ms");
  }
}
