package org.polyglotsandbox.internal.worker;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.internal.engine.OptimizingRuntime;

/**
 * The command that starts a worker: the host's own {@code java}, the library's jars and GraalVM's on the
 * class path, the optimizing runtime's flags, and the JVM's caps (heap, metaspace, code cache, direct
 * memory; exit at the first {@link OutOfMemoryError}).
 */
final class WorkerCommand {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  /** The exit status {@code -XX:+ExitOnOutOfMemoryError} gives. */
  static final int OUT_OF_MEMORY_STATUS = 3;

  /**
   * A started worker process, what to release once it has ended, and whether the kernel killed it for its
   * memory cgroup.
   */
  record Launched(Process process, Runnable releaser, java.util.function.BooleanSupplier oomKilled) {
    void release() {
      releaser.run();
    }
  }

  private final List<String> jvm;
  private final List<String> classPath;
  private final Path javaHome;
  private final String resourceCache;

  private WorkerCommand(Path javaHome, List<String> jvm, List<String> classPath, String resourceCache) {
    this.javaHome = javaHome;
    this.jvm = jvm;
    this.classPath = classPath;
    this.resourceCache = resourceCache;
  }

  /** The command for this JVM's workers under {@code isolation}. */
  static WorkerCommand of(Isolation isolation) {
    Path javaHome = Path.of(System.getProperty("java.home"));
    List<String> jvm = new ArrayList<>();
    jvm.add("-Xmx" + (isolation.workerHeapBytes() >> 20) + "m");
    jvm.add("-Xss8m");
    jvm.add("-XX:MaxMetaspaceSize=384m");
    jvm.add("-XX:ReservedCodeCacheSize=240m");
    jvm.add("-XX:MaxDirectMemorySize=64m");
    jvm.add("-XX:+ExitOnOutOfMemoryError");
    jvm.add("-XX:+UseSerialGC");
    jvm.add("-XX:-UsePerfData");
    jvm.add("-XX:+DisableAttachMechanism");
    jvm.add("-Djava.awt.headless=true");
    jvm.addAll(runtimeFlags());
    String cache = resourceCache();
    jvm.add("-Dpolyglot.engine.userResourceCache=" + cache);
    jvm.add("-D" + OptimizingRuntime.SILENCE_PROPERTY + "=false");
    return new WorkerCommand(javaHome, List.copyOf(jvm), WorkerClassPath.entries(), cache);
  }

  /** The optimizing runtime's flags: the host's own if it runs with them, else found the way the library's printer finds them. */
  private static List<String> runtimeFlags() {
    List<String> host = ManagementFactory.getRuntimeMXBean().getInputArguments();
    List<String> copied = new ArrayList<>();
    for (int i = 0; i < host.size(); i++) {
      String a = host.get(i);
      if (a.equals("-XX:+EnableJVMCI") || a.equals("-XX:+UnlockExperimentalVMOptions")
          || a.startsWith("--upgrade-module-path=") || a.startsWith("--enable-native-access")
          || a.startsWith("--sun-misc-unsafe-memory-access")) {
        copied.add(a);
      } else if (a.equals("--upgrade-module-path") && i + 1 < host.size()) {
        copied.add("--upgrade-module-path=" + host.get(++i));
      }
    }
    if (copied.contains("-XX:+EnableJVMCI") && copied.stream().anyMatch(a -> a.startsWith("--upgrade-module-path="))) {
      return copied;
    }
    try {
      return OptimizingRuntime.flags(List.of());
    } catch (IllegalStateException e) {
      LOG.log(System.Logger.Level.WARNING, "workers run in GraalVM's fallback interpreter: " + e.getMessage());
      return List.of();
    }
  }

  /** Where GraalPy's home is extracted: this JVM's choice, made explicit for the workers. */
  private static String resourceCache() {
    String property = System.getProperty("polyglot.engine.userResourceCache");
    if (property != null && !property.isBlank()) {
      return Path.of(property).toAbsolutePath().normalize().toString();
    }
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("org.graalvm.polyglot").toAbsolutePath().normalize().toString();
  }

  /** The plain {@code java} command for {@code mainClass}. */
  List<String> java(String mainClass, List<String> args) {
    List<String> c = new ArrayList<>();
    c.add(javaHome.resolve("bin").resolve("java").toString());
    c.addAll(jvm);
    c.add("-cp");
    c.add(String.join(File.pathSeparator, classPath));
    c.add(mainClass);
    c.addAll(args);
    return c;
  }

  Path javaHome() {
    return javaHome;
  }

  List<String> classPathEntries() {
    return classPath;
  }

  Path resourceCacheDirectory() {
    return Path.of(resourceCache);
  }

  /** The jars of the optimizing runtime the command names, which a walled worker must be able to read. */
  List<Path> upgradeModulePath() {
    List<Path> jars = new ArrayList<>();
    for (String a : jvm) {
      if (a.startsWith("--upgrade-module-path=")) {
        for (String e : a.substring("--upgrade-module-path=".length()).split(File.pathSeparator)) {
          if (!e.isBlank()) {
            jars.add(Path.of(e).toAbsolutePath().normalize());
          }
        }
      }
    }
    return jars;
  }

  /** Starts a JVM outside any wall, with no guest code: to let GraalPy extract its home where walled workers only read it. */
  Process startUnwalled(String mainClass, List<String> args) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(java(mainClass, args)).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.keySet().retainAll(Set.of("PATH", "LANG", "HOME", "XDG_CACHE_HOME"));
    return pb.start();
  }
}
