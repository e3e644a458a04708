package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/sandbox run}'s start-up cache ({@code bin/startup-cache.sh}): keyed on everything the build
 * and the JVM are made of, made once, used, refused without an error when it is damaged, and made
 * again when the key changes. The cache goes to a temporary directory ({@code SANDBOX_STARTUP_DIR}),
 * never the developer's; the build is the one this test run made ({@code SANDBOX_SKIP_BUILD=1}).
 */
class StartupCacheScriptTest {
  private static final Path BIN = Path.of("bin").toAbsolutePath();

  @TempDir
  Path dir;

  private record Result(int status, String out, String err) {}

  private Result bash(Map<String, String> env, String... command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(dir.resolve("stdout").toFile())
        .redirectError(dir.resolve("stderr").toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("%s finished", List.of(command)).isTrue();
    return new Result(p.exitValue(), Files.readString(dir.resolve("stdout"), StandardCharsets.UTF_8),
        Files.readString(dir.resolve("stderr"), StandardCharsets.UTF_8));
  }

  /** The keys startup_cache_keys prints for a fake build and JDK under {@code root}. */
  private String keys(Path root) throws IOException, InterruptedException {
    Path target = root.resolve("target");
    Result r = bash(Map.of(), "bash", "-c", "here=" + BIN + "; classpath=" + target.resolve("classes") + ":"
        + root.resolve("lib/classes") + ":" + root.resolve("dep.jar") + "; jit_dir=" + target.resolve("jit")
        + "; JAVA_HOME=" + root.resolve("jdk") + "; . " + BIN.resolve("startup-cache.sh")
        + "; startup_cache_keys \"$(printf '%s\\n' -XX:+EnableJVMCI)\"");
    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out().strip()).matches("[0-9a-f]{24} [0-9a-f]{16}");
    return r.out().strip();
  }

  /** The cache startup_cache_language picks for a command line: js, python, or none. */
  private String cacheFor(String arguments) throws IOException, InterruptedException {
    Result r = bash(Map.of(), "bash", "-c", "here=" + BIN + "; . " + BIN.resolve("startup-cache.sh")
        + "; startup_cache_language " + arguments);
    assertThat(r.status()).as(r.toString()).isZero();
    return r.out().strip();
  }

  @Test
  void language_ofRunFromItsFileOrFlag_pythonForProbeAndMcp_noneForTheRest() throws Exception {
    assertThat(cacheFor("run task.js --json")).isEqualTo("js");
    assertThat(cacheFor("run --policy p.json task.PY")).isEqualTo("python");
    assertThat(cacheFor("run --lang=python task.txt")).isEqualTo("python");
    assertThat(cacheFor("run --mount a.py:/data task.mjs")).as("a flag's value is not the file").isEqualTo("js");
    assertThat(cacheFor("run task.txt")).isEmpty();
    assertThat(cacheFor("run --help")).isEmpty();
    assertThat(cacheFor("probe")).isEqualTo("python");
    assertThat(cacheFor("probe guest-samples/policy.json --json")).isEqualTo("python");
    assertThat(cacheFor("mcp --http 8080")).isEqualTo("python");
    assertThat(cacheFor("policy explain p.json")).isEmpty();
    assertThat(cacheFor("stubs --lang ts")).isEmpty();
    assertThat(cacheFor("")).isEmpty();
  }

  @Test
  void key_changesWithEveryPartOfTheBuildAndTheJdk() throws Exception {
    Path root = dir.resolve("fake");
    Path target = Files.createDirectories(root.resolve("target"));
    Path cliClass = Files.createDirectories(target.resolve("classes/org/x")).resolve("Cli.class");
    Path libClass = Files.createDirectories(root.resolve("lib/classes/org/y")).resolve("Lib.class");
    Path jar = root.resolve("dep.jar");
    Path jit = Files.createDirectories(target.resolve("jit")).resolve("compiler.jar");
    Path release = Files.createDirectories(root.resolve("jdk/lib/server")).getParent().getParent().resolve("release");
    Files.writeString(cliClass, "cli");
    Files.writeString(libClass, "lib");
    Files.writeString(jar, "jar");
    Files.writeString(jit, "jit");
    Files.writeString(release, "JAVA_VERSION=\"25.0.3\"\n");

    String first = keys(root);
    assertThat(keys(root)).as("the same build, the same key").isEqualTo(first);

    List<String> seen = new ArrayList<>(List.of(first));
    Files.writeString(cliClass, "cli2"); // the CLI's own classes
    seen.add(changed(root, seen));
    Files.setLastModifiedTime(libClass, FileTime.fromMillis(1_000_000_000_000L)); // a module's classes, only their time
    seen.add(changed(root, seen));
    Files.writeString(jar, "jar, rebuilt"); // a dependency jar
    seen.add(changed(root, seen));
    Files.writeString(jit, "jit2"); // the JIT jars
    seen.add(changed(root, seen));
    Files.writeString(release, "JAVA_VERSION=\"25.0.4\"\n"); // another JDK
    String jdkChanged = changed(root, seen);
    assertThat(jdkChanged.split(" ")[1]).as("the JDK key").isNotEqualTo(first.split(" ")[1]);
  }

  private String changed(Path root, List<String> earlier) throws IOException, InterruptedException {
    String now = keys(root);
    assertThat(earlier).extracting(k -> k.split(" ")[0]).doesNotContain(now.split(" ")[0]);
    return now;
  }

  @Tag("slow")
  @Test
  void cache_isMadeOnce_used_refusedQuietlyWhenDamaged_andMadeAgainWhenTheFlagsChange() throws Exception {
    Files.writeString(dir.resolve("answer.js"), "6*7");
    Path cache = dir.resolve("cache");
    Map<String, String> env = new java.util.HashMap<>(Map.of("SANDBOX_SKIP_BUILD", "1", "SANDBOX_STARTUP_CACHE", "1",
        "SANDBOX_STARTUP_DIR", cache.toString()));
    String sandbox = BIN.resolve("sandbox").toString();

    Result made = bash(env, sandbox, "run", "answer.js", "--json");
    assertOneJsonObjectWith42(made);
    assertThat(made.err()).contains("making the start-up cache for js");
    Path aot = onlyFile(cache, "js.aot");

    Result used = bash(env, sandbox, "run", "answer.js", "--json");
    assertOneJsonObjectWith42(used);
    assertThat(used.err()).as("nothing to make, nothing to say").isEmpty();
    assertThat(onlyFile(cache, "js.aot")).isEqualTo(aot);

    Files.write(aot, new byte[4096]); // not an AOT cache any more: the JVM refuses it and starts without
    Result damaged = bash(env, sandbox, "run", "answer.js", "--json");
    assertOneJsonObjectWith42(damaged);
    assertThat(damaged.err()).as("a slower start, not an error").isEmpty();

    // Other JVM flags make another key: the old cache is stale, a new one is made and the old one deleted.
    env.put("SANDBOX_JAVA_OPTS", "-Xlog:aot=info:stderr");
    Result remade = bash(env, sandbox, "run", "answer.js", "--json");
    assertOneJsonObjectWith42(remade);
    assertThat(remade.err()).contains("making the start-up cache for js");
    Path newAot = onlyFile(cache, "js.aot");
    assertThat(newAot.getParent()).isNotEqualTo(aot.getParent());
    assertThat(aot.getParent()).doesNotExist();
    // The JVM's own word that the new cache is in use (the flag above turns its messages on).
    assertThat(remade.err()).contains("Opened AOT cache " + newAot);
  }

  @Tag("slow")
  @Test
  void mcp_startsFromThePythonCache_andAnswersInBothLanguages() throws Exception {
    Path cache = dir.resolve("cache");
    Map<String, String> env = Map.of("SANDBOX_SKIP_BUILD", "1", "SANDBOX_STARTUP_CACHE", "1",
        "SANDBOX_STARTUP_DIR", cache.toString(), "SANDBOX_JAVA_OPTS", "-Xlog:aot=info:stderr");
    String sandbox = BIN.resolve("sandbox").toString();

    // The first start makes the cache; stdin ends at once, so the server stops while it warms up.
    Result first = bash(env, "bash", "-c", "exec " + sandbox + " mcp </dev/null");
    assertThat(first.status()).as(first.toString()).isZero();
    assertThat(first.out()).as("nothing but protocol on stdout, and no client spoke").isEmpty();
    assertThat(first.err()).contains("making the start-up cache for python");
    Path aot = onlyFile(cache, "python.aot");

    try (McpServerProcess server = new McpServerProcess(env)) {
      assertThat(server.call("run_python", Map.of("code", "6 * 7")).structuredContent())
          .isEqualTo(Map.of("outcome", "OK", "value", 42, "stdout", "", "stderr", ""));
      assertThat(server.call("run_javascript", Map.of("code", "6 * 7")).structuredContent())
          .isEqualTo(Map.of("outcome", "OK", "value", 42, "stdout", "", "stderr", ""));
      // The JVM's own word that it started from the cache (-Xlog:aot above), and nothing was made again.
      assertThat(server.stderr).anyMatch(l -> l.contains("Opened AOT cache " + aot))
          .noneMatch(l -> l.contains("making the start-up cache"));
    }

    // `run` has the same JVM flags as `mcp` on stdio (C1 only) and starts from the same cache.
    Files.writeString(dir.resolve("answer.py"), "6*7");
    Result job = bash(env, sandbox, "run", "answer.py", "--json");
    assertOneJsonObjectWith42(job);
    assertThat(job.err()).contains("Opened AOT cache " + aot).doesNotContain("making the start-up cache");

    // `mcp --http` keeps C2 (other flags): it makes a cache of its own before the JVM starts, and keeps the other.
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", "exec " + sandbox + " mcp --http 127.0.0.1:0")
        .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("http.log").toFile());
    pb.environment().putAll(env);
    Process http = pb.start();
    http.getOutputStream().close();
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
      while (pythonCaches(cache).size() < 2 && http.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(500);
      }
    } finally {
      http.destroy();
      http.waitFor(30, TimeUnit.SECONDS);
    }
    assertThat(pythonCaches(cache)).as("%s", Files.readString(dir.resolve("http.log"))).hasSize(2).contains(aot);
  }

  /** Every Python AOT cache under {@code cache}, made or being made. */
  private static List<Path> pythonCaches(Path cache) throws IOException {
    try (Stream<Path> files = Files.walk(cache)) {
      return files.filter(p -> p.getFileName().toString().equals("python.aot")).toList();
    }
  }

  private static void assertOneJsonObjectWith42(Result r) throws IOException {
    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out().lines()).as(r.toString()).hasSize(1);
    assertThat(new ObjectMapper().readTree(r.out()).get("value").asInt()).isEqualTo(42);
  }

  private static Path onlyFile(Path root, String name) throws IOException {
    List<Path> all;
    try (Stream<Path> files = Files.walk(root)) {
      all = files.toList();
    }
    List<Path> found = all.stream().filter(p -> p.getFileName().toString().equals(name)).toList();
    StringBuilder why = new StringBuilder("files: " + all);
    for (Path p : all) {
      String n = p.getFileName().toString();
      if (n.endsWith(".log") || n.endsWith(".failed")) {
        String text = Files.readString(p, StandardCharsets.UTF_8);
        why.append("\n").append(p).append(":\n").append(text, Math.max(0, text.length() - 3000), text.length());
      }
    }
    assertThat(found).as("%s", why).hasSize(1);
    return found.get(0);
  }
}
