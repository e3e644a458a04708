package org.polyglotsandbox.internal.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Watchdog#after}: the start timeout's timer, on a ticker moved by hand. */
class WatchdogTimerTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final Watchdog watchdog = new Watchdog(now::get, 0.99, false);
  private final AtomicInteger fired = new AtomicInteger();

  @AfterEach
  void close() {
    watchdog.close();
  }

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
    watchdog.tick();
  }

  @Test
  void aTimer_firesOnce_whenTheTickerPassesItsTimeout() {
    watchdog.after(Duration.ofMillis(300), fired::incrementAndGet);

    advance(Duration.ofMillis(299));
    assertThat(fired).hasValue(0);
    advance(Duration.ofMillis(1));
    assertThat(fired).hasValue(1);
    advance(Duration.ofSeconds(10));
    assertThat(fired).hasValue(1);
  }

  @Test
  void aStoppedTimer_neverFires() {
    Watchdog.Timer t = watchdog.after(Duration.ofMillis(300), fired::incrementAndGet);
    advance(Duration.ofMillis(100));
    t.stop();
    t.stop();
    advance(Duration.ofSeconds(10));
    assertThat(fired).hasValue(0);
  }

  @Test
  void aZeroTimeout_firesOnTheNextTick() {
    watchdog.after(Duration.ZERO, fired::incrementAndGet);
    watchdog.tick();
    assertThat(fired).hasValue(1);
  }
}
