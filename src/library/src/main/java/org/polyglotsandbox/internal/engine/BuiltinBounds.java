package org.polyglotsandbox.internal.engine;

/**
 * The sandbox's fixed bounds on builtins that could run for seconds or minutes in one Java call. A stopped
 * run stops at its thread's next safepoint poll, and these builtins poll none while they work: past the
 * run's cap they kept its thread busy (and the caller waiting for the abandon) for as long as they took.
 * Where the engine cannot stop a builtin, its input is bounded before it starts; each bound is set where
 * the builtin is replaced ({@link JavaScriptBuiltinBounds} for JavaScript, {@link ProcessShield} for
 * Python), checked in the host where the guest could otherwise reach the original, and refused with the
 * language's own error naming the value and the bound. Inputs below a bound behave exactly as before.
 *
 * <p>The figures beside each bound are rough sizes, measured with GraalVM 25.0.3 on a shared two-core
 * machine under load: what the builtin took at the bound, and how long past a 2 s cap the unbounded
 * attack kept the stopped run's thread busy.
 *
 * <p>What no bound here reaches, measured as still running past the cap: operators and implicit
 * conversions, which no replaced function sees (GraalJS's BigInt arithmetic and BigInt-string
 * conversions: {@code a * b}, {@code 10n ** n}, {@code String(big)}, {@code 1n < '9...'}; GraalPy's int
 * arithmetic: {@code 10**10**8}, {@code a * b}, and so {@code pow()} too, which bounding alone would not
 * help); GraalPy's {@code '%d'} and {@code format()} of ints, which skip {@code int_max_str_digits}, and
 * its quadratic parsing of power-of-two bases ({@code int(s, 16)}); GraalPy's builtins that consume an
 * iterator in Java ({@code max(range(10**12))}, {@code list(itertools.product(...))}), a loop shared by
 * dozens of builtins and types; and linear string methods over hundreds of millions of characters
 * ({@code split('')} into 2^27 pieces: 30 s; {@code replaceAll} over 2^28 characters: 8 s), where a bound
 * would refuse ordinary large inputs.
 */
final class BuiltinBounds {
  private BuiltinBounds() {}

  /**
   * The longest string {@code String.prototype.padStart} and {@code padEnd} may make: 4,194,304
   * characters (at most about 0.2 s). Longer ones throw {@code RangeError}. GraalJS took up to 46 ns a
   * character (a two-byte filler): padding to its string limit (2^30 characters) kept a stopped run's
   * thread busy for more than 20 s.
   */
  static final int MAX_PAD_LENGTH = 1 << 22;

  /**
   * The longest string {@code String.prototype.normalize} may be called on: 16,777,216 characters. A
   * longer one throws {@code RangeError}. Normalizing takes up to about 12 ns a character (0.2 s at
   * the bound); 2^28 characters kept a stopped run's thread busy for about 7 s.
   */
  static final int MAX_NORMALIZE_LENGTH = 1 << 24;

  /**
   * The most digits {@code sys.set_int_max_str_digits} may allow, and what {@code 0} ("no limit") is
   * refused as: 100,000. GraalPy's default, 4,300, stays. Java parses a decimal string into an int in
   * quadratic time (10^6 digits: 25 s) and formats one in 1.3 s; at this bound both take at most about
   * 0.4 s. {@code str()} of a 9-million-digit int kept a stopped run's thread busy for about 15 s.
   */
  static final int MAX_INT_STR_DIGITS = 100_000;

  /**
   * The largest argument of {@code math.factorial} (and of {@code math.perm(n)} without {@code k}):
   * 100,000, whose factorial has 456,574 digits and takes about 70 ms (0.5 s before the JIT has compiled
   * {@code BigInteger}). {@code factorial(10**7)} kept a stopped run's thread busy for minutes. Larger
   * ones raise {@code OverflowError}.
   */
  static final int MAX_FACTORIAL_ARGUMENT = 100_000;

  /**
   * The most work {@code math.comb(n, k)} and {@code math.perm(n, k)} may do, as factors^2 times the bit
   * length of {@code n}, where the factors are {@code min(k, n - k)} for comb and {@code k} for perm:
   * 4,000,000,000, about 0.1-0.2 s. GraalPy multiplies the factors one after another into a growing
   * result (comb divides after each), so the work grows with their square: {@code comb(10**7, 5 * 10**6)}
   * kept a stopped run's thread busy for minutes. Calls above it raise {@code OverflowError}.
   */
  static final long MAX_COMBINATORIAL_WORK = 4_000_000_000L;

  /**
   * The highest precision a {@code decimal} context may have: 100,000 digits, also what
   * {@code decimal.MAX_PREC} says. A higher one raises {@code ValueError}. GraalPy's {@code decimal} is
   * the pure-Python one, whose arithmetic at precision p makes ints of p digits: at 10^8,
   * {@code Decimal(1) / Decimal(7)} kept a stopped run's thread busy for about a minute. The bound is in the
   * module's {@code Context} (guest code like any other), so it guards a program from its own mistake;
   * a guest that sets the attribute past the class's checks reaches GraalPy's int arithmetic, which
   * nothing here bounds.
   */
  static final int MAX_DECIMAL_PRECISION = 100_000;
}
