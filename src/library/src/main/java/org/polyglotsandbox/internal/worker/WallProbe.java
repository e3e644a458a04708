package org.polyglotsandbox.internal.worker;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox.Isolation;

/**
 * The escape probe's family for the operating-system wall: starts {@link WallAttacks} inside a wall built
 * exactly as a worker's is (the same launcher, command, flags and binds) and reads each attack's verdict.
 */
public final class WallProbe {
  /** One attack: its name, what it aimed at, whether the wall refused it, and what it saw. */
  public record Attack(String name, String target, boolean refused, String evidence) {}

  private WallProbe() {}

  /**
   * Runs every attack in a fresh worker wall for {@code policy} under {@code isolation}.
   *
   * @throws IllegalStateException if the wall cannot be built ({@code isolation} not accepting a weak one),
   *     or the attacks did not report within two minutes
   */
  public static List<Attack> attack(Isolation isolation, Policy policy) {
    WorkerLauncher launcher = WorkerLauncher.forHost(isolation, policy);
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread acceptor = Thread.ofPlatform().daemon().name("polyglot-sandbox-wall-probe").start(() -> {
        while (!listener.isClosed()) {
          try (Socket s = listener.accept(); OutputStream out = s.getOutputStream()) {
            out.write('x');
          } catch (IOException e) {
            // closed when the attacks are done
          }
        }
      });
      List<String> args = List.of("port=" + listener.getLocalPort(), "host=" + ProcessHandle.current().pid(),
          "home=" + System.getProperty("user.home"), "project=" + Path.of("").toAbsolutePath());
      WorkerCommand.Launched attacker = launcher.launch(WallAttacks.class.getName(), args);
      try {
        attacker.process().getOutputStream().close();
        attacker.process().getErrorStream().close();
        String output = new String(attacker.process().getInputStream().readNBytes(1 << 20), StandardCharsets.UTF_8);
        if (!attacker.process().waitFor(2, TimeUnit.MINUTES)) {
          throw new IllegalStateException("the wall's attacks did not end within two minutes");
        }
        Map<String, String> verdicts = new LinkedHashMap<>();
        output.lines().filter(l -> l.startsWith("ATTACK ")).forEach(l -> {
          String[] parts = l.split(" ", 3);
          verdicts.put(parts[1], parts.length > 2 ? parts[2] : "");
        });
        List<Attack> attacks = new ArrayList<>();
        WallAttacks.ATTACKS.forEach((name, target) -> {
          String verdict = verdicts.getOrDefault(name, "ESCAPED? no verdict (the attacker ended first)");
          attacks.add(new Attack(name, target, verdict.startsWith("REFUSED"),
              verdict.replaceFirst("^(REFUSED|ESCAPED) ?", "")));
        });
        listener.close();
        acceptor.join(5_000);
        return List.copyOf(attacks);
      } finally {
        attacker.process().destroyForcibly();
        attacker.release();
      }
    } catch (IOException e) {
      throw new IllegalStateException("the wall's attacks could not start: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.util.concurrent.CancellationException("interrupted while the wall was attacked");
    } finally {
      launcher.close();
    }
  }
}
