package org.polyglotsandbox.benchmarks;

import java.math.BigDecimal;

/** Checks that a design computed the right answer: once before measuring, and on every invocation. */
final class Answers {
  private Answers() {}

  /** Throws unless {@code actual} is the integer {@code expected}, as a {@link Long}. */
  static void check(Design design, String task, Object actual, long expected) {
    if (!(actual instanceof Long value) || value != expected) {
      throw new IllegalStateException(design + " returned " + actual
          + (actual == null ? "" : " (" + actual.getClass().getSimpleName() + ")") + " for " + task
          + ", expected " + expected);
    }
    System.out.println("# " + design + " " + task + " = " + actual + " (checked)");
  }

  /**
   * Returns {@code actual} if it denotes the integer {@code expected}, and throws otherwise. Peers return
   * their own types for the same number: {@code Integer 42}, {@code Double 1175.0}, {@code Long}, or
   * the string LangChain4j's design makes of it; any of them is right if its value is exactly
   * {@code expected}.
   *
   * @throws IllegalStateException naming the design, the task and the value on a wrong answer
   */
  static Object require(Object design, Object task, Object actual, long expected) {
    Long value = asLong(actual);
    if (value == null || value != expected) {
      throw new IllegalStateException(design + " returned " + actual
          + (actual == null ? "" : " (" + actual.getClass().getSimpleName() + ")") + " for task " + task
          + ", expected " + expected);
    }
    return actual;
  }

  /** The integer a peer's result denotes, or null if it is not an integral number. */
  static Long asLong(Object actual) {
    try {
      BigDecimal d = switch (actual) {
        case Long l -> BigDecimal.valueOf(l);
        case Integer i -> BigDecimal.valueOf(i);
        case Double x when Double.isFinite(x) -> BigDecimal.valueOf(x);
        case Number n -> new BigDecimal(n.toString());
        case CharSequence s -> new BigDecimal(s.toString().trim());
        case null, default -> null;
      };
      return d == null ? null : d.longValueExact();
    } catch (ArithmeticException | NumberFormatException e) {
      return null;
    }
  }
}
