package org.polyglotsandbox.internal.isolation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Starts test mains in child JVMs of the test JVM's JDK, plain or inside a wall, and reads what they print. */
final class WalledJvm {
  static final Path JAVA_HOME = Path.of(System.getProperty("java.home"));
  static final Path CLASSES = codeSource(WalledMain.class);
  static final Path TEST_CLASSES = codeSource(WalledJvm.class);

  private WalledJvm() {}

  /** What a child JVM did: its exit status (-1: timed out, killed) and its combined output. */
  record Result(int exitStatus, String output) {
    /** The verdict line of each attack: name to the rest of the line. */
    Map<String, String> attacks() {
      Map<String, String> m = new LinkedHashMap<>();
      output.lines().filter(l -> l.startsWith("ATTACK ")).forEach(l -> {
        String[] f = l.split(" ", 3);
        m.put(f[1], f.length > 2 ? f[2] : "");
      });
      return m;
    }

    String line(String prefix) {
      return output.lines().filter(l -> l.startsWith(prefix + " ")).map(l -> l.substring(prefix.length() + 1))
          .findFirst().orElse("");
    }
  }

  /** {@code java <jvmFlags> -cp <classes>:<test classes> <main> <args>}, unwalled. */
  static List<String> plainCommand(List<String> jvmFlags, Class<?> main, List<String> args) {
    List<String> c = new ArrayList<>();
    c.add(JAVA_HOME.resolve("bin/java").toString());
    c.addAll(jvmFlags);
    c.addAll(List.of("-cp", CLASSES + ":" + TEST_CLASSES, main.getName()));
    c.addAll(args);
    return c;
  }

  /** The worker command a caller gives {@link WallCommand#wrap}: the same, through {@link WalledMain}. */
  static List<String> workerCommand(List<String> jvmFlags, Class<?> main, List<String> args) {
    List<String> c = new ArrayList<>();
    c.add(JAVA_HOME.resolve("bin/java").toString());
    c.addAll(jvmFlags);
    c.addAll(List.of("-cp", CLASSES + ":" + TEST_CLASSES, WalledMain.class.getName(), main.getName()));
    c.addAll(args);
    return c;
  }

  /** A strict wall reading only the library's and the tests' classes. */
  static WallSpec spec(long cgroupMemoryBytes, long maxTasks) {
    return new WallSpec(JAVA_HOME, List.of(CLASSES, TEST_CLASSES), Map.of("LANG", "C.UTF-8"), 256, 16L << 20,
        cgroupMemoryBytes, maxTasks, false);
  }

  static Result run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
    Path log = Files.createTempFile("walled-jvm", ".log");
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      boolean finished = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
      if (!finished) {
        p.destroyForcibly().waitFor();
      }
      return new Result(finished ? p.exitValue() : -1, Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(log);
    }
  }

  private static Path codeSource(Class<?> c) {
    try {
      return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
