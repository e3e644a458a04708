package org.polyglotsandbox;

/** Entry point for {@link FirstProgramRecursionTest}: recursion is the first guest code in this JVM. */
public final class RecursionFirstMain {
  private RecursionFirstMain() {}

  public static void main(String[] args) {
    try (PolyglotSandbox s = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
            .limits(Limits.builder().wallTime(java.time.Duration.ofSeconds(60)).build()).build())
        .build()) {
      report("js-recursion", s.run(Language.JAVASCRIPT, "function f(n) { return f(n + 1) + 1; } f(0)"));
      report("py-recursion", s.run(Language.PYTHON,
          "import sys\nsys.setrecursionlimit(10**7)\ndef f(n): return f(n + 1) + 1\nf(0)"));
      report("js-after", s.run(Language.JAVASCRIPT, "6*7"));
      report("py-after", s.run(Language.PYTHON, "6*7"));
    }
  }

  private static void report(String name, ExecutionResult r) {
    System.out.println(name + " " + r.outcome() + " "
        + (r.isOk() ? String.valueOf(r.value()) : r.errorMessage().orElse("") + r.limit().map(l -> " " + l.id()).orElse("")));
  }
}
