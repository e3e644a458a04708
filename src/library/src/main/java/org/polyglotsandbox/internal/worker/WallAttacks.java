package org.polyglotsandbox.internal.worker;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The escape probe's attacks on the operating-system wall: host Java code run inside a worker's wall as if
 * every wall before it had fallen. Each attack is tried for real and printed as one line,
 * {@code ATTACK <name> REFUSED|ESCAPED <evidence>}; none harms the host when it succeeds (a file written is
 * removed, a sysctl is written with its own value, no process is signalled). Run by {@link WallProbe} in a
 * worker's wall, and by the tests in a plain child JVM, where each succeeds.
 *
 * <p>Arguments, {@code key=value}: {@code port} (a listener on the host's loopback), {@code host} (the
 * host JVM's PID), {@code home} (the host user's home), {@code project} (the host JVM's working directory).
 */
public final class WallAttacks {
  /** Every attack, in the order they run, with the target each names. */
  public static final Map<String, String> ATTACKS = attacks();

  private WallAttacks() {}

  private static Map<String, String> attacks() {
    Map<String, String> a = new LinkedHashMap<>();
    a.put("connect-host-loopback", "a TCP listener on the host's 127.0.0.1");
    a.put("read-shadow", "/etc/shadow");
    a.put("list-home", "the host user's home");
    a.put("list-working-directory", "the host JVM's working directory");
    a.put("exec-shell", "/bin/sh");
    a.put("see-host-jvm", "the host JVM's process");
    a.put("write-java-home", "a file in the JDK");
    a.put("write-root", "a file in /");
    a.put("write-sysctl", "/proc/sys/kernel/printk_ratelimit");
    a.put("kernel-addresses", "/proc/kallsyms");
    a.put("other-environments", "/proc/*/environ");
    a.put("network-interfaces", "interfaces other than lo");
    a.put("threads-1000", "1,000 threads");
    return Collections.unmodifiableMap(a);
  }

  public static void main(String[] args) {
    Map<String, String> a = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq > 0) {
        a.put(arg.substring(0, eq), arg.substring(eq + 1));
      }
    }
    for (String attack : ATTACKS.keySet()) {
      String verdict;
      try {
        verdict = run(attack, a);
      } catch (Throwable t) {
        verdict = "REFUSED " + t.getClass().getSimpleName() + ": " + t.getMessage();
      }
      System.out.println("ATTACK " + attack + " " + verdict.replaceAll("\\s+", " "));
    }
    System.out.println("DONE");
    System.out.flush();
    System.exit(0);
  }

  private static String run(String attack, Map<String, String> a) throws Exception {
    return switch (attack) {
      case "connect-host-loopback" -> {
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(a.get("port"))), 2000);
          yield "ESCAPED connected to the host's listener";
        }
      }
      case "read-shadow" -> "ESCAPED read " + Files.readAllBytes(Path.of("/etc/shadow")).length + " bytes";
      case "list-home" -> {
        // The directories that lead to what the wall binds (the jars, GraalPy's cache) are seen; nothing else.
        List<String> names = new ArrayList<>(list(Path.of(a.get("home"))));
        names.removeAll(List.of(".m2", ".cache", ".gradle"));
        yield names.isEmpty() ? "REFUSED only the directories leading to the bound files"
            : "ESCAPED the home holds " + names;
      }
      case "list-working-directory" -> {
        Path dir = Path.of(a.get("project"));
        try (Stream<Path> s = Files.list(dir)) {
          List<String> files = s.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).toList();
          yield files.isEmpty() ? "REFUSED no file of it in sight" : "ESCAPED it holds " + files;
        }
      }
      case "exec-shell" -> {
        Process p = new ProcessBuilder("/bin/sh", "-c", "echo escaped").redirectErrorStream(true).start();
        p.waitFor(10, TimeUnit.SECONDS);
        yield "ESCAPED ran /bin/sh: " + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      }
      case "see-host-jvm" -> {
        var host = ProcessHandle.of(Long.parseLong(a.get("host")));
        String command = host.flatMap(h -> h.info().command()).orElse("");
        yield command.endsWith("/java") ? "ESCAPED sees the host JVM" : "REFUSED no host JVM in sight";
      }
      case "write-java-home" -> write(Path.of(System.getProperty("java.home"), "escape-" + UUID.randomUUID()));
      case "write-root" -> write(Path.of("/escape-" + UUID.randomUUID()));
      case "write-sysctl" -> {
        Path sysctl = Path.of("/proc/sys/kernel/printk_ratelimit");
        String value = Files.readString(sysctl);
        Files.writeString(sysctl, value, StandardOpenOption.WRITE);
        yield "ESCAPED wrote a host-wide kernel setting (its own value back)";
      }
      case "kernel-addresses" -> {
        long shown = Files.readAllLines(Path.of("/proc/kallsyms")).stream().limit(1000)
            .filter(l -> !l.startsWith("0000000000000000")).count();
        yield shown > 0 ? "ESCAPED " + shown + " kernel addresses" : "REFUSED no kernel address shown";
      }
      case "other-environments" -> {
        long self = ProcessHandle.current().pid();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
          List<Path> readable = procs.filter(p -> p.getFileName().toString().matches("\\d+"))
              .filter(p -> !p.getFileName().toString().equals(Long.toString(self)))
              .filter(p -> {
                try {
                  return Files.readAllBytes(p.resolve("environ")).length > 0;
                } catch (IOException e) {
                  return false;
                }
              }).toList();
          yield readable.isEmpty() ? "REFUSED no other process's environment holds anything"
              : "ESCAPED read the environment of " + readable.size() + " other processes";
        }
      }
      case "network-interfaces" -> {
        List<String> names = Files.readAllLines(Path.of("/proc/net/dev")).stream().skip(2)
            .map(l -> l.strip().split(":")[0]).filter(n -> !n.equals("lo")).toList();
        yield names.isEmpty() ? "REFUSED only lo" : "ESCAPED sees " + names;
      }
      case "threads-1000" -> threads(1000);
      default -> throw new IllegalArgumentException("unknown attack " + attack);
    };
  }

  private static List<String> list(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static String write(Path file) throws IOException {
    Files.writeString(file, "escaped");
    Files.delete(file);
    return "ESCAPED wrote and removed " + file;
  }

  /** Starts {@code n} waiting threads and ends them: {@code ESCAPED} if all started, {@code REFUSED after k} if not. */
  public static String threads(int n) throws InterruptedException {
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> started = new ArrayList<>();
    String verdict;
    try {
      for (int i = 0; i < n; i++) {
        Thread t = new Thread(() -> {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }, "attack-" + i);
        t.setDaemon(true);
        t.start();
        started.add(t);
      }
      verdict = "ESCAPED started " + n + " threads";
    } catch (OutOfMemoryError e) {
      verdict = "REFUSED after " + started.size() + " threads";
    }
    release.countDown();
    for (Thread t : started) {
      t.join();
    }
    return verdict;
  }
}
