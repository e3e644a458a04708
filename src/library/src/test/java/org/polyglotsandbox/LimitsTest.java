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
 * ({@code while True: pass}) is invisible to the statement cap; the deadline stops it (tested below). Margins: a deadline must end the run within
 * its limit plus 3 s (cancellation measures 30-50 ms on an idle machine; the rest is slack for 2 busy
 * cores).
 */
class LimitsTest {
  private static final Duration DEADLINE = Duration.ofMillis(1500);
  private static final Duration MARGIN = Duration.ofSeconds(3);
  private static PolyglotSandbox statementCapped;
  private static PolyglotSandbox deadlined;

  @BeforeAll
  static void build() {
    statementCapped = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON)
        .toBuilder().limits(Limits.builder().maxStatements(200_000).wallTime(Duration.ofSeconds(60)).build())
        .build()).build();
    deadlined = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON)
        .toBuilder().limits(Limits.builder().wallTime(DEADLINE).maxStatements(Long.MAX_VALUE).maxOutputBytes(1000).build())
        .build()).build();
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
    PolyglotSandbox sandbox = language == Language.JAVASCRIPT ? statementCapped : deadlined;
    ExecutionResult r = sandbox.run(language, GuestCode.of(language, "while(true){}", "while True: pass"));
    // JavaScript counts every iteration; GraalPy counts line changes only, so the deadline must act.
    assertThatRun(r).wasStoppedBy(language == Language.JAVASCRIPT ? Limit.STATEMENTS : Limit.WALL_TIME);
    assertThat(r.usage().wallTime()).isLessThan(DEADLINE.plus(MARGIN));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void infiniteLoop_isStoppedByWallDeadline(Language language) {
    ExecutionResult r = deadlined.run(language, GuestCode.of(language,
        "try { while (true) {} } catch (e) { while (true) {} } finally { while (true) {} }",
        "try:\n    while True: pass\nexcept BaseException:\n    while True: pass\nfinally:\n    while True: pass"));
    assertThatRun(r).wasStoppedBy(Limit.WALL_TIME).leaksNoHostDetail();
    assertThat(r.usage().wallTime()).isBetween(DEADLINE, DEADLINE.plus(MARGIN));
    assertThatRun(deadlined.run(language, "6*7")).hasValue(42L);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void blockingWait_isStoppedByWallDeadlineOrRefused(Language language) {
    ExecutionResult r = deadlined.run(language, GuestCode.of(language,
        "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)",
        "import time\ntime.sleep(3600)"));
    if (language == Language.PYTHON) {
      assertThatRun(r).wasStoppedBy(Limit.WALL_TIME);
      assertThat(r.usage().wallTime()).isLessThan(DEADLINE.plus(MARGIN));
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
