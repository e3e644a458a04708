package org.polyglotsandbox.internal.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.SandboxEvent;

/** The watchdog's wall-clock rules and its timers, on a ticker moved by hand: no test here sleeps. */
class WatchdogTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final Watchdog watchdog = new Watchdog(now::get, 0.99, false);
  private final RunGuard guard = new RunGuard(Runnable::run);
  private final RunMeter meter = new RunMeter(guard, Duration.ofHours(1), Long.MAX_VALUE);
  private final AtomicInteger abandoned = new AtomicInteger();
  /** Times a {@link Watchdog#after} timer (the start timeout's) fired. */
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
  void deadline_tripsWallTime_exactlyWhenTheTickerPassesIt() {
    watchdog.watch(guard, meter, Duration.ofSeconds(2), Duration.ofSeconds(5), abandoned::incrementAndGet);

    advance(Duration.ofMillis(1999));
    assertThat(guard.tripped()).isNull();
    assertThat(guard.isCancelled()).isFalse();

    advance(Duration.ofMillis(1));
    assertThat(guard.tripped()).isEqualTo(new RunGuard.Trip(Limit.WALL_TIME, "wall time exceeded 2 s"));
    assertThat(guard.isCancelled()).isTrue();
    assertThat(guard.events()).singleElement().isInstanceOfSatisfying(SandboxEvent.LimitExceeded.class,
        e -> assertThat(e.layer()).isEqualTo(Layer.WATCHDOG));
    assertThat(abandoned).hasValue(0);
  }

  @Test
  void aGuestThatIgnoresCancellation_isAbandonedOnce_afterTheGrace() {
    watchdog.watch(guard, meter, Duration.ofMillis(500), Duration.ofSeconds(5), abandoned::incrementAndGet);

    advance(Duration.ofMillis(500));
    advance(Duration.ofMillis(4999));
    assertThat(abandoned).hasValue(0);
    assertThat(watchdog.watching()).isEqualTo(1);

    advance(Duration.ofMillis(1));
    advance(Duration.ofSeconds(60));
    assertThat(abandoned).hasValue(1);
    assertThat(watchdog.watching()).isZero();
    assertThat(guard.tripped().detail()).isEqualTo("wall time exceeded 500 ms");
  }

  /**
   * A guest stopped by its CPU cap 1 s in, under a 60 s wall time, that ignores the cancellation (a
   * JavaScript stack overflow unwinding through deoptimising frames, docs/limits.md) is abandoned 5 s
   * after the stop, not 5 s after its deadline, so its caller waits about 6 s, not 65 s.
   */
  @Test
  void aGuestStoppedBeforeItsDeadline_isAbandonedTheGraceAfterTheStop() {
    watchdog.watch(guard, meter, Duration.ofSeconds(60), Duration.ofSeconds(5), abandoned::incrementAndGet);
    advance(Duration.ofSeconds(1));
    guard.trip(Limit.CPU_TIME, "cpu time exceeded 1 s", Layer.WATCHDOG, true);

    advance(Duration.ofMillis(10)); // the first check that sees it cancelled
    advance(Duration.ofMillis(4999));
    assertThat(abandoned).hasValue(0);

    advance(Duration.ofMillis(1)); // 6.01 s in, 54 s before the deadline
    assertThat(abandoned).hasValue(1);
    assertThat(watchdog.watching()).isZero();
    assertThat(guard.tripped().limit()).isEqualTo(Limit.CPU_TIME);
  }

  /** A cancellation after the deadline changes nothing: the grace still ends 5 s after the deadline. */
  @Test
  void aCancellationAfterTheDeadline_neverPostponesTheAbandonment() {
    watchdog.watch(guard, meter, Duration.ofSeconds(1), Duration.ofSeconds(5), abandoned::incrementAndGet);
    advance(Duration.ofMillis(999));
    advance(Duration.ofMillis(1)); // the deadline: tripped and cancelled, seen by this check
    advance(Duration.ofMillis(4999));
    assertThat(abandoned).hasValue(0);
    advance(Duration.ofMillis(1));
    assertThat(abandoned).hasValue(1);
  }

  /**
   * Regression: an Error thrown in one check (an OutOfMemoryError under an allocation bomb) escaped the
   * periodic task, which the executor then never ran again; a later run's {@code time.sleep(3600)} was
   * never stopped (BombBatteryTest hung). Now the tick finishes its other checks and keeps running.
   */
  @Test
  void anErrorInOneCheck_neitherEscapesTheTick_norSkipsTheOtherRuns() {
    watchdog.watch(guard, meter, Duration.ofMillis(100), Duration.ZERO, () -> {
      throw new OutOfMemoryError("Java heap space");
    });
    RunGuard other = new RunGuard(Runnable::run);
    watchdog.watch(other, new RunMeter(other, Duration.ofHours(1), Long.MAX_VALUE), Duration.ofMillis(100),
        Duration.ofSeconds(5), () -> {});

    now.addAndGet(Duration.ofMillis(100).toNanos());
    org.assertj.core.api.Assertions.assertThatCode(watchdog::tick).doesNotThrowAnyException();
    assertThat(other.tripped()).isEqualTo(new RunGuard.Trip(Limit.WALL_TIME, "wall time exceeded 100 ms"));
  }

  @Test
  void aStoppedWatch_tripsNothing() {
    Watchdog.Watch w = watchdog.watch(guard, meter, Duration.ofSeconds(1), Duration.ofSeconds(1),
        abandoned::incrementAndGet);

    advance(Duration.ofMillis(900));
    w.stop();
    advance(Duration.ofHours(1));

    assertThat(guard.tripped()).isNull();
    assertThat(abandoned).hasValue(0);
    assertThat(watchdog.watching()).isZero();
  }

  @Test
  void theFirstLimitWins_aLaterDeadlineChangesNothing() {
    watchdog.watch(guard, meter, Duration.ofSeconds(1), Duration.ofSeconds(1), abandoned::incrementAndGet);
    guard.trip(Limit.STATEMENTS, "more than 10 statements", Layer.STATEMENT_LIMIT, false);

    advance(Duration.ofSeconds(1));

    assertThat(guard.tripped().limit()).isEqualTo(Limit.STATEMENTS);
    assertThat(guard.events()).hasSize(1);
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

  /**
   * An abandon that throws (the heap had no room for the abandoned run's result) is tried again at the next
   * look, until it is done; before, the watch ended before the abandon ran, a failed abandon was never tried
   * again, and the run's caller waited for as long as its guest did not return (16 bombs in a 256 MiB heap:
   * callers still waiting a minute after every bomb was stopped).
   */
  @Test
  void anAbandonThatThrows_isTriedAgainAtTheNextLook_untilItIsDone() {
    watchdog.watch(guard, meter, Duration.ofMillis(100), Duration.ofSeconds(1), () -> {
      if (abandoned.incrementAndGet() <= 2) {
        throw new OutOfMemoryError("Java heap space");
      }
    });

    advance(Duration.ofMillis(1100));
    assertThat(abandoned).hasValue(1);
    assertThat(watchdog.watching()).isEqualTo(1);
    advance(Duration.ofMillis(10));
    advance(Duration.ofMillis(10));
    assertThat(abandoned).hasValue(3);
    assertThat(watchdog.watching()).isZero();
    advance(Duration.ofSeconds(10));
    assertThat(abandoned).hasValue(3);
  }

  /** The same for a timer (the start timeout's): one that throws fires again at the next look, until it is done. */
  @Test
  void aTimerThatThrows_firesAgainAtTheNextLook_untilItIsDone() {
    watchdog.after(Duration.ofMillis(300), () -> {
      if (fired.incrementAndGet() == 1) {
        throw new OutOfMemoryError("Java heap space");
      }
    });

    advance(Duration.ofMillis(300));
    assertThat(fired).hasValue(1);
    advance(Duration.ofMillis(10));
    assertThat(fired).hasValue(2);
    advance(Duration.ofSeconds(10));
    assertThat(fired).hasValue(2);
  }
}
