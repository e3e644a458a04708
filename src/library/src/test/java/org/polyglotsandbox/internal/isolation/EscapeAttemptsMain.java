package org.polyglotsandbox.internal.isolation;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Host Java code run as if the Truffle wall had fallen: each attack a guest that broke out of GraalVM could
 * make, tried for real, one line per attack: {@code ATTACK <name> ESCAPED|REFUSED <detail>}. Then
 * {@code STATUS} with the process's seccomp mode, {@code no_new_privs} and effective capabilities, and
 * {@code DONE}.
 *
 * <p>Arguments, {@code key=value}: {@code attacks} (comma-separated names, default all but
 * {@code memory-bomb}), {@code port} (a host loopback listener), {@code victim} (a host process to kill),
 * {@code host} (the host JVM's PID), {@code project} (the project directory), {@code home} (the host
 * user's home).
 */
public final class EscapeAttemptsMain {
  static final List<String> ATTACKS = List.of("tcp-loopback", "read-shadow", "list-home", "list-project",
      "exec-shell", "exec-java", "kill-victim", "see-host-jvm", "write-java-home", "write-root", "threads-1000",
      "heap-past-xmx", "environ", "net-interfaces", "write-sysctl", "kernel-addresses");

  private EscapeAttemptsMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    List<String> attacks = a.containsKey("attacks") ? List.of(a.get("attacks").split(",")) : ATTACKS;
    for (String attack : attacks) {
      String verdict;
      try {
        verdict = run(attack, a);
      } catch (Throwable t) {
        String message = String.valueOf(t.getMessage());
        int cut = message.indexOf("Possible reasons"); // the JDK's launch failure goes on with advice
        verdict = "REFUSED " + t.getClass().getSimpleName() + ": " + (cut > 0 ? message.substring(0, cut) : message).strip();
      }
      System.out.println("ATTACK " + attack + " " + verdict.replace('\n', ' '));
      System.out.flush();
    }
    System.out.println("STATUS " + status());
    System.out.println("UNIX-SOCKET " + unixSocket());
    System.out.println("DONE");
    System.out.flush();
  }

  private static String run(String attack, Map<String, String> a) throws Exception {
    return switch (attack) {
      case "tcp-loopback" -> {
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(a.get("port"))), 2000);
          byte[] hello = s.getInputStream().readNBytes(5);
          yield "ESCAPED connected to the host's listener, which said " + new String(hello, StandardCharsets.US_ASCII);
        }
      }
      case "read-shadow" -> "ESCAPED read " + Files.readAllBytes(Path.of("/etc/shadow")).length + " bytes of /etc/shadow";
      case "list-home" -> {
        List<String> names = list(Path.of(a.get("home")));
        yield names.isEmpty() ? "REFUSED " + a.get("home") + " is empty" : "ESCAPED " + a.get("home") + " holds " + names;
      }
      case "list-project" -> {
        List<String> names = list(Path.of(a.get("project")));
        yield names.contains("pom.xml") ? "ESCAPED the project directory holds " + names
            : "REFUSED the project directory shows only " + names;
      }
      case "exec-shell" -> exec(List.of("/bin/sh", "-c", "echo escaped"));
      case "exec-java" -> exec(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-version"));
      case "kill-victim" -> {
        Optional<ProcessHandle> victim = ProcessHandle.of(Long.parseLong(a.get("victim")));
        if (victim.isEmpty()) {
          yield "REFUSED no process " + a.get("victim") + " in sight";
        }
        boolean sent = victim.get().destroyForcibly();
        victim.get().onExit().get(2, TimeUnit.SECONDS);
        yield sent ? "ESCAPED killed host process " + a.get("victim") : "REFUSED kill was refused";
      }
      case "see-host-jvm" -> {
        Optional<ProcessHandle> host = ProcessHandle.of(Long.parseLong(a.get("host")));
        String command = host.flatMap(h -> h.info().command()).orElse("");
        yield command.contains("java") ? "ESCAPED sees the host JVM " + a.get("host") + " (" + command + ")"
            : "REFUSED no host JVM at " + a.get("host") + (host.isPresent() ? " (a process of its own, " + command + ")" : "");
      }
      case "write-java-home" -> write(Path.of(System.getProperty("java.home"), "escape-" + UUID.randomUUID()));
      case "write-root" -> write(Path.of("/escape-" + UUID.randomUUID()));
      case "threads-1000" -> org.polyglotsandbox.internal.worker.WallAttacks.threads(1000);
      case "heap-past-xmx" -> heapPastXmx();
      case "environ" -> environ();
      case "net-interfaces" -> interfaces();
      case "write-sysctl" -> {
        // The same value back: a no-op for the host when it succeeds, proof enough that it could have been another.
        Path sysctl = Path.of("/proc/sys/kernel/printk_ratelimit");
        String value = Files.readString(sysctl);
        Files.writeString(sysctl, value, StandardOpenOption.WRITE);
        yield "ESCAPED wrote the host-wide sysctl kernel.printk_ratelimit (" + value.strip() + ")";
      }
      case "kernel-addresses" -> {
        long shown = Files.readAllLines(Path.of("/proc/kallsyms")).stream().limit(1000)
            .filter(l -> !l.startsWith("0000000000000000")).count();
        yield shown > 0 ? "ESCAPED /proc/kallsyms gives " + shown + " kernel addresses of its first 1000 symbols"
            : "REFUSED /proc/kallsyms shows no address";
      }
      case "memory-bomb" -> memoryBomb(Long.parseLong(a.getOrDefault("bomb-mib", "768")));
      default -> throw new IllegalArgumentException("unknown attack " + attack);
    };
  }

  private static List<String> list(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static String exec(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    p.waitFor(10, TimeUnit.SECONDS);
    return "ESCAPED ran " + command.get(0) + ": " + out.lines().findFirst().orElse("");
  }

  private static String write(Path file) throws IOException {
    Files.writeString(file, "escaped");
    Files.delete(file);
    return "ESCAPED wrote and removed " + file;
  }

  private static String heapPastXmx() {
    List<byte[]> held = new ArrayList<>();
    long max = Runtime.getRuntime().maxMemory();
    try {
      while (true) {
        held.add(new byte[16 << 20]);
      }
    } catch (OutOfMemoryError e) {
      int mib = held.size() * 16;
      held.clear();
      return "REFUSED OutOfMemoryError after " + mib + " MiB of a " + (max >> 20) + " MiB heap, and the JVM goes on";
    }
  }

  /** Allocates and touches {@code mib} MiB of heap in 16 MiB arrays (for a JVM whose -Xmx is above the cgroup's limit). */
  private static String memoryBomb(long mib) {
    List<byte[]> held = new ArrayList<>();
    for (long done = 0; done < mib; done += 16) {
      byte[] b = new byte[16 << 20];
      for (int i = 0; i < b.length; i += 4096) {
        b[i] = 1;
      }
      held.add(b);
    }
    return "ESCAPED held " + mib + " MiB";
  }

  private static String environ() throws IOException {
    long self = ProcessHandle.current().pid();
    List<String> read = new ArrayList<>();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
        if (Long.parseLong(p.getFileName().toString()) == self) {
          continue;
        }
        try {
          byte[] env = Files.readAllBytes(p.resolve("environ"));
          if (env.length > 0) {
            String first = new String(env, StandardCharsets.UTF_8).split("\0")[0];
            read.add(p.getFileName() + " (" + first.substring(0, Math.min(first.length(), 20)) + "...)");
          }
        } catch (IOException e) {
          // not readable: not an escape
        }
      }
    }
    return read.isEmpty() ? "REFUSED no other process's environment is readable"
        : "ESCAPED read the environment of " + read.size() + " processes, e.g. " + read.subList(0, Math.min(3, read.size()));
  }

  private static String interfaces() throws IOException {
    TreeSet<String> names = new TreeSet<>();
    try (InputStream in = Files.newInputStream(Path.of("/proc/net/dev"))) {
      new String(in.readAllBytes(), StandardCharsets.US_ASCII).lines().skip(2)
          .forEach(l -> names.add(l.substring(0, l.indexOf(':')).strip()));
    }
    String viaJava;
    try {
      viaJava = Collections.list(NetworkInterface.getNetworkInterfaces()).stream().map(NetworkInterface::getName).sorted().toList().toString();
    } catch (IOException | Error e) {
      viaJava = "NetworkInterface failed: " + e.getMessage();
    }
    names.remove("lo");
    return names.isEmpty() ? "REFUSED only lo in /proc/net/dev; NetworkInterface: " + viaJava
        : "ESCAPED sees " + names + " besides lo; NetworkInterface: " + viaJava;
  }

  private static String status() throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      for (String key : List.of("Seccomp:", "NoNewPrivs:", "CapEff:")) {
        if (line.startsWith(key)) {
          out.add(line.replace(":\t", "=").replace(": ", "=").strip());
        }
      }
    }
    return String.join(" ", out);
  }

  /** A control: the filter lets AF_UNIX sockets through, so a refused TCP socket is the rule, not a blanket ban. */
  private static String unixSocket() {
    try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      return c.isOpen() ? "opened" : "closed at once";
    } catch (IOException | RuntimeException e) {
      return "failed: " + e;
    }
  }
}
