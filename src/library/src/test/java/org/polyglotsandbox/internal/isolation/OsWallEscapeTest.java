package org.polyglotsandbox.internal.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The wall attacked from inside: {@link EscapeAttemptsMain} runs host Java code as if GraalVM's wall had
 * fallen, once in a plain child JVM (where each attack must succeed, or the test could not fail) and once
 * inside the wall (where each must be refused).
 */
@Tag("slow")
class OsWallEscapeTest {
  private static final List<String> JVM_FLAGS = List.of("-Xmx256m", "-XX:+DisableAttachMechanism", "-XX:-UsePerfData");
  private static final Path PROJECT = Path.of("").toAbsolutePath();
  private static ServerSocket listener;
  private static Thread acceptor;

  @BeforeAll
  static void hostHasTheWall() throws IOException {
    assumeThat(System.getProperty("os.name")).as("the wall is Linux's").isEqualTo("Linux");
    OsWall.Report report = OsWall.inspect();
    assertThat(report.full()).as(report.missing()).isTrue();
    assertThat(report.cgroupMemory()).as(report.missing()).isTrue();
    assertThat(report.cgroupPids()).as(report.missing()).isTrue();
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = Thread.ofPlatform().daemon().start(() -> {
      while (!listener.isClosed()) {
        try (Socket s = listener.accept(); OutputStream out = s.getOutputStream()) {
          out.write("hello".getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
          // closed at the end
        }
      }
    });
  }

  @AfterAll
  static void closeListener() throws Exception {
    if (listener != null) {
      listener.close();
      acceptor.join(5_000);
    }
  }

  @Test
  void everyAttack_succeedsWithoutTheWall() throws Exception {
    Process victim = victim();
    try {
      WalledJvm.Result r = WalledJvm.run(WalledJvm.plainCommand(JVM_FLAGS, EscapeAttemptsMain.class, args(victim)), 120);
      System.out.println("unwalled:\n" + r.output());
      assertThat(r.exitStatus()).as(r.output()).isZero();
      Map<String, String> verdicts = r.attacks();
      assertThat(verdicts.keySet()).containsExactlyElementsOf(EscapeAttemptsMain.ATTACKS);
      List<String> hostUserOnly = root() ? List.of() : List.of("read-shadow", "list-home",
          "write-java-home", "write-root", "write-sysctl");
      boolean addressesShown = Files.readAllLines(Path.of("/proc/kallsyms")).stream().limit(10)
          .anyMatch(l -> !l.startsWith("0000000000000000"));
      verdicts.forEach((attack, verdict) -> {
        if (attack.equals("kernel-addresses") && !addressesShown) {
          assertThat(verdict).as(attack + ": this host hides them from the test JVM too (kptr_restrict)").startsWith("REFUSED");
        } else if (attack.equals("heap-past-xmx")) {
          assertThat(verdict).as(attack + ": -Xmx is the JVM's own limit, walled or not").startsWith("REFUSED OutOfMemoryError");
        } else if (!hostUserOnly.contains(attack)) {
          assertThat(verdict).as(attack).startsWith("ESCAPED");
        }
      });
      assertThat(victim.isAlive()).as("the unwalled JVM killed the victim").isFalse();
      assertThat(r.line("STATUS")).contains("Seccomp=0");
    } finally {
      victim.destroyForcibly().waitFor();
    }
  }

  @Test
  void everyAttack_isRefusedInsideTheWall() throws Exception {
    Process victim = victim();
    WallCommand.Walled walled = WallCommand.wrap(
        WalledJvm.workerCommand(JVM_FLAGS, EscapeAttemptsMain.class, args(victim)), WalledJvm.spec(512L << 20, 200));
    List<Path> cgroups = walled.slot().procsFiles().stream().map(Path::getParent).toList();
    try {
      WalledJvm.Result r = WalledJvm.run(walled.command(), 120);
      System.out.println("walled:\n" + r.output());
      assertThat(r.exitStatus()).as(r.output()).isZero();
      Map<String, String> verdicts = r.attacks();
      assertThat(verdicts.keySet()).containsExactlyElementsOf(EscapeAttemptsMain.ATTACKS);
      verdicts.forEach((attack, verdict) -> assertThat(verdict).as(attack).startsWith("REFUSED"));
      assertThat(verdicts.get("threads-1000")).as("the pids cgroup, not a lack of memory").contains("REFUSED after");
      assertThat(walled.slot().tasksRefused()).as("tasks the pids cgroup refused").isPositive();
      assertThat(verdicts.get("net-interfaces")).contains("only lo in /proc/net/dev");
      assertThat(victim.isAlive()).as("the victim outside the wall").isTrue();
      assertThat(r.line("STATUS")).contains("Seccomp=2", "NoNewPrivs=1", "CapEff=0000000000000000");
      assertThat(r.line("UNIX-SOCKET")).as("the filter's AF_UNIX exception, a control").isEqualTo("opened");
      assertThat(walled.slot().memoryPeakBytes()).isBetween(1L, 512L << 20);
      assertThat(walled.slot().oomKilled()).isFalse();
    } finally {
      walled.slot().close();
      victim.destroyForcibly().waitFor();
    }
    assertThat(cgroups).allSatisfy(dir -> assertThat(dir).doesNotExist());
  }

  @Test
  void memoryPastTheCgroupLimit_getsTheWorkerKilled_andTheSlotSaysSo() throws Exception {
    List<String> flags = List.of("-Xmx1g", "-XX:-UsePerfData");
    List<String> bomb = List.of("attacks=memory-bomb", "bomb-mib=768");
    WalledJvm.Result plain = WalledJvm.run(WalledJvm.plainCommand(flags, EscapeAttemptsMain.class, bomb), 120);
    assertThat(plain.attacks().get("memory-bomb")).as(plain.output()).startsWith("ESCAPED held 768 MiB");

    WallCommand.Walled walled = WallCommand.wrap(WalledJvm.workerCommand(flags, EscapeAttemptsMain.class, bomb),
        WalledJvm.spec(256L << 20, 200));
    try {
      WalledJvm.Result r = WalledJvm.run(walled.command(), 120);
      System.out.println("walled memory bomb: exit " + r.exitStatus() + ", peak " + walled.slot().memoryPeakBytes() + " bytes\n" + r.output());
      assertThat(r.attacks()).as(r.output()).doesNotContainKey("memory-bomb");
      assertThat(r.exitStatus()).isNotZero();
      assertThat(walled.slot().oomKilled()).isTrue();
      assertThat(walled.slot().memoryPeakBytes()).isBetween(200L << 20, 256L << 20);
    } finally {
      walled.slot().close();
    }
  }

  @Test
  void walledMain_withoutItsJdk22Class_exits70BeforeTheMainRuns() throws Exception {
    // The class directory without META-INF/versions/22 first: the JDK 21 stand-in is loaded.
    List<String> command = List.of(WalledJvm.JAVA_HOME.resolve("bin/java").toString(), "--enable-native-access=ALL-UNNAMED",
        "-cp", WalledJvm.CLASSES + ":" + WalledJvm.TEST_CLASSES, WalledMain.class.getName(), ReadyMain.class.getName());
    WalledJvm.Result r = WalledJvm.run(command, 60);
    assertThat(r.exitStatus()).isEqualTo(70);
    assertThat(r.output()).doesNotContain("ready").startsWith("polyglot-sandbox wall: cannot install the seccomp filter:")
        .contains("META-INF/versions/22");
    assertThat(r.output().strip().lines()).hasSize(1);

    List<String> weak = new ArrayList<>(command);
    weak.add(2, "-Dpolyglotsandbox.wall=weak");
    WalledJvm.Result w = WalledJvm.run(weak, 60);
    assertThat(w.exitStatus()).isZero();
    assertThat(w.output().strip()).isEqualTo("ready");
  }

  @Test
  void aProgramTheKernelRejects_failsWithTheKernelsError() throws Exception {
    Path classes = WalledJvm.CLASSES;
    List<String> command = List.of(WalledJvm.JAVA_HOME.resolve("bin/java").toString(), "--enable-native-access=ALL-UNNAMED",
        "-cp", classes.resolve("META-INF/versions/22") + ":" + classes + ":" + WalledJvm.TEST_CLASSES,
        RejectedFilterMain.class.getName());
    WalledJvm.Result r = WalledJvm.run(command, 60);
    assertThat(r.output().strip())
        .isEqualTo("IllegalStateException: seccomp(SECCOMP_SET_MODE_FILTER) failed: errno 22 (Invalid argument)");
  }

  private static List<String> args(Process victim) {
    return List.of("port=" + listener.getLocalPort(), "victim=" + victim.pid(), "host=" + ProcessHandle.current().pid(),
        "project=" + PROJECT, "home=" + System.getProperty("user.home"));
  }

  /** A host process for the attacks to kill: it outlives the test unless one of them succeeds. */
  private static Process victim() throws IOException {
    return new ProcessBuilder("sleep", "600").start();
  }

  private static boolean root() throws IOException {
    return Files.readAllLines(Path.of("/proc/self/status")).stream()
        .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals("0"));
  }
}
