package org.polyglotsandbox.benchmarks;

import org.polyglotsandbox.Language;

/**
 * The three benchmark tasks, one text per language that every design runs unchanged, each with the
 * answer every invocation is checked against.
 *
 * <p>The JavaScript texts are the subset that GraalJS, Nashorn 15.7 ({@code --language=es6}) and Rhino
 * 1.8.1 ({@code VERSION_ES6}) all accept: Rhino rejects {@code for (const row of rows)}, so task B's
 * second loop declares {@code let row}. Task C is the text of {@link WatchdogOverheadBenchmark#COMPUTE}.
 */
public enum PeerTask {
  /** The smallest program: a design's fixed cost per task. */
  A("6*7", "6*7", 42),

  /** Builds 100 rows of {id, price, qty} and returns the total of price * qty. */
  B("""
      const rows = [];
      for (let i = 0; i < 100; i++) {
        rows.push({ id: i, price: (i % 7) + 1, qty: (i % 5) + 1 });
      }
      let total = 0;
      for (let row of rows) {
        total += row.price * row.qty;
      }
      total;
      """, """
      rows = [{'id': i, 'price': i % 7 + 1, 'qty': i % 5 + 1} for i in range(100)]
      total = 0
      for row in rows:
          total += row['price'] * row['qty']
      total
      """, SandboxRunBenchmark.orderTotal(100)),

  /**
   * The sum of {@code (i*i) % 7} for {@code i < 1e6}. In JavaScript {@code i*i} leaves the int range
   * from {@code i = 46341}, so 95% of the remainders are floating-point ({@code double %}).
   */
  C(WatchdogOverheadBenchmark.COMPUTE, """
      s = 0
      for i in range(1000000):
          s += (i * i) % 7
      s
      """, sumOfSquaresMod7(1_000_000));

  private final String javaScript;
  private final String python;
  /** The value every design must return (as a number, string or boxed integer; see {@link Answers#asLong}). */
  public final long expected;

  PeerTask(String javaScript, String python, long expected) {
    this.javaScript = javaScript;
    this.python = python;
    this.expected = expected;
  }

  /** This task's text in {@code language}. */
  public String code(Language language) {
    return language == Language.JAVASCRIPT ? javaScript : python;
  }

  static long sumOfSquaresMod7(long n) {
    long s = 0;
    for (long i = 0; i < n; i++) {
      s += (i * i) % 7;
    }
    return s;
  }

  /**
   * Whether each invocation runs the same text or a text no design has seen before. Generated code is
   * almost never repeated, and caches keyed by the text (GraalVM's source cache, Nashorn's class cache)
   * help only {@link #SAME}.
   */
  public enum SourceMode {
    /** The task's text, unchanged, every time. */
    SAME,
    /** The task's text followed by a line comment with a number never used before in this JVM. */
    UNIQUE;

    /** The text of invocation {@code n}; a comment does not change the program's value. */
    public String text(String code, Language language, long n) {
      if (this == SAME) {
        return code;
      }
      return code + (language == Language.JAVASCRIPT ? "\n// task " : "\n# task ") + n + "\n";
    }
  }
}
