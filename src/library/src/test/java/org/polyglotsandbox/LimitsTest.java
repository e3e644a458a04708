package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The statement cap and the wall-clock deadline stop runaway guests, also ones that catch what is
 * thrown at them, and the sandbox keeps serving afterwards.
 *
 * <p>GraalPy counts a statement when execution moves to another line, so a loop written on one line
 * ({@code while True: pass}) is invisible to the statement cap; the deadline stops it (tested below).
 *
 * <p>Only the runs that must meet the deadline get it (as their own limits): the sandbox's policy gives
 * a minute, so that the runs that must answer (the next run, the output flood) meet it on a loaded
 * machine. A deadline must end its run before the grace after which the sandbox abandons a guest that
 * ignored its stop (cancellation measures 30-50 ms on an idle machine); a run ending later was not
 * stopped but abandoned.
 */
class LimitsTest {
  private static final Duration DEADLINE = Duration.ofMillis(1500);
  /** The grace the sandbox gives a stopped guest before it abandons it. */
  private static final Duration GRACE = Duration.ofSeconds(5);
  private static final Limits DEADLINED = Limits.builder().wallTime(Duration.ofSeconds(60))
      .maxStatements(Long.MAX_VALUE).maxOutputBytes(1000).build();
  private static PolyglotSandbox statementCapped;
  private static PolyglotSandbox deadlined;

  @BeforeAll
  static void build() {
    statementCapped = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON)
        .toBuilder().limits(Limits.builder().maxStatements(200_000).wallTime(Duration.ofSeconds(60)).build())
        .build()).build();
    deadlined = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON)
        .toBuilder().limits(DEADLINED).build()).build();
  }

  /** Runs {@code code} on {@link #deadlined} with the {@link #DEADLINE} as its own wall-clock limit. */
  private static ExecutionResult runToDeadline(Language language, String code) {
    return deadlined.run(Script.of(language, code).withLimits(DEADLINED.toBuilder().wallTime(DEADLINE).build()));
  }

  @AfterAll
  static void close() {
    statementCapped.close();
    deadlined.close();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void infiniteLoop_isStoppedByStatementLimit(Language language) {
    ExecutionResult r = statementCapped.run(language, GuestCode.of(language, "while (true) {}", "while True:\n    pass"));
    assertThatRun(r).wasStoppedBy(Limit.STATEMENTS).leaksNoHostDetail();
    assertThat(r.usage().statements()).hasValue(200_000);
    assertThat(r.errorMessage()).get().asString().contains("200000 statements");
    assertThatRun(statementCapped.run(language, "6*7")).as("next run on the same sandbox").hasValue(42L);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void loopThatCatchesEverything_isStoppedByStatementLimit(Language language) {
    ExecutionResult r = statementCapped.run(language, GuestCode.of(language,
        "for (;;) { try { while (true) {} } catch (e) { continue; } finally { } }",
        "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        continue\n"
            + "    finally:\n        pass"));
    assertThatRun(r).wasStoppedBy(Limit.STATEMENTS);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void loopOnOneLine_isStoppedByStatementLimitOrDeadline(Language language) {
    String code = GuestCode.of(language, "while(true){}", "while True: pass");
    ExecutionResult r = language == Language.JAVASCRIPT ? statementCapped.run(language, code)
        : runToDeadline(language, code);
    // JavaScript counts every iteration; GraalPy counts line changes only, so the deadline must act.
    assertThatRun(r).wasStoppedBy(language == Language.JAVASCRIPT ? Limit.STATEMENTS : Limit.WALL_TIME);
    assertThat(r.usage().wallTime()).isLessThan(DEADLINE.plus(GRACE));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void infiniteLoop_isStoppedByWallDeadline(Language language) {
    ExecutionResult r = runToDeadline(language, GuestCode.of(language,
        "try { while (true) {} } catch (e) { while (true) {} } finally { while (true) {} }",
        "try:\n    while True: pass\nexcept BaseException:\n    while True: pass\nfinally:\n    while True: pass"));
    assertThatRun(r).wasStoppedBy(Limit.WALL_TIME).leaksNoHostDetail();
    assertThat(r.usage().wallTime()).isGreaterThanOrEqualTo(DEADLINE).isLessThan(DEADLINE.plus(GRACE));
    assertThatRun(deadlined.run(language, "6*7")).hasValue(42L);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void blockingWait_isStoppedByWallDeadlineOrRefused(Language language) {
    ExecutionResult r = runToDeadline(language, GuestCode.of(language,
        "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)",
        "import time\ntime.sleep(3600)"));
    if (language == Language.PYTHON) {
      assertThatRun(r).wasStoppedBy(Limit.WALL_TIME);
      assertThat(r.usage().wallTime()).isLessThan(DEADLINE.plus(GRACE));
    } else {
      // GraalJS refuses to block the main thread at all.
      assertThatRun(r).hasOutcome(Outcome.GUEST_ERROR);
      assertThat(r.errorMessage()).get().asString().startsWith("TypeError");
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void outputFlood_isStoppedByOutputLimit_andKeepsTheFirstBytes(Language language) {
    ExecutionResult r = deadlined.run(language, GuestCode.of(language,
        "for (;;) console.log('flood')", "while True: print('flood')"));
    assertThatRun(r).wasStoppedBy(Limit.OUTPUT);
    assertThat(r.stdout()).startsWith("flood\nflood\n").hasSizeLessThanOrEqualTo(1000);
    assertThat(r.usage().outputBytes()).isGreaterThan(1000);
  }
}
