package org.polyglotsandbox.benchmarks;

/** Checks, before anything is measured, that a design computes the right answer. */
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
}
