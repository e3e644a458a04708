package org.polyglotsandbox.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.internal.isolation.EscapeAttemptsMain;

/**
 * The wall exactly as the sandbox builds it for its workers (the launcher's own command, flags and binds,
 * with a mount of the project's test data), attacked by host Java code as if GraalVM's wall had fallen.
 * {@code OsWallEscapeTest} runs the same attacks in a plain child JVM, where each succeeds.
 */
@Tag("slow")
class WorkerWallEscapeTest {
  private static final List<String> ATTACKS = List.of("tcp-loopback", "read-shadow", "list-home", "list-project",
      "exec-shell", "exec-java", "kill-victim", "see-host-jvm", "write-java-home", "write-root", "threads-1000",
      "environ", "net-interfaces", "write-sysctl", "kernel-addresses");

  @Test
  void everyAttack_fromInsideAWorker_isRefused_andTheHeapBombEndsOnlyTheWorker() throws Exception {
    Path project = Path.of("").toAbsolutePath();
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .mount(Mount.readOnly(project.resolve("src/test"), "/data")).build();
    WorkerLauncher launcher = WorkerLauncher.forHost(Isolation.process(), policy);
    Process victim = new ProcessBuilder("sleep", "600").start();
    Path canary = java.nio.file.Files.createTempFile(Path.of(System.getProperty("user.home")), "canary-", ".txt");
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
        while (!listener.isClosed()) {
          try (Socket s = listener.accept(); OutputStream out = s.getOutputStream()) {
            out.write("hello".getBytes(StandardCharsets.US_ASCII));
          } catch (IOException e) {
            // closed at the end
          }
        }
      });
      List<String> args = List.of("attacks=" + String.join(",", ATTACKS) + ",heap-past-xmx",
          "port=" + listener.getLocalPort(), "victim=" + victim.pid(), "host=" + ProcessHandle.current().pid(),
          "project=" + project, "home=" + System.getProperty("user.home"));
      WorkerCommand.Launched worker = launcher.launch(EscapeAttemptsMain.class.getName(), args);
      worker.process().getOutputStream().close();
      String output = new String(worker.process().getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(worker.process().waitFor(120, TimeUnit.SECONDS)).isTrue();
      worker.release();
      System.out.println(output);
      Map<String, String> verdicts = new LinkedHashMap<>();
      output.lines().filter(l -> l.startsWith("ATTACK ")).forEach(l -> {
        String[] parts = l.split(" ", 3);
        verdicts.put(parts[1], parts[2]);
      });
      assertThat(verdicts.keySet()).containsExactlyElementsOf(ATTACKS);
      assertThat(verdicts.get("threads-1000")).contains("REFUSED after");
      // The home shows only the directories that lead to what the wall binds (the jars in ~/.m2, GraalPy's
      // cache in ~/.cache), never the rest of it: the canary file beside them stays out of sight.
      String home = verdicts.remove("list-home");
      assertThat(home).doesNotContain(canary.getFileName().toString());
      if (home.startsWith("ESCAPED")) {
        String names = home.substring(home.indexOf('[') + 1, home.indexOf(']'));
        for (String name : names.split(", ")) {
          assertThat(List.of(".m2", ".cache", ".gradle")).as("home entry " + name).contains(name);
        }
      }
      verdicts.forEach((attack, verdict) -> assertThat(verdict).as(attack).startsWith("REFUSED"));
      assertThat(victim.isAlive()).as("the host process the worker tried to kill").isTrue();
      // Past its heap the worker JVM exits at once (-XX:+ExitOnOutOfMemoryError): the host sees status 3.
      assertThat(worker.process().exitValue()).as(output).isEqualTo(WorkerCommand.OUT_OF_MEMORY_STATUS);
      listener.close();
      acceptor.join(5_000);
    } finally {
      victim.destroyForcibly().waitFor();
      java.nio.file.Files.deleteIfExists(canary);
      launcher.close();
    }
  }
}
