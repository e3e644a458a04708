package org.polyglotsandbox;

import org.polyglotsandbox.PolyglotSandbox.Isolation;

/**
 * Builds a sandbox with process isolation in a JVM whose GraalPy cache is empty, runs one Python program,
 * and prints its outcome and value: {@code result: OK 3}.
 */
public final class ProcessFreshCacheMain {
  private ProcessFreshCacheMain() {}

  public static void main(String[] args) {
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.PYTHON))
        .isolation(Isolation.processBuilder().workers(1).spareWorkers(0).build()).build()) {
      ExecutionResult r = sandbox.run(Language.PYTHON, "import json\nlen(json.dumps([1]))");
      System.out.println("wall: " + sandbox.isolationInForce());
      System.out.println("result: " + r.outcome() + " " + r.value());
    }
  }
}
