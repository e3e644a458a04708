package org.polyglotsandbox.internal.isolation;

import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;

/** Runs a little guest code of each language named in the arguments on a plain GraalVM context, and prints each result. */
public final class PolyglotInWallMain {
  private PolyglotInWallMain() {}

  public static void main(String[] args) {
    try (Engine engine = Engine.create()) {
      System.out.println("RUNTIME " + engine.getImplementationName());
      for (String language : args) {
        try (Context context = Context.newBuilder(language).engine(engine).build()) {
          String code = language.equals("js") ? "let s = 0; for (let i = 0; i < 3e6; i++) { s += i % 7; } s"
              : "s = 0\nfor i in range(300000):\n    s += i % 7\ns";
          System.out.println("RESULT " + language + " " + context.eval(language, code));
        }
      }
    }
  }
}
