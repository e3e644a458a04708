package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Checks on the sandbox's run threads, shared by the tests of builtins that must not outrun a run. */
public final class RunThreads {
  private RunThreads() {}

  /**
   * Asserts that every run thread made since {@code before} returned from the guest within {@code within}
   * (it waits for the next run), which an abandoned one does not.
   */
  public static void assertStopped(Set<Thread> before, Duration within, String code) throws InterruptedException {
    List<Thread> runThreads = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> !before.contains(t) && t.getName().startsWith("polyglot-sandbox-run"))
        .toList();
    long deadline = System.nanoTime() + within.toNanos();
    List<Thread> busy = runThreads;
    while (!busy.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
      busy = runThreads.stream().filter(t -> t.isAlive() && t.getState() == Thread.State.RUNNABLE).toList();
    }
    assertThat(busy).as("run threads still running after the result of %s", code)
        .extracting(t -> t.getName() + " " + Stream.of(t.getStackTrace()).limit(6).map(String::valueOf)
            .collect(Collectors.joining(" <- ")))
        .isEmpty();
  }
}
