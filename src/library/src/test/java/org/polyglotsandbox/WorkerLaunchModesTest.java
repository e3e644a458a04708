package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An application that runs its guests in worker processes starts them however it is packaged: on a plain
 * class path, as an executable jar whose manifest names its class path, on the module path (a folder of
 * jars, as {@code java -p} takes it) and as a Spring Boot executable jar (the library and GraalVM nested in
 * {@code BOOT-INF/lib}). Each test builds that application from this build's library classes, runs it in a
 * fresh JVM of this JDK with no JVM flags at all, as an embedder's would start, and reads what it printed:
 * one JavaScript and one Python value, the runtime the worker reported (the optimizing one: the library
 * gives workers its flags, finding the compiler jars itself), the worker's class path as the operating
 * system shows it, and no word of GraalVM's fallback interpreter.
 *
 * <p>The jars come from Maven (this module's runtime class path), and the Spring Boot jar from Maven's
 * {@code spring-boot-maven-plugin} on a small project under {@code target/}; the first run downloads that
 * plugin and Spring Boot from Maven Central.
 */
@Tag("slow")
class WorkerLaunchModesTest {
  private static final Path ROOT = PlainJvm.projectRoot();
  private static final Path WORK = ROOT.resolve("src/library/target/worker-launch-modes");
  private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
  private static final String JAVAC = Path.of(System.getProperty("java.home"), "bin", "javac").toString();

  private static final String GUESTS = """
      package app;

      import java.io.IOException;
      import java.nio.file.Files;
      import java.nio.file.Path;
      import java.util.List;
      import org.polyglotsandbox.ExecutionResult;
      import org.polyglotsandbox.PolyglotSandbox.Isolation;
      import org.polyglotsandbox.Language;
      import org.polyglotsandbox.Policy;
      import org.polyglotsandbox.PolyglotSandbox;

      /** Runs one program of each language in a worker process and prints what the test reads. */
      public final class Guests {
        private Guests() {}

        public static void run() {
          try (PolyglotSandbox sandbox = PolyglotSandbox.builder()
              .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON))
              .isolation(Isolation.processBuilder().workers(1).spareWorkers(0).build())
              .build()) {
            ExecutionResult js = sandbox.run(Language.JAVASCRIPT, "'js:' + [1, 2, 3].map(x => x * 7).join('-')");
            System.out.println("JS " + js.outcome() + " " + js.value());
            ExecutionResult py = sandbox.run(Language.PYTHON, "'py:' + str(sum(x * x for x in range(1, 11)))");
            System.out.println("PYTHON " + py.outcome() + " " + py.value());
            System.out.println("RUNTIME " + sandbox.runtimeName());
            ProcessHandle.current().children().forEach(worker -> {
              List<String> args = arguments(worker);
              int cp = args.indexOf("-cp");
              System.out.println("WORKER_CLASS_PATH " + (cp < 0 ? "none in " + args : args.get(cp + 1)));
            });
          }
        }

        /** The worker's command line as Linux has it: ProcessHandle.Info reads only its first page. */
        private static List<String> arguments(ProcessHandle process) {
          try {
            String cmdline = Files.readString(Path.of("/proc", Long.toString(process.pid()), "cmdline"));
            return List.of(cmdline.split("\\0"));
          } catch (IOException e) {
            return List.of(process.info().arguments().orElse(new String[0]));
          }
        }
      }
      """;
  private static final String PLAIN_MAIN = """
      package app;

      public final class Main {
        private Main() {}

        public static void main(String[] args) {
          Guests.run();
        }
      }
      """;
  private static final String BOOT_MAIN = """
      package app;

      import org.springframework.boot.SpringApplication;
      import org.springframework.context.ConfigurableApplicationContext;

      /** A Spring Boot application: the sandbox runs once its context has started. */
      public class Main {
        public static void main(String[] args) {
          try (ConfigurableApplicationContext context = SpringApplication.run(Main.class,
              "--spring.main.banner-mode=off")) {
            Guests.run();
          }
        }
      }
      """;

  /** This build's library classes as a (modular) jar, and the library's runtime dependencies. */
  private static Path libraryJar;
  private static List<Path> dependencies;

  @BeforeAll
  static void buildLibraryJarAndFindItsDependencies() throws Exception {
    long start = System.nanoTime();
    if (Files.exists(WORK)) {
      deleteTree(WORK);
    }
    Files.createDirectories(WORK);
    libraryJar = jarOfLibraryClasses(WORK.resolve("polyglot-sandbox-" + projectVersion() + ".jar"));
    Path classPathFile = WORK.resolve("runtime-class-path.txt");
    maven(WORK.resolve("maven-class-path.log"), "dependency:build-classpath", "-pl", "src/library",
        "-DincludeScope=runtime", "-Dmdep.outputFile=" + classPathFile);
    dependencies = Arrays.stream(Files.readString(classPathFile).strip().split(File.pathSeparator))
        .filter(e -> e.endsWith(".jar")).map(Path::of).toList();
    assertThat(dependencies).as("the library's runtime class path")
        .anySatisfy(p -> assertThat(p.getFileName().toString()).startsWith("polyglot-"))
        .anySatisfy(p -> assertThat(p.getFileName().toString()).startsWith("python-language-"));
    System.out.printf("library jar and runtime class path: %.1f s%n", (System.nanoTime() - start) / 1e9);
  }

  @Test
  void onAPlainClassPath_theWorkerStarts() throws Exception {
    Path dir = Files.createDirectories(WORK.resolve("class-path"));
    Path classes = compile(dir, List.of("-cp", libraryJar.toString()), Map.of("app/Guests.java", GUESTS,
        "app/Main.java", PLAIN_MAIN));
    List<String> classPath = new ArrayList<>(List.of(classes.toString(), libraryJar.toString()));
    dependencies.forEach(d -> classPath.add(d.toString()));

    App app = run(dir, Map.of(), JAVA, "-cp", String.join(File.pathSeparator, classPath), "app.Main");

    app.assertRanBothLanguagesInAnOptimizedWorker();
    assertThat(app.workerClassPath()).contains(libraryJar.toRealPath());
  }

  @Test
  void asAJarWhoseManifestNamesItsClassPath_theWorkerStarts() throws Exception {
    // java.class.path names app.jar alone; the library and GraalVM are in lib/, named by its manifest.
    Path dir = Files.createDirectories(WORK.resolve("manifest-class-path"));
    Path classes = compile(dir, List.of("-cp", libraryJar.toString()), Map.of("app/Guests.java", GUESTS,
        "app/Main.java", PLAIN_MAIN));
    Path lib = Files.createDirectories(dir.resolve("lib"));
    List<String> manifestClassPath = new ArrayList<>();
    for (Path jar : withLibrary(dependencies)) {
      Files.createSymbolicLink(lib.resolve(jar.getFileName()), jar.toAbsolutePath());
      manifestClassPath.add("lib/" + jar.getFileName());
    }
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "app.Main");
    manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", manifestClassPath));
    Path appJar = jar(classes, dir.resolve("app.jar"), manifest);

    App app = run(dir, Map.of(), JAVA, "-jar", appJar.toString());

    app.assertRanBothLanguagesInAnOptimizedWorker();
  }

  @Test
  void onTheModulePath_asAFolderOfJars_theWorkerStarts() throws Exception {
    Path dir = Files.createDirectories(WORK.resolve("module-path"));
    Path mods = Files.createDirectories(dir.resolve("mods"));
    for (Path jar : withLibrary(dependencies)) {
      Files.createSymbolicLink(mods.resolve(jar.getFileName()), jar.toAbsolutePath());
    }
    Path module = compile(dir, List.of("-p", mods.toString()), Map.of("module-info.java",
        "module app {\n  requires org.polyglotsandbox;\n}\n", "app/Guests.java", GUESTS, "app/Main.java", PLAIN_MAIN));

    App app = run(dir, Map.of(), JAVA, "-p", mods + File.pathSeparator + module, "-m", "app/app.Main");

    app.assertRanBothLanguagesInAnOptimizedWorker();
    assertThat(app.workerClassPath()).as("the folder gives way to the jars in it").doesNotContain(mods)
        .contains(libraryJar.toRealPath())
        .allSatisfy(p -> assertThat(Files.isRegularFile(p) || Files.isRegularFile(p.resolve("module-info.class")))
            .as("%s is a jar or an exploded module", p).isTrue());
  }

  @Test
  void asASpringBootExecutableJar_theWorkerStarts_fromPrivateReadOnlyCopiesOfTheNestedJars() throws Exception {
    Path project = Files.createDirectories(WORK.resolve("spring-boot"));
    Files.writeString(project.resolve("pom.xml"), bootPom(project));
    for (Map.Entry<String, String> source : Map.of("app/Guests.java", GUESTS, "app/Main.java", BOOT_MAIN).entrySet()) {
      Path file = project.resolve("src/main/java").resolve(source.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, source.getValue());
    }
    long start = System.nanoTime();
    maven(project.resolve("maven-package.log"), "-f", project.resolve("pom.xml").toString(), "package",
        "-DskipTests");
    System.out.printf("Spring Boot jar built by Maven: %.1f s%n", (System.nanoTime() - start) / 1e9);
    Path bootJar = project.resolve("target/launch-modes-app.jar");
    List<String> nested = new ArrayList<>();
    try (JarFile jar = new JarFile(bootJar.toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class")).contains("springframework.boot.loader");
      jar.stream().map(JarEntry::getName).filter(n -> n.startsWith("BOOT-INF/lib/") && n.endsWith(".jar"))
          .forEach(n -> nested.add(n.substring("BOOT-INF/lib/".length())));
    }
    assertThat(nested).contains(libraryJar.getFileName().toString());

    // A cache of the test's own, so the copies are made (and checked) on every run; GraalPy's home stays
    // where it is, for it is not what this test is about and takes seconds to unpack.
    Path cacheHome = project.resolve("cache-home");
    String graalPyCache = Path.of(System.getProperty("user.home"), ".cache", "org.graalvm.polyglot").toString();
    App app = run(project, Map.of("XDG_CACHE_HOME", cacheHome.toString()), JAVA,
        "-Dpolyglot.engine.userResourceCache=" + graalPyCache, "-jar", bootJar.toString());

    app.assertRanBothLanguagesInAnOptimizedWorker();
    Path copies = cacheHome.resolve("polyglot-sandbox/nested-jars");
    assertThat(app.workerClassPath()).as("the nested jars, copied out").isNotEmpty()
        .allSatisfy(p -> assertThat(p).startsWith(copies).isRegularFile())
        .extracting(p -> p.getFileName().toString()).containsExactlyInAnyOrderElementsOf(nested);
    for (Path copy : app.workerClassPath()) {
      assertThat(Files.getPosixFilePermissions(copy)).as(copy.toString()).containsExactly(PosixFilePermission.OWNER_READ);
    }
    assertThat(Files.getPosixFilePermissions(copies)).as("nobody else may write where workers load code from")
        .doesNotContain(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
  }

  /** What an application run printed, and the checks every packaging must pass. */
  private record App(String command, int status, String stdout, String stderr, double seconds) {
    void assertRanBothLanguagesInAnOptimizedWorker() {
      String context = "%s%nexit %d after %.1f s%n--- stdout%n%s--- stderr%n%s".formatted(command, status, seconds,
          stdout, stderr);
      assertThat(status).as(context).isZero();
      assertThat(stdout.lines()).as(context).contains("JS OK js:7-14-21", "PYTHON OK py:385");
      assertThat(stdout.lines().filter(l -> l.startsWith("RUNTIME "))).as(context).singleElement()
          .satisfies(l -> assertThat(l).as("the worker's runtime").isNotIn("RUNTIME Interpreted", "RUNTIME unknown"));
      assertThat((stdout + stderr).lines().filter(l -> l.contains("fallback interpreter") || l.contains("fallback runtime")))
          .as("warnings of the fallback interpreter, from the host or a worker (\"worker N: ...\")").isEmpty();
      assertThat(stdout.lines().filter(l -> l.startsWith("WORKER_CLASS_PATH "))).as(context).hasSize(1);
      System.out.printf("%s: %.1f s%n", command, seconds);
    }

    List<Path> workerClassPath() {
      String line = stdout.lines().filter(l -> l.startsWith("WORKER_CLASS_PATH ")).findFirst().orElseThrow();
      return Arrays.stream(line.substring("WORKER_CLASS_PATH ".length()).split(File.pathSeparator))
          .map(Path::of).toList();
    }
  }

  private static App run(Path dir, Map<String, String> env, String... command) throws IOException, InterruptedException {
    Path out = dir.resolve("app.out");
    Path err = dir.resolve("app.err");
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile())
        .redirectError(err.toFile());
    pb.environment().putAll(env);
    long start = System.nanoTime();
    Process p = pb.start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor();
      throw new AssertionError("did not finish in 5 minutes: " + String.join(" ", command) + "\n"
          + Files.readString(err));
    }
    return new App(String.join(" ", command), p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8), (System.nanoTime() - start) / 1e9);
  }

  /** Runs the project's Maven (bin/mvn) with this JDK; fails with the log's end if it fails. */
  private static void maven(Path log, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(ROOT.resolve("bin/mvn").toString(), "-B", "-q"));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process p = pb.start();
    boolean finished = p.waitFor(10, TimeUnit.MINUTES);
    if (!finished) {
      p.destroyForcibly().waitFor();
    }
    if (!finished || p.exitValue() != 0) {
      List<String> lines = Files.readAllLines(log);
      throw new AssertionError((finished ? "failed" : "did not finish in 10 minutes") + ": " + command + "\n"
          + String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size())));
    }
  }

  /** Compiles {@code sources} (relative path to text) with {@code options}; returns the classes' directory. */
  private static Path compile(Path dir, List<String> options, Map<String, String> sources)
      throws IOException, InterruptedException {
    Path src = dir.resolve("src");
    Path classes = Files.createDirectories(dir.resolve("classes"));
    List<String> command = new ArrayList<>(List.of(JAVAC, "-d", classes.toString()));
    command.addAll(options);
    for (Map.Entry<String, String> source : sources.entrySet()) {
      Path file = src.resolve(source.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, source.getValue());
      command.add(file.toString());
    }
    Process javac = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(javac.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(javac.waitFor()).as("javac:%n%s", output).isZero();
    return classes;
  }

  private static List<Path> withLibrary(List<Path> jars) {
    List<Path> all = new ArrayList<>(List.of(libraryJar));
    all.addAll(jars);
    return all;
  }

  /** The library's classes this test runs against, as a jar (so a module path sees its module-info). */
  private static Path jarOfLibraryClasses(Path target) throws Exception {
    Path classes = Path.of(PolyglotSandbox.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    if (Files.isRegularFile(classes)) {
      return Files.copy(classes, target);
    }
    assertThat(classes.resolve("module-info.class")).as("the library's module descriptor").isRegularFile();
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    // As the library's own jar is: its seccomp installer lives in META-INF/versions/22.
    manifest.getMainAttributes().put(Attributes.Name.MULTI_RELEASE, "true");
    return jar(classes, target, manifest);
  }

  private static Path jar(Path classes, Path target, Manifest manifest) throws IOException {
    try (OutputStream file = Files.newOutputStream(target); JarOutputStream jar = new JarOutputStream(file, manifest);
        Stream<Path> all = Files.walk(classes)) {
      for (Path p : all.filter(Files::isRegularFile).sorted().toList()) {
        jar.putNextEntry(new JarEntry(classes.relativize(p).toString().replace(File.separatorChar, '/')));
        Files.copy(p, jar);
        jar.closeEntry();
      }
    }
    return target;
  }

  /**
   * A Spring Boot application's POM: the project's parent (for the versions it manages), the library's own
   * runtime dependencies as its POM declares them, Spring Boot, the library jar of this build, and
   * {@code spring-boot-maven-plugin}'s {@code repackage}.
   */
  private static String bootPom(Path project) throws Exception {
    // The test sources are compiled into the library's module, which does not read java.xml: plain text.
    StringBuilder deps = new StringBuilder();
    String libraryPom = Files.readString(ROOT.resolve("src/library/pom.xml"));
    Matcher dependency = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL).matcher(libraryPom);
    while (dependency.find()) {
      if (!dependency.group(1).contains("<scope>test</scope>")) {
        deps.append("    <dependency>").append(dependency.group(1).strip().replaceAll("\\s*\n\\s*", ""))
            .append("</dependency>\n");
      }
    }
    assertThat(deps).as("the library's dependencies").contains("<artifactId>polyglot</artifactId>");
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <parent>
            <groupId>org.polyglotsandbox</groupId>
            <artifactId>polyglot-sandbox-parent</artifactId>
            <version>%s</version>
            <relativePath>%s</relativePath>
          </parent>
          <artifactId>launch-modes-app</artifactId>
          <dependencies>
        %s    <dependency>
              <groupId>org.springframework.boot</groupId>
              <artifactId>spring-boot</artifactId>
              <version>${spring-boot.version}</version>
            </dependency>
            <!-- This build's library, not whatever snapshot the local repository holds. -->
            <dependency>
              <groupId>org.polyglotsandbox</groupId>
              <artifactId>polyglot-sandbox</artifactId>
              <version>${project.version}</version>
              <scope>system</scope>
              <systemPath>${project.basedir}/%s</systemPath>
            </dependency>
          </dependencies>
          <build>
            <finalName>launch-modes-app</finalName>
            <plugins>
              <plugin>
                <groupId>org.springframework.boot</groupId>
                <artifactId>spring-boot-maven-plugin</artifactId>
                <version>${spring-boot.version}</version>
                <configuration>
                  <mainClass>app.Main</mainClass>
                  <includeSystemScope>true</includeSystemScope>
                </configuration>
                <executions>
                  <execution><goals><goal>repackage</goal></goals></execution>
                </executions>
              </plugin>
            </plugins>
          </build>
        </project>
        """.formatted(projectVersion(), project.relativize(ROOT.resolve("pom.xml")).toString().replace('\\', '/'),
        deps, project.relativize(libraryJar).toString().replace('\\', '/'));
  }

  /** The project's version: the root POM's own, the first at two spaces' indent (as .ci/run reads it). */
  private static String projectVersion() throws IOException {
    Matcher version = Pattern.compile("(?m)^  <version>(.+)</version>$").matcher(Files.readString(ROOT.resolve("pom.xml")));
    assertThat(version.find()).as("the root POM's version").isTrue();
    return version.group(1);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        if (!Files.isSymbolicLink(p) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          p.toFile().setWritable(true, true);
        }
        Files.deleteIfExists(p);
      }
    }
  }
}
