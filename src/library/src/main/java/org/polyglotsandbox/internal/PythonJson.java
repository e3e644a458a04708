package org.polyglotsandbox.internal;

/**
 * How the sandbox's own Python code reads the JSON the host hands it (inputs, tool answers): with the
 * scanner of GraalPy's built-in {@code _json} module (written in Java), given a settings object of its
 * own, instead of the {@code json} package. Importing {@code json} (and {@code re} behind it) parses and
 * interprets those modules afresh in every context: 600-800 ms of a fresh context's set-up on a warm
 * JVM, 2.4 s on a cold one, against about 10 ms for this (measured 2026-12-02, RESULTS.md).
 */
public final class PythonJson {
  /**
   * A Python expression whose value is a scanner: {@code scan(text, index)} returns the value that
   * starts at {@code index} and the index after it, and raises {@code StopIteration} where no JSON value
   * starts. Strict JSON only: {@code NaN} and {@code Infinity} (which the host never writes) fail. To be
   * evaluated before any guest code, since it looks up {@code __import__}, {@code type}, {@code int} and
   * {@code float}.
   */
  public static final String SCANNER = "__import__('_json').make_scanner(type('JsonSettings', (), {"
      + "'strict': True, 'object_hook': None, 'object_pairs_hook': None, 'parse_float': float,"
      + " 'parse_int': int, 'parse_constant': None, 'memo': {}})())";

  private PythonJson() {}
}
