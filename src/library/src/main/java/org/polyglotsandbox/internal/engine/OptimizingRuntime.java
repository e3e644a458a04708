package org.polyglotsandbox.internal.engine;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.module.FindException;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * The JVM flags that give a stock JDK GraalVM's optimizing Truffle runtime, and the one warning the
 * sandbox gives where it runs without them.
 *
 * <p>Without them, GraalVM runs guest code in its fallback interpreter, 15-35x slower on compute. What a
 * JDK with JVMCI (Temurin 21 and later, for one) needs is {@code -XX:+UnlockExperimentalVMOptions
 * -XX:+EnableJVMCI} and four jars of the same GraalVM version as the languages on
 * {@code --upgrade-module-path}: the compiler ({@code org.graalvm.compiler:compiler}), collections and
 * word ({@code org.graalvm.sdk}) and {@code org.graalvm.truffle:truffle-compiler}. Nothing else moves:
 * the application's class path stays as it is. The jars are looked for where an application's build has
 * them: on its class or module path, in directories named by the caller, in the local Maven repository
 * and in Gradle's cache.
 *
 * <p>Run as a program ({@code java -jar polyglot-sandbox-VERSION.jar [DIR...]}, the jar's main class, or
 * this class on any class path) it prints the flags on one line, or says what is missing and exits 1.
 */
public final class OptimizingRuntime {
  /** The four modules, each with the Maven coordinates ({@code group:artifact}) of its jar. */
  private static final Map<String, String> MODULES = Map.of(
      "jdk.graal.compiler", "org.graalvm.compiler:compiler",
      "org.graalvm.collections", "org.graalvm.sdk:collections",
      "org.graalvm.word", "org.graalvm.sdk:word",
      "org.graalvm.truffle.compiler", "org.graalvm.truffle:truffle-compiler");
  private static final List<String> ORDER =
      List.of("jdk.graal.compiler", "org.graalvm.collections", "org.graalvm.word", "org.graalvm.truffle.compiler");

  /** The property GraalVM names in its own warning; the sandbox honours it for its warning. */
  public static final String SILENCE_PROPERTY = "polyglot.engine.WarnInterpreterOnly";

  private static final AtomicBoolean WARNED = new AtomicBoolean();

  private OptimizingRuntime() {}

  /** The GraalVM version the library was built against (the languages' and the compiler jars'). */
  public static String graalVmVersion() {
    try (InputStream in = OptimizingRuntime.class.getResourceAsStream("graalvm.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      String v = p.getProperty("graalvm.version", "");
      if (v.isEmpty() || v.startsWith("$")) {
        throw new IllegalStateException("the library's build did not record its GraalVM version");
      }
      return v;
    } catch (IOException e) {
      throw new IllegalStateException("the library's GraalVM version could not be read: " + e.getMessage(), e);
    }
  }

  /**
   * The flags, in the order a {@code java} command takes them.
   *
   * @param places more directories or jars to look in first
   * @throws IllegalStateException naming what is missing and where it was looked for
   */
  public static List<String> flags(List<Path> places) {
    if (ModuleFinder.ofSystem().find("jdk.internal.vm.ci").isEmpty()) {
      throw new IllegalStateException("this JDK (" + System.getProperty("java.vendor") + " "
          + Runtime.version() + ") has no JVMCI module (jdk.internal.vm.ci), so no JVM flag can enable GraalVM's"
          + " optimizing runtime on it; use a JDK that has one, such as Eclipse Temurin 21 or later");
    }
    String version = graalVmVersion();
    Map<String, Path> found = find(version, places);
    if (found.size() < ORDER.size()) {
      List<String> missing = new ArrayList<>();
      for (String module : ORDER) {
        if (!found.containsKey(module)) {
          missing.add(MODULES.get(module) + ":" + version);
        }
      }
      throw new IllegalStateException("GraalVM's optimizing runtime needs " + String.join(", ", missing)
          + " (jar" + (missing.size() > 1 ? "s" : "") + "), not found on the class or module path nor in "
          + String.join(", ", searched(places))
          + "; fetch them with your build (for Maven: mvn dependency:get -Dartifact=GROUP:ARTIFACT:" + version
          + ", or the dependency-plugin snippet in docs/getting-started.md) or name their directory as an argument");
    }
    List<String> jars = new ArrayList<>();
    ORDER.forEach(m -> jars.add(found.get(m).toString()));
    List<String> flags = new ArrayList<>(List.of("-XX:+UnlockExperimentalVMOptions", "-XX:+EnableJVMCI",
        "--upgrade-module-path=" + String.join(java.io.File.pathSeparator, jars), "--enable-native-access=ALL-UNNAMED"));
    if (Runtime.version().feature() >= 23) {
      flags.add("--sun-misc-unsafe-memory-access=allow");
    }
    return flags;
  }

  /**
   * Logs, once per JVM, that guests run in the fallback interpreter and how to fix it, in one line; not
   * when {@code -Dpolyglot.engine.WarnInterpreterOnly=false} says not to. The engine's own nine-line
   * warning is off (see {@link ContextFactory#newEngine}).
   */
  static void warnIfInterpreted(String runtimeName) {
    if (!"Interpreted".equals(runtimeName) || "false".equalsIgnoreCase(System.getProperty(SILENCE_PROPERTY))
        || !WARNED.compareAndSet(false, true)) {
      return;
    }
    System.getLogger("org.polyglotsandbox").log(System.Logger.Level.WARNING, warning());
  }

  /** The warning's text. */
  static String warning() {
    return "guest code runs in GraalVM's fallback interpreter, 15-35x slower, because this JVM was started"
        + " without the optimizing runtime's flags; " + printCommand() + " prints them (or see docs/getting-started.md,"
        + " 'Fast guests'); -D" + SILENCE_PROPERTY + "=false silences this warning";
  }

  /** The command that prints the flags for this installation of the library. */
  private static String printCommand() {
    try {
      Path here = Path.of(OptimizingRuntime.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isRegularFile(here) && here.getFileName().toString().endsWith(".jar")) {
        return "'java -jar " + here + "'";
      }
      return "'java -cp " + here + " " + OptimizingRuntime.class.getName() + "'";
    } catch (Exception | Error e) { // a code source without a file (a custom class loader)
      return "'java -cp <the polyglot-sandbox jar> " + OptimizingRuntime.class.getName() + "'";
    }
  }

  /** The places looked in after the class and module path, for the error message. */
  private static List<String> searched(List<Path> places) {
    List<String> out = new ArrayList<>();
    places.forEach(p -> out.add(p.toString()));
    out.add(mavenRepository().toString());
    out.add(gradleCache().toString());
    return out;
  }

  private static Map<String, Path> find(String version, List<Path> places) {
    Set<Path> candidates = new LinkedHashSet<>();
    for (Path place : places) {
      candidates.addAll(jarsIn(place));
    }
    for (String property : List.of("java.class.path", "jdk.module.path")) {
      String value = System.getProperty(property, "");
      for (String entry : value.split(java.io.File.pathSeparator)) {
        if (!entry.isEmpty()) {
          candidates.addAll(jarsIn(Path.of(entry)));
        }
      }
    }
    Path maven = mavenRepository();
    Path gradle = gradleCache();
    for (String module : ORDER) {
      String[] ga = MODULES.get(module).split(":");
      candidates.add(maven.resolve(ga[0].replace('.', '/')).resolve(ga[1]).resolve(version)
          .resolve(ga[1] + "-" + version + ".jar"));
      Path dir = gradle.resolve(ga[0]).resolve(ga[1]).resolve(version);
      if (Files.isDirectory(dir)) {
        try (Stream<Path> hashes = Files.list(dir)) {
          hashes.forEach(h -> candidates.add(h.resolve(ga[1] + "-" + version + ".jar")));
        } catch (IOException e) {
          // an unreadable cache holds nothing for us
        }
      }
    }
    Map<String, Path> found = new LinkedHashMap<>();
    for (Path jar : candidates) {
      if (!Files.isRegularFile(jar) || !jar.getFileName().toString().endsWith("-" + version + ".jar")) {
        continue;
      }
      String module = moduleOf(jar);
      if (module != null && MODULES.containsKey(module)) {
        found.putIfAbsent(module, jar.toAbsolutePath().normalize());
      }
    }
    return found;
  }

  /** The jar itself, or the jars directly in a directory. */
  private static List<Path> jarsIn(Path place) {
    if (Files.isDirectory(place)) {
      try (Stream<Path> files = Files.list(place)) {
        return files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList();
      } catch (IOException e) {
        return List.of();
      }
    }
    return List.of(place);
  }

  private static String moduleOf(Path jar) {
    try {
      return ModuleFinder.of(jar).findAll().stream().findFirst().map(ModuleReference::descriptor)
          .map(d -> d.name()).orElse(null);
    } catch (FindException | SecurityException e) {
      return null;
    }
  }

  private static Path mavenRepository() {
    String local = System.getProperty("maven.repo.local");
    return local != null && !local.isBlank() ? Path.of(local)
        : Path.of(System.getProperty("user.home"), ".m2", "repository");
  }

  private static Path gradleCache() {
    String home = System.getenv("GRADLE_USER_HOME");
    Path base = home != null && !home.isBlank() ? Path.of(home) : Path.of(System.getProperty("user.home"), ".gradle");
    return base.resolve("caches").resolve("modules-2").resolve("files-2.1");
  }

  /**
   * Prints the flags on one line; with {@code --lines}, one per line (for an argument file).
   *
   * @param args directories or jars to look in first, and optionally {@code --lines}
   */
  public static void main(String[] args) {
    System.exit(print(args, System.out, System.err));
  }

  /** What {@link #main} does, writing to {@code out} and {@code err}; returns the exit status. */
  public static int print(String[] args, PrintStream out, PrintStream err) {
    boolean lines = false;
    List<Path> places = new ArrayList<>();
    for (String arg : args) {
      if (arg.equals("--lines")) {
        lines = true;
      } else if (arg.equals("-h") || arg.equals("--help")) {
        out.println("usage: java -jar polyglot-sandbox.jar [--lines] [DIR_OR_JAR...]: prints the JVM flags that"
            + " run GraalVM's optimizing runtime on this JDK, with the compiler jars found on the class path, in"
            + " DIR_OR_JAR, the local Maven repository or Gradle's cache");
        return 0;
      } else if (arg.startsWith("-")) {
        err.println("unknown option " + arg + " (only --lines and directories or jars are accepted)");
        return 2;
      } else {
        places.add(Path.of(arg));
      }
    }
    try {
      out.println(String.join(lines ? System.lineSeparator() : " ", flags(places)));
      return 0;
    } catch (IllegalStateException e) {
      err.println(e.getMessage());
      return 1;
    }
  }
}
