package org.polyglotsandbox;

/** Prints the runtime a sandbox gets in this JVM and a JavaScript run's value (OptimizingRuntimeFlagsTest). */
public final class RuntimeNameMain {
  private RuntimeNameMain() {}

  public static void main(String[] args) {
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT))
        .singleRun().build()) {
      System.out.println("RUNTIME " + sandbox.runtimeName() + " | " + sandbox.isOptimizingRuntime());
      System.out.println("VALUE " + sandbox.run(Language.JAVASCRIPT, "6 * 7").value());
    }
  }
}
