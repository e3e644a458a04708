package org.polyglotsandbox.benchmarks;

import org.graalvm.polyglot.Context;

/**
 * The raw GraalVM program that {@code benchmarks/startup.sh} times {@code bin/sandbox run} against: one
 * context of the language in {@code args[0]} ({@code js} or {@code python}), evaluating {@code args[1]}
 * (default {@code 6*7}) and printing the value. No sandbox, no policy, no warm-up: the floor that the
 * Polyglot API itself sets for "start a JVM, print a guest's result". With {@code none} it prints
 * {@code 6*7} computed in Java and touches no GraalVM class: the JVM's own share.
 *
 * <pre>
 * benchmarks/startup.sh          # compiles this class with javac and runs it with bin/sandbox's JVM flags
 * </pre>
 */
public final class RawStartup {
  private RawStartup() {}

  public static void main(String[] args) {
    String language = args.length > 0 ? args[0] : "js";
    String code = args.length > 1 ? args[1] : "6*7";
    if (language.equals("none")) {
      System.out.println("value: " + 6 * 7);
      System.out.flush();
      return;
    }
    try (Context context = Context.create(language)) {
      System.out.println("value: " + context.eval(language, code));
      System.out.flush(); // the harness times the printed value, then the exit
    }
  }
}
