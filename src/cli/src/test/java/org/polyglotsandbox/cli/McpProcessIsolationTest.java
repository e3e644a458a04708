package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/sandbox mcp --isolation process --weak-wall} on stdio, driven by the MCP Java SDK's client:
 * runs in both languages go to worker JVMs that are the server's own descendants, and workers killed with
 * SIGKILL mid-run answer the call at once, after which the server starts others and answers again.
 */
@Tag("slow")
class McpProcessIsolationTest {
  @TempDir
  static Path dir;

  private static McpServerProcess server;

  @BeforeAll
  static void start() throws IOException, InterruptedException {
    Path policy = dir.resolve("policy.json");
    Files.writeString(policy, """
        {"languages": ["js", "python"], "limits": {"wallTime": "60s", "maxCpuTime": "60s",
         "maxStatements": 1000000000000000}}""");
    server = new McpServerProcess("--policy", policy.toString(), "--isolation", "process", "--weak-wall");
    // Three worker JVMs start GraalJS and GraalPy cold; a call made before they are ready can be refused
    // as busy after the sandbox's 30 s start timeout, so the tests start once the server says it is ready.
    server.awaitReady(Duration.ofMinutes(5));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> structured(CallToolResult r) {
    return (Map<String, Object>) r.structuredContent();
  }

  /**
   * A process's whole command line, its arguments joined by spaces; empty once it has ended. Read from
   * {@code /proc}: {@code ProcessHandle.Info} cuts it at 4 KiB, before a JVM's long class path ends.
   */
  private static String commandLine(ProcessHandle p) {
    try {
      return new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")),
          StandardCharsets.UTF_8).replace('\0', ' ');
    } catch (IOException e) {
      return "";
    }
  }

  /** The server's JVM: bin/sandbox execs it, so it is this JVM's child running the CLI's mcp command. */
  private static ProcessHandle serverJvm() {
    List<ProcessHandle> found = ProcessHandle.current().children()
        .filter(p -> commandLine(p).contains(" org.polyglotsandbox.cli.SandboxCli mcp ")).toList();
    assertThat(found).as("the server's JVM among this JVM's children").hasSize(1);
    return found.get(0);
  }

  /** The worker JVMs among {@code server}'s descendants (bwrap, which starts them when walled, left out). */
  private static List<ProcessHandle> workerJvms(ProcessHandle server) {
    return server.descendants()
        .filter(p -> p.info().command().orElse("").endsWith("/java")
            && commandLine(p).contains(" org.polyglotsandbox.internal.worker.WorkerMain"))
        .toList();
  }

  @Test
  void bothLanguages_runInWorkers_andStderrAndTheToolDescriptionsSaySo() {
    CallToolResult js = server.call("run_javascript", Map.of("code", "console.log('hi'); 6 * 7"));
    CallToolResult py = server.call("run_python", Map.of("code", "print('py')\nsum(range(10))"));

    assertThat(structured(js)).containsEntry("outcome", "OK").containsEntry("value", 42).containsEntry("stdout", "hi\n");
    assertThat(structured(py)).containsEntry("outcome", "OK").containsEntry("value", 45).containsEntry("stdout", "py\n");
    assertThat(server.stderr.stream().filter(l -> l.startsWith("sandbox mcp: ") && l.contains("isolation")))
        .as("one line says process isolation is in force: " + server.stderr).singleElement().asString()
        .startsWith("sandbox mcp: process isolation: 2 worker JVMs (+1 spare), 512 MiB heap each, in ");
    assertThat(server.client.listTools().tools()).extracting(McpSchema.Tool::description)
        .allSatisfy(d -> assertThat(d).endsWith("Each call runs in a separate worker process; a call whose worker"
            + " process ended unexpectedly ends CANCELLED and may be tried again."));
  }

  @Test
  void workersAreTheServersDescendants_andKillingThemMidRun_answersTheCall_andALaterCallSucceeds() throws Exception {
    ProcessHandle jvm = serverJvm();
    // Workers start one at a time: the spare may still be on its way when the server says it is ready.
    long started = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (workerJvms(jvm).size() < 3 && System.nanoTime() < started) {
      Thread.sleep(100);
    }
    List<ProcessHandle> workers = workerJvms(jvm);
    assertThat(workers).as("2 workers and 1 spare, all below the server").hasSize(3);

    server.progress.clear();
    CompletableFuture<CallToolResult> pending = CompletableFuture.supplyAsync(() -> server.client.callTool(
        McpSchema.CallToolRequest.builder("run_javascript").arguments(Map.of("code", "while (true) {}"))
            .progressToken("spin").build()));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (server.progress.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(server.progress).as("the run is in its loop (progress past 1 s)").isNotEmpty();

    long killedAt = System.nanoTime();
    workers.forEach(ProcessHandle::destroyForcibly);   // SIGKILL

    CallToolResult answered = pending.get(30, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).as("answered at once, not at its 60 s cap")
        .isLessThan(Duration.ofSeconds(30));
    assertThat(structured(answered)).containsEntry("outcome", "CANCELLED");
    assertThat((String) structured(answered).get("error"))
        .contains("its worker process ended unexpectedly", "the run may be tried again");
    for (ProcessHandle w : workers) {
      assertThat(w.onExit()).succeedsWithin(Duration.ofSeconds(10));
    }

    // Replacements start cold; until one is ready a call is refused as busy (NOT_RUN), never left hanging.
    CallToolResult after = null;
    long giveUp = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (System.nanoTime() < giveUp) {
      after = server.call("run_python", Map.of("code", "6 * 7"));
      if (!"NOT_RUN".equals(structured(after).get("outcome"))) {
        break;
      }
      assertThat((String) structured(after).get("error")).contains("busy");
      Thread.sleep(1_000);
    }
    assertThat(structured(after)).containsEntry("outcome", "OK").containsEntry("value", 42);
    assertThat(workerJvms(jvm)).as("the replacements are the server's descendants too").isNotEmpty()
        .noneMatch(workers::contains);
  }
}
