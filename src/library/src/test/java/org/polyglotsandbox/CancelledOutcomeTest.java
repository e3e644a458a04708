package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A run the host ends (closing the sandbox, interrupting the caller) is
 * {@link Outcome#CANCELLED}, not {@code INTERNAL_ERROR}; nothing is logged as an error, and the events
 * the guest caused before are kept.
 */
class CancelledOutcomeTest {
  /** Denies a file read (an event to keep), then loops until the host gives up on it. */
  private static final String JS = "try { readText('/etc/passwd') } catch (e) {}\nwhile (true) {}";
  private static final String PY = "try:\n    open('/etc/passwd')\nexcept Exception:\n    pass\nwhile True:\n    x = 1";

  private final List<LogRecord> errors = new CopyOnWriteArrayList<>();
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord r) {
      if (r.getLevel().intValue() >= Level.SEVERE.intValue()) {
        errors.add(r);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final Logger log = Logger.getLogger("org.polyglotsandbox");

  @BeforeEach
  void listen() {
    log.addHandler(handler);
  }

  @AfterEach
  void stopListening() {
    log.removeHandler(handler);
  }

  /** Counted down when a run's denial reaches the audit listener: the guest is then in its loop. */
  private final CountDownLatch denied = new CountDownLatch(1);

  private PolyglotSandbox sandbox(Language language) {
    return PolyglotSandbox.builder().policy(Policy.computeOnly(language).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofMinutes(1)).maxCpuTime(Duration.ofMinutes(1))
            .maxStatements(Long.MAX_VALUE).build()).build())
        .auditListener(e -> denied.countDown()).build();
  }

  private static String code(Language language) {
    return language == Language.JAVASCRIPT ? JS : PY;
  }

  private static void assertCancelledWithItsEvents(ExecutionResult r) {
    assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.CANCELLED);
    assertThat(r.errorMessage()).hasValueSatisfying(m -> assertThat(m).startsWith("run cancelled"));
    assertThat(r.events()).filteredOn(SandboxEvent.DeniedOperation.class::isInstance).isNotEmpty();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void closingTheSandbox_cancelsItsRuns(Language language) throws Exception {
    PolyglotSandbox sandbox = sandbox(language);
    CompletableFuture<ExecutionResult> f = sandbox.runAsync(language, code(language));
    awaitDenial(sandbox, f);
    sandbox.close();

    assertCancelledWithItsEvents(f.get(30, TimeUnit.SECONDS));
    assertThat(errors).extracting(LogRecord::getMessage).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void interruptingTheCaller_cancelsItsRun_andKeepsTheInterrupt(Language language) throws Exception {
    try (PolyglotSandbox sandbox = sandbox(language)) {
      AtomicReference<ExecutionResult> result = new AtomicReference<>();
      AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
      Thread caller = new Thread(() -> {
        result.set(sandbox.run(language, code(language)));
        stillInterrupted.set(Thread.currentThread().isInterrupted());
      });
      caller.start();
      assertThat(denied.await(60, TimeUnit.SECONDS)).as("the loop is running").isTrue();
      caller.interrupt();
      caller.join(TimeUnit.SECONDS.toMillis(30));

      assertThat(caller.isAlive()).isFalse();
      assertThat(result.get().outcome()).as("%s", result.get()).isEqualTo(Outcome.CANCELLED);
      assertThat(stillInterrupted.get()).isTrue();
      assertThat(errors).extracting(LogRecord::getMessage).isEmpty();
    }
  }

  /** Waits until the run is past its denial and in its loop (a fresh Python context takes seconds when busy). */
  private void awaitDenial(PolyglotSandbox sandbox, CompletableFuture<ExecutionResult> f)
      throws InterruptedException {
    assertThat(denied.await(60, TimeUnit.SECONDS)).as("the guest reached its denial").isTrue();
    assertThat(f).isNotDone();
  }
}
