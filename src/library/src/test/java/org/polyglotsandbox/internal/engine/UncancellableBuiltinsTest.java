package org.polyglotsandbox.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.RunThreads;

/**
 * Builtins that compute for seconds or minutes in one Java call, which no cancellation interrupts, get
 * their input bounded before they start ({@link BuiltinBounds}). Each is attacked with an input that held
 * a stopped run's thread far past its cap (and got it abandoned): the run must end at once with the
 * language's own error naming the value and the bound, and its thread must be back, not abandoned.
 */
@Tag("slow")
class UncancellableBuiltinsTest {
  /**
   * Enough for a machine at load 6 on two cores to reach the call (the JavaScript normalize attack builds
   * 256 MiB first: 2 s of wall time was not enough there). The refusal's message is what each test checks,
   * so an unbounded builtin fails the test whether it ends within the cap or not.
   */
  private static final Duration CAP = Duration.ofSeconds(10);
  /** What a returned run thread may take to be seen waiting: far more than a real return. */
  private static final Duration STOPPED_WITHIN = Duration.ofSeconds(20);

  private PolyglotSandbox sandbox;
  private final List<String> abandoned = new CopyOnWriteArrayList<>();
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord r) {
      if (r.getMessage() != null && r.getMessage().contains("abandoned")) {
        abandoned.add(r.getMessage());
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final Logger log = Logger.getLogger("org.polyglotsandbox");
  private Set<Thread> before;

  @BeforeEach
  void build() {
    before = Thread.getAllStackTraces().keySet();
    log.addHandler(handler);
    sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
            .limits(Limits.builder().wallTime(CAP).maxCpuTime(Duration.ofMinutes(5)).maxStatements(Long.MAX_VALUE)
                .build())
            .build())
        .pythonImports("decimal") // imported where the cap does not run: the attack starts at once
        .build();
  }

  @AfterEach
  void close() {
    sandbox.close();
    log.removeHandler(handler);
  }

  @Test
  void padEndToAHugeLength_isRefusedBeforeItStarts() throws InterruptedException {
    assertRefused(Language.JAVASCRIPT, "'\\u1234'.padEnd(2 ** 29, '\\u1234')",
        "RangeError: String.prototype.padEnd: length 536870912", "maximum of " + BuiltinBounds.MAX_PAD_LENGTH);
  }

  @Test
  void padStartToAHugeLength_isRefusedBeforeItStarts() throws InterruptedException {
    assertRefused(Language.JAVASCRIPT, "'\\u1234'.padStart(2 ** 29, 'ab\\u1234')",
        "RangeError: String.prototype.padStart: length 536870912", "maximum of " + BuiltinBounds.MAX_PAD_LENGTH);
  }

  @Test
  void normalizeOfAHugeString_isRefusedBeforeItStarts() throws InterruptedException {
    assertRefused(Language.JAVASCRIPT, "'\\u1E9B\\u0323'.repeat(2 ** 26).normalize('NFKD')",
        "RangeError: String.prototype.normalize: a string of 134217728 characters",
        "maximum of " + BuiltinBounds.MAX_NORMALIZE_LENGTH);
  }

  @Test
  void factorialOfAHugeNumber_isRefusedBeforeItStarts() throws InterruptedException {
    assertRefused(Language.PYTHON, "import math\nmath.factorial(10**7)",
        "OverflowError: factorial() argument 10000000", "maximum of " + BuiltinBounds.MAX_FACTORIAL_ARGUMENT);
  }

  @Test
  void combOfHugeNumbers_isRefusedBeforeItStarts() throws InterruptedException {
    assertRefused(Language.PYTHON, "import math\nmath.comb(10**7, 5 * 10**6)",
        "OverflowError: comb(10000000, 5000000)", "at most " + BuiltinBounds.MAX_COMBINATORIAL_WORK);
  }

  @Test
  void permOfHugeNumbers_isRefusedBeforeItStarts() throws InterruptedException {
    assertRefused(Language.PYTHON, "import math\nmath.perm(10**7, 5 * 10**6)",
        "OverflowError: perm(10000000, 5000000)", "at most " + BuiltinBounds.MAX_COMBINATORIAL_WORK);
  }

  @Test
  void permOfAHugeNumberWithoutK_isRefusedLikeFactorial() throws InterruptedException {
    assertRefused(Language.PYTHON, "import math\nmath.perm(10**7)",
        "OverflowError: perm() argument 10000000", "maximum of " + BuiltinBounds.MAX_FACTORIAL_ARGUMENT);
  }

  @Test
  void liftingTheIntToStrDigitLimit_isRefused_soAHugeIntIsNeverFormatted() throws InterruptedException {
    assertRefused(Language.PYTHON, "import sys\nsys.set_int_max_str_digits(0)\nstr(1 << (3 * 10**7))",
        "ValueError: sys.set_int_max_str_digits: 0 (no limit) is not allowed",
        "the most is " + BuiltinBounds.MAX_INT_STR_DIGITS + " digits");
  }

  @Test
  void raisingTheIntToStrDigitLimitAboveTheMaximum_isRefused() throws InterruptedException {
    assertRefused(Language.PYTHON, "import sys\nsys.set_int_max_str_digits(10**8)\nstr(1 << (3 * 10**7))",
        "ValueError: sys.set_int_max_str_digits: 100000000", "maximum of " + BuiltinBounds.MAX_INT_STR_DIGITS);
  }

  @Test
  void decimalAtAHugePrecision_isRefusedBeforeItStarts() throws InterruptedException {
    assertRefused(Language.PYTHON,
        "import decimal\ndecimal.getcontext().prec = 10**8\ndecimal.Decimal(1) / decimal.Decimal(7)",
        "ValueError: decimal: precision 100000000", "maximum of " + BuiltinBounds.MAX_DECIMAL_PRECISION);
  }

  @Test
  void decimalContextMadeAtAHugePrecision_isRefusedBeforeItStarts() throws InterruptedException {
    assertRefused(Language.PYTHON,
        "import decimal\nwith decimal.localcontext(prec=10**8):\n    decimal.Decimal(1) / decimal.Decimal(7)",
        "ValueError: decimal: precision 100000000", "maximum of " + BuiltinBounds.MAX_DECIMAL_PRECISION);
  }

  private void assertRefused(Language language, String code, String... named) throws InterruptedException {
    ExecutionResult r = sandbox.run(language, code);
    assertThatRun(r).hasOutcome(Outcome.GUEST_ERROR).leaksNoHostDetail();
    assertThat(r.errorMessage()).as("%s", r).hasValueSatisfying(m -> assertThat(m).contains(named));
    assertThat(abandoned).as("abandoned threads").isEmpty();
    RunThreads.assertStopped(before, STOPPED_WITHIN, code);
  }
}
