package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/sandbox run --isolation process} as a user runs it (a new JVM, its workers children of it), on
 * this host and on a host whose OS refuses the wall: there the command is run inside {@code bwrap
 * --disable-userns}, where no process may make a user namespace, so the wall's namespaces cannot be made
 * (a real refusal by the kernel, not a stand-in). Uses the build this test run already made
 * ({@code SANDBOX_SKIP_BUILD=1}).
 */
@Tag("slow")
class ProcessIsolationCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path SCRIPT = McpServerProcess.SCRIPT;
  /** Runs a command where making a user namespace is refused: the wall's first layer is missing. */
  private static final List<String> NO_USER_NAMESPACES = List.of("bwrap", "--dev-bind", "/", "/", "--unshare-user",
      "--disable-userns", "--");

  @TempDir
  Path dir;

  private record Result(int status, String out, String err) {}

  private Result sandbox(List<String> prefix, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(prefix);
    command.add(SCRIPT.toString());
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "stdout", "");
    Path err = Files.createTempFile(dir, "stderr", "");
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().put("SANDBOX_SKIP_BUILD", "1");
    Process p = pb.start();
    // A worker JVM starts GraalJS and GraalPy cold: a minute or more on a loaded machine.
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError("bin/sandbox " + args[0] + " did not finish within 5 minutes; stderr: "
          + Files.readString(err));
    }
    return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /** Skips unless this host can run a command where user namespaces are refused. */
  private static void assumeNamespacesCanBeRefused() throws IOException, InterruptedException {
    List<String> probe = new ArrayList<>(NO_USER_NAMESPACES);
    probe.add("true");
    Process p;
    try {
      p = new ProcessBuilder(probe).redirectErrorStream(true).start();
    } catch (IOException e) {
      assumeTrue(false, "no bwrap on this host: " + e.getMessage());
      return;
    }
    assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0,
        "bwrap --disable-userns does not work here: " + new String(p.getInputStream().readAllBytes()));
  }

  @Test
  void runWithProcessIsolation_givesTheProgramsValue_inJavaScriptAndPython_andNamesTheWallOnStderr() throws Exception {
    Files.writeString(dir.resolve("answer.js"), "console.log('hi'); 6*7");
    Files.writeString(dir.resolve("answer.py"), "import sys\nprint('py')\n[sum(range(10)), sys.version_info[0]]\n");

    Result js = sandbox(List.of(), "run", "answer.js", "--isolation", "process", "--weak-wall", "--json");
    Result py = sandbox(List.of(), "run", "answer.py", "--isolation", "process", "--weak-wall", "--json");

    assertThat(js.status()).as(js.toString()).isZero();
    JsonNode j = JSON.readTree(js.out());
    assertThat(j.get("value").asInt()).isEqualTo(42);
    assertThat(j.get("stdout").asText()).isEqualTo("hi\n");
    assertThat(py.status()).as(py.toString()).isZero();
    JsonNode p = JSON.readTree(py.out());
    assertThat(p.get("value").toString()).isEqualTo("[45,3]");
    assertThat(p.get("stdout").asText()).isEqualTo("py\n");
    for (Result r : List.of(js, py)) {
      assertThat(r.err().lines().filter(l -> l.startsWith("sandbox run: ")))
          .as("one line names where the run went: " + r.err())
          .singleElement().asString().startsWith("sandbox run: process isolation: 1 worker JVM (+0 spare), 512 MiB");
    }
  }

  @Test
  void whereTheOsRefusesTheWall_processIsRefusedNamingWhatIsMissing_andWeakWallRunsInAPlainChildJvm() throws Exception {
    assumeNamespacesCanBeRefused();
    Files.writeString(dir.resolve("answer.js"), "6*7");

    Result refused = sandbox(NO_USER_NAMESPACES, "run", "answer.js", "--isolation", "process");
    Result weak = sandbox(NO_USER_NAMESPACES, "run", "answer.js", "--isolation", "process", "--weak-wall", "--json");

    assertThat(refused.status()).as(refused.toString()).isEqualTo(5);
    assertThat(refused.out()).isEmpty();
    assertThat(refused.err()).contains("sandbox run: the sandbox could not start: process isolation needs the"
        + " operating-system wall around its workers", "namespaces (missing: bwrap cannot make them here");
    assertThat(weak.status()).as(weak.toString()).isZero();
    assertThat(JSON.readTree(weak.out()).get("value").asInt()).isEqualTo(42);
    assertThat(weak.err()).contains("sandbox run: process isolation: 1 worker JVM (+0 spare), 512 MiB heap each, in"
        + " weak: a child JVM without namespaces, with rlimits, heap caps, the seccomp filter where it loads");
  }

  @Test
  void mcpWhereTheOsRefusesTheWall_fallsBackToInProcess_sayingWhyInOneLine_unlessProcessWasChosen() throws Exception {
    assumeNamespacesCanBeRefused();
    List<String> command = new ArrayList<>(NO_USER_NAMESPACES);
    command.addAll(List.of(SCRIPT.toString(), "mcp"));
    Path stderr = dir.resolve("stderr");
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(stderr.toFile());
    pb.environment().put("SANDBOX_SKIP_BUILD", "1");
    Process p = pb.start();
    try {
      OutputStream in = p.getOutputStream();
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      send(in, RawMcpProcess.INITIALIZE);
      assertThat(JSON.readTree(out.readLine()).get("id").asText()).isEqualTo("init");
      send(in, RawMcpProcess.INITIALIZED);
      send(in, """
          {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_javascript","arguments":{"code":"6*7"}}}""");
      JsonNode answer = JSON.readTree(out.readLine());
      assertThat(answer.get("result").get("structuredContent").get("value").asInt()).as(answer.toString()).isEqualTo(42);
      in.close();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the server exits once stdin closes").isTrue();

      List<String> lines = Files.readAllLines(stderr);
      assertThat(lines.stream().filter(l -> l.startsWith("sandbox mcp: ") && l.contains("isolation")))
          .as("one line says where guest code runs: " + lines).singleElement().asString()
          .startsWith("sandbox mcp: guest code runs in-process: process isolation is unavailable here (process"
              + " isolation needs the operating-system wall around its workers")
          .contains("namespaces (missing: bwrap cannot make them here")
          .endsWith("); choose with --isolation in-process, or with --isolation process --weak-wall for worker JVMs"
              + " without the whole wall");
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }

    Result chosen = sandbox(NO_USER_NAMESPACES, "mcp", "--isolation", "process");
    assertThat(chosen.status()).as("chosen explicitly, nothing falls back: " + chosen).isEqualTo(5);
    assertThat(chosen.err()).contains("sandbox mcp: the sandbox could not start: process isolation needs the"
        + " operating-system wall around its workers", "namespaces (missing: bwrap cannot make them here")
        .doesNotContain("in-process");
  }

  @Test
  void probeWithProcessIsolation_attacksTheOsWall_allRefusedInTheWall_andAWeakWallFailsTheProbe() throws Exception {
    Path policy = Files.writeString(dir.resolve("policy.json"), "{\"languages\": [\"js\"]}");

    Result walled = sandbox(List.of(), "probe", policy.toString(), "--isolation", "process", "--json");
    Result inProcess = sandbox(List.of(), "probe", policy.toString(), "--json");

    assertThat(walled.status()).as(walled.toString()).isZero();
    JsonNode w = JSON.readTree(walled.out());
    assertThat(w.get("passed").asBoolean()).isTrue();
    assertThat(w.get("wallAttacks")).hasSizeGreaterThanOrEqualTo(10)
        .allSatisfy(a -> assertThat(a.get("refused").asBoolean()).as(a.toString()).isTrue());
    assertThat(w.get("wallAttacks")).anySatisfy(a -> assertThat(a.get("name").asText()).isEqualTo("exec-shell"));
    assertThat(JSON.readTree(inProcess.out()).get("wallAttacks")).as("in-process: no wall to attack").isEmpty();

    assumeNamespacesCanBeRefused();
    Result weak = sandbox(NO_USER_NAMESPACES, "probe", policy.toString(), "--isolation", "process", "--weak-wall");
    // Without namespaces the worker sees the host's files: a write to / gets through (and is undone).
    assertThat(weak.status()).as("attacks get through a weak wall: " + weak).isEqualTo(1);
    assertThat(weak.out()).contains("the OS wall around a worker JVM, attacked from inside:")
        .containsPattern("\\n  write-root +a file in / +FAIL +wrote and removed /escape-")
        .containsPattern("\\nFAIL: [0-9]+ of [0-9]+ attacks got through the OS wall\\n");
  }

  private static void send(OutputStream in, String line) throws IOException {
    in.write((line.replace("\n", " ") + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }
}
