package org.polyglotsandbox;

import java.time.Duration;

/**
 * Entry point for {@link SingleRunTest}: the program in {@code args[1]} ({@code args[0]} is js or
 * python) is the first guest code in this JVM, run by a {@link PolyglotSandbox.Builder#singleRun()}
 * sandbox, which runs no warm-up before it.
 */
public final class SingleRunFirstMain {
  private SingleRunFirstMain() {}

  public static void main(String[] args) {
    Language language = Language.fromId(args[0]);
    try (PolyglotSandbox s = PolyglotSandbox.builder().singleRun()
        .policy(Policy.computeOnly(language).toBuilder()
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxAllocatedBytes(64L << 20).build()).build())
        .build()) {
      ExecutionResult r = s.run(language, args[1]);
      System.out.println("first " + r.outcome() + " "
          + (r.isOk() ? String.valueOf(r.value()) : r.errorMessage().orElse("") + r.limit().map(l -> " " + l.id()).orElse("")));
    }
  }
}
