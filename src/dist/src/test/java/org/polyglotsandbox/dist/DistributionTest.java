package org.polyglotsandbox.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution as a user gets it: the tar.gz this build made, unpacked in a new directory and run
 * with nothing but a JDK. The environment is emptied; PATH is the JDK's bin and a directory of the
 * few system tools bin/sandbox calls (no Maven), HOME a new directory (no ~/.m2, no earlier caches).
 * Runs after {@code package} (phase integration-test), with {@code -Dgroups=slow}.
 */
@Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DistributionTest {
  /** What bin/sandbox, bin/jdk.sh and bin/startup-cache.sh call; the worker's wall finds bwrap and prlimit itself. */
  private static final List<String> TOOLS = List.of("bash", "sh", "env", "dirname", "readlink", "basename", "sed",
      "find", "cat", "sha256sum", "cut", "stat", "tr", "paste", "grep", "mkdir", "rm", "mv", "touch", "flock", "sort",
      "head");

  @TempDir
  static Path dir;

  private Path home;
  private Path unpacked;
  private String pathVariable;

  private record Result(int status, String out, String err) {}

  @BeforeAll
  void unpack() throws Exception {
    Path archive = Path.of(System.getProperty("dist.archive"));
    assertThat(archive).as("the distribution (bin/mvn package makes it)").isRegularFile();
    Path into = Files.createDirectories(dir.resolve("opt"));
    Result untar = run(List.of("tar", "-xzf", archive.toString(), "-C", into.toString()), Map.of(), dir);
    assertThat(untar.status()).as(untar.toString()).isZero();
    try (Stream<Path> top = Files.list(into)) {
      unpacked = top.findFirst().orElseThrow();
    }
    home = Files.createDirectories(dir.resolve("home"));
    Path tools = Files.createDirectories(dir.resolve("tools"));
    for (String tool : TOOLS) {
      Path found = Stream.of("/usr/bin", "/bin").map(d -> Path.of(d, tool)).filter(Files::isExecutable)
          .findFirst().orElseThrow(() -> new AssertionError(tool + " is not in /usr/bin or /bin"));
      // A script rather than a symbolic link: @TempDir's clean-up warns about every link leading outside it.
      Path wrapper = Files.writeString(tools.resolve(tool), "#!/bin/sh\nexec " + found + " \"$@\"\n");
      assertThat(wrapper.toFile().setExecutable(true)).isTrue();
    }
    pathVariable = Path.of(System.getProperty("java.home"), "bin") + ":" + tools;
    Files.writeString(dir.resolve("answer.js"), "6*7");
  }

  private Result run(List<String> command, Map<String, String> env, Path cwd) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile())
        .redirectOutput(dir.resolve("stdout").toFile())
        .redirectError(dir.resolve("stderr").toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish in 5 minutes");
    }
    return new Result(p.exitValue(), Files.readString(dir.resolve("stdout"), StandardCharsets.UTF_8),
        Files.readString(dir.resolve("stderr"), StandardCharsets.UTF_8));
  }

  private Result sandbox(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(unpacked.resolve("bin/sandbox").toString()));
    command.addAll(List.of(args));
    return run(command, Map.of("PATH", pathVariable, "HOME", home.toString()), dir);
  }

  private static void assertAnswered42OnTheOptimizingRuntime(Result r) {
    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString()).contains("\"outcome\":\"OK\"").contains("\"value\":42,");
    assertThat(r.err()).as("no fallback runtime or interpreter, no build").doesNotContain("fallback", "building");
  }

  /** Every file and directory under the unpacked distribution, with its size and modification time. */
  private Map<String, String> snapshot() throws IOException {
    Map<String, String> all = new TreeMap<>();
    try (Stream<Path> files = Files.walk(unpacked)) {
      for (Path p : files.toList()) {
        all.put(unpacked.relativize(p).toString(), Files.size(p) + " " + Files.getLastModifiedTime(p));
      }
    }
    return all;
  }

  @Test
  @Order(1)
  void run_answers42_makingItsStartUpCacheInTheUsersCache_writingNothingBesideTheJars() throws Exception {
    Map<String, String> before = snapshot();

    Result first = sandbox("run", "answer.js", "--json");

    assertAnswered42OnTheOptimizingRuntime(first);
    assertThat(first.err()).contains("making the start-up cache for js");
    try (Stream<Path> made = Files.walk(home.resolve(".cache/polyglot-sandbox/startup"))) {
      assertThat(made.filter(p -> p.getFileName().toString().equals("js.aot"))).hasSize(1);
    }
    assertThat(snapshot()).as("the unpacked directory may be read-only").isEqualTo(before);

    Result second = sandbox("run", "answer.js", "--json");
    assertAnswered42OnTheOptimizingRuntime(second);
    assertThat(second.err()).as("the cache is made once").isEmpty();
  }

  @Test
  @Order(2)
  void runInAWorkerProcess_answers42() throws Exception {
    Result r = sandbox("run", "answer.js", "--json", "--isolation", "process");

    assertAnswered42OnTheOptimizingRuntime(r);
    assertThat(r.err()).contains("process isolation: 1 worker JVM");
  }
}
