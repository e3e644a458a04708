package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A host signal always reaches the host's own handlers. A forked JVM runs Python
 * guests that install handlers for SIGTERM, SIGINT, SIGHUP, SIGUSR1 and SIGUSR2 and try to arm timers;
 * then, while such a guest is still running or after the guests ended, the test sends it a signal with
 * {@code kill -s}. It must behave exactly like a control JVM that ran no guest: SIGTERM, SIGINT and
 * SIGHUP end it with their status and its shutdown hook runs; a SIGTERM must never run the guest's
 * handler and leave the JVM going.
 */
@Tag("slow")
class HostSignalsForkedTest {
  @ParameterizedTest(name = "{0} {1} guest runs")
  @CsvSource({"TERM, during", "TERM, after", "INT, during", "HUP, after", "USR1, during", "USR2, after"})
  void aHostSignal_doesWhatItDoesWithoutAnyGuest(String signal, String phase) throws Exception {
    // The two JVMs run side by side: the control starts in a second and waits beside the guests.
    ForkedJvm.Running controlJvm = ForkedJvm.start(HostSignalsMain.class, "384m", "control");
    ForkedJvm.Running guestJvm = ForkedJvm.start(HostSignalsMain.class, "384m", phase);
    try {
      String control = outcome(controlJvm, "control", signal);
      String guest = outcome(guestJvm, phase, signal);
      assertThat(guest).as("with guests %s; without: %s", phase, control).isEqualTo(control);
      // Without a guest TERM, INT and HUP end the JVM through its shutdown hooks (128 + the signal's number).
      // Said outright, so that a control that ignores the signal (an inherited SIG_IGN) fails the test
      // instead of agreeing with a guest JVM that ignores it too. USR1 and USR2: whatever the control did.
      String expected = switch (signal) {
        case "TERM" -> "exit 143, shutdown hook ran";
        case "INT" -> "exit 130, shutdown hook ran";
        case "HUP" -> "exit 129, shutdown hook ran";
        default -> null;
      };
      if (expected != null) {
        assertThat(control).as("the control JVM (no guest) after SIG%s", signal).isEqualTo(expected);
      }
    } finally {
      for (ForkedJvm.Running jvm : new ForkedJvm.Running[] {controlJvm, guestJvm}) {
        jvm.process().destroyForcibly();
        Files.deleteIfExists(jvm.log());
      }
    }
  }

  /** Sends {@code signal} to the forked JVM in {@code mode} once it is ready, and describes what followed. */
  private static String outcome(ForkedJvm.Running jvm, String mode, String signal)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
    while (!jvm.output().contains("READY")) {
      assertThat(jvm.process().isAlive()).as("the forked JVM (%s) died before it was ready:%n%s", mode, jvm.output())
          .isTrue();
      assertThat(System.nanoTime()).as("the forked JVM (%s) is not ready:%n%s", mode, jvm.output()).isLessThan(deadline);
      Thread.sleep(100);
    }
    Process kill = new ProcessBuilder("kill", "-s", signal, String.valueOf(jvm.process().pid())).inheritIO().start();
    assertThat(kill.waitFor()).isZero();
    if (!jvm.process().waitFor(2, TimeUnit.MINUTES)) {
      jvm.process().destroyForcibly().waitFor();
      return "hung:\n" + jvm.output();
    }
    String out = jvm.output();
    if (mode.equals("during") || mode.equals("after")) {
      assertThat(out).as("the guests ran and were denied their timers").contains("RUN OK []")
          .doesNotContain("Unhandled signal").doesNotContain("Exception in thread");
    }
    return out.contains("ALIVE") ? "kept running, exit " + jvm.process().exitValue()
        : "exit " + jvm.process().exitValue() + (out.contains("HOOK") ? ", shutdown hook ran" : ", no shutdown hook");
  }
}
