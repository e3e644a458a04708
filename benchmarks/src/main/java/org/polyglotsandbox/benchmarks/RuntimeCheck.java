package org.polyglotsandbox.benchmarks;

import java.lang.management.ManagementFactory;

/**
 * Fails a benchmark trial whose forked JVM lacks the optimizing Truffle runtime. On the fallback
 * runtime guest code is only interpreted and every number would be 15-35x off.
 */
final class RuntimeCheck {
  private RuntimeCheck() {}

  /**
   * Throws unless {@code optimizing}; prints {@code implementationName} (an
   * {@code Engine.getImplementationName()}) so that the JMH log records the runtime of each fork.
   */
  static void require(String what, String implementationName, boolean optimizing) {
    String jvmArgs = ManagementFactory.getRuntimeMXBean().getInputArguments().toString();
    if (!optimizing || "Interpreted".equals(implementationName)) {
      throw new IllegalStateException(what + " runs on the fallback Truffle runtime (\"" + implementationName
          + "\"). Start the JVM with -XX:+UnlockExperimentalVMOptions -XX:+EnableJVMCI"
          + " --upgrade-module-path=<absolute path of benchmarks/target/jit>, as benchmarks/run does."
          + " This fork's JVM arguments: " + jvmArgs);
    }
    System.out.println("# " + what + " Truffle runtime: " + implementationName
        + " (optimizing); JVM arguments: " + jvmArgs);
  }
}
