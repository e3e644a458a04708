package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Audit events reach the listener through a bounded queue and the sandbox's audit thread, never on the
 * guest's thread (where a listener that sleeps 10 s would make a 2 s run return after 12 s): a listener
 * holds no run, a flood against a stuck listener is dropped and counted, order is kept, and
 * {@code close()} does not wait for a stuck listener past its bound.
 */
@Tag("slow")
class AuditDeliveryTest {
  private static final String DENIAL_JS = "try { readText('/etc/passwd') } catch (e) {}\n";
  private static final String DENIAL_PY = "try:\n    open('/etc/passwd')\nexcept Exception:\n    pass\n";
  /** The grace the sandbox gives a stopped guest before it abandons it. */
  private static final Duration GRACE = Duration.ofSeconds(5);

  /** A listener stuck until {@link #release}, as one that sleeps for a long time; counts what it got. */
  private static final class StuckListener implements Consumer<AuditEvent> {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch returned = new CountDownLatch(1);
    final List<AuditEvent> got = new CopyOnWriteArrayList<>();

    @Override
    public void accept(AuditEvent e) {
      got.add(e);
      entered.countDown();
      try {
        release.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
      returned.countDown();
    }
  }

  private static Policy policy(Language language, Duration wallTime) {
    return Policy.computeOnly(language).toBuilder()
        .limits(Limits.builder().wallTime(wallTime).maxStatements(Long.MAX_VALUE).build()).build();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aStuckListener_holdsNoRun(Language language) throws Exception {
    StuckListener listener = new StuckListener();
    // A minute for the run that must answer; the looping run gets 2 s as its own limit.
    Duration deadline = Duration.ofSeconds(2);
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy(language, Duration.ofMinutes(1)))
        .auditListener(listener).build()) {
      try {
        ExecutionResult ok = sandbox.run(language, (language == Language.PYTHON ? DENIAL_PY : DENIAL_JS) + "42");

        assertThat(ok.outcome()).isEqualTo(Outcome.OK);
        assertThat(ok.value()).isEqualTo(42L);
        assertThat(listener.entered.await(30, TimeUnit.SECONDS)).as("the listener got the denial").isTrue();
        assertThat(listener.returned.getCount()).as("run returned while the listener was still stuck").isEqualTo(1);

        // A run that waits out its 2 s deadline behind the same stuck listener: its own limit, on time.
        long start = System.nanoTime();
        ExecutionResult loop = sandbox.run(Script.of(language, language == Language.PYTHON
                ? DENIAL_PY + "while True:\n    x = 1" : DENIAL_JS + "while (true) {}")
            .withLimits(policy(language, deadline).limits()));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(loop.outcome()).isEqualTo(Outcome.LIMIT_EXCEEDED);
        assertThat(loop.limit()).hasValue(Limit.WALL_TIME);
        // Stopped, not abandoned: the sandbox abandons a guest the 5 s grace after its deadline.
        assertThat(loop.usage().wallTime()).isLessThan(deadline.plus(GRACE));
        // The old code returned after the 5 s grace and another 5 s waiting for the listener: 12 s.
        assertThat(took.minus(loop.usage().queueTime()).minus(loop.usage().setupTime()))
            .isLessThan(deadline.plus(GRACE).plusSeconds(3));
        assertThat(listener.returned.getCount()).isEqualTo(1);
        assertThat(loop.events()).isNotEmpty();
      } finally {
        listener.release.countDown();
      }
    }
  }

  @Test
  void aFloodAgainstAStuckListener_isDroppedAndCounted_inOrder_andNothingWaits() throws Exception {
    StuckListener listener = new StuckListener();
    int runs = 12; // 1,000 events each (the per-run cap), more than the 10,000 the queue holds
    List<ExecutionResult> results = new ArrayList<>();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder()
        .policy(policy(Language.JAVASCRIPT, Duration.ofMinutes(1))).auditListener(listener).build()) {
      try {
        for (int i = 0; i < runs; i++) {
          results.add(sandbox.run(Language.JAVASCRIPT, "let n = 0; for (let i = 0; i < 1000; i++) {"
              + " try { readText('/flood/" + i + "/' + i); } catch (e) { n++; } } n"));
        }
        assertThat(listener.returned.getCount()).as("every run returned while the listener was stuck").isEqualTo(1);
      } finally {
        listener.release.countDown();
      }
      List<AuditEvent> all = new ArrayList<>();
      for (ExecutionResult r : results) {
        assertThat(r.value()).isEqualTo(1000L);
        all.addAll(r.auditEvents());
      }
      assertThat(all).hasSize(runs * 1000);
      long undelivered = results.stream().mapToLong(ExecutionResult::undeliveredAuditEvents).sum();
      // One event in the stuck listener's hands, 10,000 queued behind it, the rest dropped and counted.
      assertThat(undelivered).isEqualTo(runs * 1000 - 10_001);
      assertThat(sandbox.undeliveredAuditEvents()).isEqualTo(undelivered);
      assertThat(results.get(0).undeliveredAuditEvents()).isZero();
      assertThat(results.get(runs - 1).undeliveredAuditEvents()).isEqualTo(1000);

      List<AuditEvent> delivered = awaitSize(listener.got, 10_001);
      assertThat(delivered).as("what the listener got: the events in the order they happened, up to the bound")
          .isEqualTo(all.subList(0, 10_001));
    }
  }

  @Test
  void eventsOfSeveralRuns_arriveInOrder() throws Exception {
    List<AuditEvent> got = new CopyOnWriteArrayList<>();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder()
        .policy(policy(Language.JAVASCRIPT, Duration.ofMillis(500))).auditListener(got::add).build()) {
      List<AuditEvent> expected = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        // Denials from the guest's thread, then the deadline from the watchdog's.
        ExecutionResult r = sandbox.run(Language.JAVASCRIPT,
            "for (let i = 0; i < 20; i++) { try { readText('/r" + i + "/' + i); } catch (e) {} } while (true) {}");
        assertThat(r.limit()).hasValue(Limit.WALL_TIME);
        expected.addAll(r.auditEvents());
      }
      assertThat(awaitSize(got, expected.size())).isEqualTo(expected);
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aThrowingListener_affectsNoRun(Language language) throws Exception {
    CountDownLatch called = new CountDownLatch(2);
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy(language, Duration.ofMinutes(1)))
        .auditListener(e -> {
          called.countDown();
          throw new IllegalStateException("listener broke at " + e.target());
        }).build()) {
      ExecutionResult a = sandbox.run(language, (language == Language.PYTHON ? DENIAL_PY : DENIAL_JS) + "1");
      ExecutionResult b = sandbox.run(language, (language == Language.PYTHON ? DENIAL_PY : DENIAL_JS) + "2");

      assertThat(a.value()).isEqualTo(1L);
      assertThat(b.value()).isEqualTo(2L);
      assertThat(called.await(30, TimeUnit.SECONDS)).as("the listener kept being called after it threw").isTrue();
      assertThat(b.stdout() + b.stderr()).doesNotContain("listener broke");
    }
  }

  @Test
  void close_withAStuckListener_returnsWithinItsBound() throws Exception {
    StuckListener listener = new StuckListener();
    PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy(Language.JAVASCRIPT, Duration.ofMinutes(1)))
        .auditListener(listener).build();
    try {
      ExecutionResult r = sandbox.run(Language.JAVASCRIPT,
          "for (let i = 0; i < 10; i++) { try { readText('/c/' + i); } catch (e) {} } 0");
      assertThat(r.events()).hasSize(10);
      assertThat(listener.entered.await(30, TimeUnit.SECONDS)).isTrue();

      long start = System.nanoTime();
      sandbox.close();
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(took).as("close waits 5 s for the listener, then gives up").isLessThan(Duration.ofSeconds(20));
      assertThat(sandbox.undeliveredAuditEvents()).as("the 9 still queued").isEqualTo(9);
      assertThat(listener.returned.await(60, TimeUnit.SECONDS)).as("close interrupted the stuck listener").isTrue();
    } finally {
      listener.release.countDown();
      sandbox.close();
    }
  }

  private static <T> List<T> awaitSize(List<T> list, int n) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (list.size() < n && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    return List.copyOf(list);
  }
}
