package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.internal.worker.WallAttacks;

/**
 * The escape probe's family for the operating-system wall: every attack is refused inside a worker's wall,
 * and the same attacks, run in a plain child JVM, get through (so the family can fail).
 */
@Tag("slow")
class EscapeProbeWallTest {
  private static final Policy POLICY = Policy.computeOnly(Language.JAVASCRIPT);

  @Test
  void withProcessIsolation_everyWallAttackIsRefused_andTheProbePasses() {
    EscapeProbe.Report report = EscapeProbe.of(POLICY).isolation(Isolation.process()).run();
    System.out.println(report.wallAttacks().stream().map(Object::toString).collect(Collectors.joining("\n")));
    assertThat(report.wallAttacks()).extracting(EscapeProbe.WallAttack::name)
        .containsExactlyElementsOf(WallAttacks.ATTACKS.keySet());
    assertThat(report.wallAttacks()).allSatisfy(a -> assertThat(a.refused()).as(a.toString()).isTrue());
    assertThat(report.passed()).isTrue();
    assertThat(report.toString()).contains("wallEscapes=0");
  }

  @Test
  void inProcess_theProbeHasNoWallFamily() {
    assertThat(EscapeProbe.of(POLICY).run().wallAttacks()).isEmpty();
  }

  @Test
  void withoutTheWall_theAttacksGetThrough() throws Exception {
    Path canary = Files.createTempFile(Path.of(System.getProperty("user.home")), "canary-", ".txt");
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread.ofPlatform().daemon().start(() -> {
        while (!listener.isClosed()) {
          try (Socket s = listener.accept(); OutputStream out = s.getOutputStream()) {
            out.write('x');
          } catch (IOException e) {
            // closed at the end
          }
        }
      });
      ForkedJvm.Result plain = ForkedJvm.run(WallAttacks.class, "256m", 5, List.of(), List.of(
          "port=" + listener.getLocalPort(), "host=" + ProcessHandle.current().pid(),
          "home=" + System.getProperty("user.home"), "project=" + Path.of("").toAbsolutePath()));
      Map<String, String> verdicts = plain.output().lines().filter(l -> l.startsWith("ATTACK "))
          .collect(Collectors.toMap(l -> l.split(" ")[1], l -> l.split(" ", 3)[2]));
      System.out.println(plain.output());
      boolean root = Files.readAllLines(Path.of("/proc/self/status")).stream()
          .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals("0"));
      boolean addresses = Files.readAllLines(Path.of("/proc/kallsyms")).stream().limit(10)
          .anyMatch(l -> !l.startsWith("0000000000000000"));
      boolean interfaces = Files.readAllLines(Path.of("/proc/net/dev")).stream().skip(2)
          .anyMatch(l -> !l.strip().startsWith("lo:"));
      for (String attack : WallAttacks.ATTACKS.keySet()) {
        boolean needsRoot = List.of("read-shadow", "write-java-home", "write-root", "write-sysctl", "kernel-addresses")
            .contains(attack);
        if ((needsRoot && !root) || (attack.equals("kernel-addresses") && !addresses)
            || (attack.equals("network-interfaces") && !interfaces)) {
          continue; // this host keeps it from the test's own JVM too
        }
        assertThat(verdicts.get(attack)).as(attack).startsWith("ESCAPED");
      }
    } finally {
      Files.deleteIfExists(canary);
    }
  }
}
