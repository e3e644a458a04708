package org.polyglotsandbox.internal.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CpuLoadTest {
  private static final long MS = 1_000_000;

  @Test
  void coresAreTheCpuTimeOverTheWindow_measuredOncePerCompleteWindow() {
    CpuLoad load = new CpuLoad(100 * MS);
    assertThat(load.cores()).as("nothing measured yet").isNaN();
    load.sample(0, () -> 5_000 * MS);
    load.sample(50 * MS, () -> 5_080 * MS);
    assertThat(load.cores()).as("the first window is not complete").isNaN();
    load.sample(100 * MS, () -> 5_190 * MS); // 190 ms of CPU in 100 ms: two cores, nearly
    assertThat(load.cores()).isCloseTo(1.9, within(1e-9));
    load.sample(150 * MS, () -> 5_200 * MS);
    assertThat(load.cores()).as("kept until the next window is complete").isCloseTo(1.9, within(1e-9));
    load.sample(210 * MS, () -> 5_212 * MS); // 22 ms of CPU in 110 ms: runs waiting for tools
    assertThat(load.cores()).isCloseTo(0.2, within(1e-9));
  }

  @Test
  void anUnknownCpuTime_leavesTheLoadUnknown_andMeasuringStartsAgainAfterIt() {
    CpuLoad load = new CpuLoad(100 * MS);
    load.sample(0, () -> 0);
    load.sample(100 * MS, () -> 100 * MS);
    assertThat(load.cores()).isCloseTo(1.0, within(1e-9));
    load.sample(200 * MS, () -> -1);
    assertThat(load.cores()).isNaN();
    load.sample(300 * MS, () -> 400 * MS);
    load.sample(350 * MS, () -> 410 * MS);
    assertThat(load.cores()).isNaN();
    load.sample(400 * MS, () -> 450 * MS);
    assertThat(load.cores()).isCloseTo(0.5, within(1e-9));
  }

  @Test
  void theCpuTimeIsReadOncePerWindow_notOnEveryTick() {
    CpuLoad load = new CpuLoad(100 * MS);
    java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
    for (long t = 0; t <= 300; t += 10) { // the watchdog's 10 ms ticks
      long now = t;
      load.sample(now * MS, () -> {
        reads.incrementAndGet();
        return now * MS / 2;
      });
    }
    assertThat(reads.get()).as("at 0, 100, 200 and 300 ms").isEqualTo(4);
    assertThat(load.cores()).isCloseTo(0.5, within(1e-9));
  }

  @Test
  void theWatchdog_measuresThisJvm() throws Exception {
    try (Watchdog watchdog = new Watchdog(Watchdog.Ticker.SYSTEM, 0.9, true)) {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (Double.isNaN(watchdog.busyCores()) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(watchdog.busyCores()).isNotNaN().isGreaterThanOrEqualTo(0.0)
          .isLessThanOrEqualTo(Runtime.getRuntime().availableProcessors() * 1.5);
    }
  }
}
