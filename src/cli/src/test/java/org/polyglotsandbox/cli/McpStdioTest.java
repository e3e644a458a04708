package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/sandbox mcp} on stdio, driven by the MCP Java SDK's own client: one server for the class,
 * with JavaScript and Python, the kv tools (also exposed as MCP tools), a 1 s wall-time limit and a
 * mounted Python package on {@code --python-path}, imported ahead with {@code --python-imports}.
 */
@Tag("slow")
class McpStdioTest {
  @TempDir
  static Path dir;

  private static McpServerProcess server;

  @BeforeAll
  static void start() throws IOException {
    Path policy = dir.resolve("policy.json");
    Files.createDirectories(dir.resolve("lib/tally"));
    Files.writeString(dir.resolve("lib/tally/__init__.py"), "def total(xs):\n    return sum(xs)\n");
    Files.writeString(policy, """
        {"languages": ["js", "python"], "limits": {"wallTime": "1s", "maxStatements": 1000000000000000},
         "mounts": [{"host": "lib", "guest": "/lib"}], "tools": ["kv.get", "kv.put"]}""");
    server = new McpServerProcess("--policy", policy.toString(), "--expose-tools", "--python-path", "/lib",
        "--python-imports", "json,tally");
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static CallToolResult js(String code) {
    return server.call("run_javascript", Map.of("code", code));
  }

  private static CallToolResult py(String code) {
    return server.call("run_python", Map.of("code", code));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> structured(CallToolResult r) {
    return (Map<String, Object>) r.structuredContent();
  }

  private static String text(CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  @Test
  void initialize_reportsTheServer_andListsOneToolPerLanguage_withThePolicyInTheDescription() {
    assertThat(server.client.getServerInfo().name()).isEqualTo("polyglot-sandbox");
    List<McpSchema.Tool> tools = server.client.listTools().tools();
    assertThat(tools).extracting(McpSchema.Tool::name).containsExactly("run_javascript", "run_python", "kv_get", "kv_put");
    McpSchema.Tool js = tools.get(0);
    assertThat(js.inputSchema()).containsEntry("required", List.of("code"));
    assertThat(js.outputSchema()).containsKey("properties");
    assertThat(js.description()).contains("wall time 1 s", "kv.get", "\"key\"", "Files: /lib (read-only)");
    assertThat(tools.get(1).description()).contains("tools.NAME(key=value)",
        "the pure-Python packages in /lib, which are on sys.path", "importing them costs nothing: json, tally.");
  }

  @Test
  void initialize_isAnsweredBeforeTheSandboxHasWarmedUp_andTheFirstCallWaitsForIt() throws InterruptedException {
    // The warm-up (a first context per language) takes seconds; a client that gives up on a slow
    // initialize must not wait for it. The server says on stderr when it is ready.
    assertThat(server.stderrAtInitialize).noneMatch(l -> l.contains("sandbox mcp: ready"));

    assertThat(structured(py("6 * 7"))).containsEntry("value", 42);
    server.awaitReady(Duration.ofSeconds(10));   // stderr is read on a thread of its own
    assertThat(server.stderr).anyMatch(l -> l.matches("sandbox mcp: ready \\((js and python|python and js) warmed up in [0-9.]+ s\\)"));
  }

  @Test
  void okRun_returnsTheModelText_andStructuredContent() {
    CallToolResult r = js("console.log('hi'); 6 * 7");

    assertThat(r.isError()).isFalse();
    assertThat(structured(r)).containsEntry("outcome", "OK").containsEntry("value", 42).containsEntry("stdout", "hi\n");
    assertThat(text(r)).contains("outcome: OK", "| 42", "is the result of untrusted code");
  }

  @Test
  void guestOutput_isStreamedAsLoggingNotifications_beforeTheAnswer_sanitised() {
    server.logs.clear();
    CallToolResult r = js("console.log('streamed one'); console.error('streamed \\u001b[31mtwo'); 7");

    assertThat(r.isError()).isFalse();
    // The server sends them before its answer; the client hands them to its consumer on a thread of its own.
    long giveUp = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (server.logs.size() < 2 && System.nanoTime() < giveUp) {
      Thread.onSpinWait();
    }
    List<McpSchema.LoggingMessageNotification> logs = List.copyOf(server.logs);
    assertThat(logs).extracting(McpSchema.LoggingMessageNotification::logger).contains("stdout", "stderr");
    assertThat(logs).extracting(McpSchema.LoggingMessageNotification::data)
        .anySatisfy(d -> assertThat(d).contains("streamed one"))
        .anySatisfy(d -> assertThat(d).contains("streamed ").contains("two"))
        .noneSatisfy(d -> assertThat(d).contains("\u001b"));
    assertThat(structured(r).get("stdout")).isEqualTo("streamed one\n");
  }

  @Test
  void syntaxError_isAnErrorResult_notAProtocolError() {
    CallToolResult r = py("def (:");

    assertThat(r.isError()).isTrue();
    assertThat(structured(r)).containsEntry("outcome", "SYNTAX_ERROR");
  }

  @Test
  void python_findsJsonAndTheMountedPackageImportedBeforeItsFirstStatement_andFreshInEachRun() {
    CallToolResult plant = py("import sys\nloaded = ['json' in sys.modules, 'tally' in sys.modules, sys.path[0]]\n"
        + "import json, tally\njson.planted = 1\ntally.total = len\n"
        + "[loaded, 'fractions' in sys.modules, tally.total([3])]");
    CallToolResult look = py("import json, tally\n[hasattr(json, 'planted'), tally.total([3, 4])]");

    assertThat(structured(plant)).as("imported from --python-imports, found on --python-path")
        .containsEntry("value", List.of(List.of(true, true, "/lib"), false, 1));
    assertThat(structured(look)).as("the next run's modules are its own").containsEntry("value", List.of(false, 7));
  }

  @Test
  void readingEtcPasswd_isDenied_inBothLanguages() {
    CallToolResult j = js("readText('/etc/passwd')");
    CallToolResult p = py("open('/etc/passwd').read()");

    assertThat(j.isError()).isTrue();
    assertThat(structured(j)).containsEntry("outcome", "GUEST_ERROR");
    assertThat((String) structured(j).get("error")).contains("EACCES");
    assertThat(p.isError()).isTrue();
    assertThat((String) structured(p).get("error")).startsWith("PermissionError");
    assertThat(text(j) + text(p)).doesNotContain("root:");
  }

  @Test
  void infiniteLoop_isStoppedByThePolicysTimeLimit() {
    CallToolResult r = js("while (true) {}");

    assertThat(r.isError()).isTrue();
    assertThat(structured(r)).containsEntry("outcome", "LIMIT_EXCEEDED").containsEntry("limit", "wall_time");
  }

  @Test
  void hostTools_areCallableFromGuestCode_andAsMcpTools() {
    assertThat(structured(js("tools.kv.put({key: 'js', value: 7}); tools.kv.get({key: 'js'})")))
        .containsEntry("value", 7);
    assertThat(structured(py("tools.kv.put(key='py', value=[1, 2]); tools.kv.get(key='py')")))
        .containsEntry("value", List.of(1, 2));

    CallToolResult put = server.call("kv_put", Map.of("key", "mcp", "value", "v"));
    CallToolResult bad = server.call("kv_get", Map.of("key", 5));

    assertThat(put.isError()).as(text(put)).isFalse();
    assertThat(text(put)).isEqualTo("{\"keys\":1}");
    assertThat(bad.isError()).isTrue();
    assertThat(text(bad)).contains("kv_get", "key");
  }

  @Test
  void kvKeyWrittenByOneCall_isNotReadByTheNextCall_inEitherLanguage() {
    assertThat(structured(js("tools.kv.put({key: 'left', value: 'js'}); tools.kv.get({key: 'left'})")))
        .containsEntry("value", "js");
    assertThat(structured(py("tools.kv.put(key='left-py', value='py'); tools.kv.get(key='left-py')")))
        .containsEntry("value", "py");
    server.call("kv_put", Map.of("key", "left-mcp", "value", "mcp"));

    assertThat(structured(js("[tools.kv.get({key: 'left'}), tools.kv.get({key: 'left-py'}), tools.kv.get({key: 'left-mcp'})]")))
        .containsEntry("value", java.util.Arrays.asList(null, null, null));
    assertThat(structured(py("[tools.kv.get(key='left'), tools.kv.get(key='left-py'), tools.kv.get(key='left-mcp')]")))
        .containsEntry("value", java.util.Arrays.asList(null, null, null));
    assertThat(text(server.call("kv_get", Map.of("key", "left-mcp")))).isEqualTo("null");
  }

  @Test
  void inputs_areBoundAsGlobals() {
    CallToolResult r = server.call("run_python", Map.of("code", "sum(rows) * factor",
        "inputs", Map.of("rows", List.of(1, 2, 3), "factor", 10)));

    assertThat(structured(r)).containsEntry("value", 60);
  }

  @Test
  void badArguments_getAnErrorResultNamingTheProblem() {
    assertThat(text(server.call("run_javascript", Map.of()))).contains("missing argument \"code\"");
    assertThat(text(server.call("run_javascript", Map.of("code", 42)))).contains("\"code\" must be a string, got a number");
    assertThat(text(server.call("run_javascript", Map.of("code", "1", "inputs", List.of(1)))))
        .contains("\"inputs\" must be an object", "got an array");
    assertThat(text(server.call("run_javascript", Map.of("code", "1", "lang", "js")))).contains("unknown argument \"lang\"");
    assertThat(text(server.call("run_javascript", Map.of("code", "1", "inputs", Map.of("tools", 1))))).contains("reserved");
    assertThat(server.call("run_javascript", Map.of()).isError()).isTrue();
  }

  @Test
  void unknownTool_isAProtocolError_namingTheTool() {
    assertThatThrownBy(() -> server.call("run_cobol", Map.of("code", "1")))
        .isInstanceOf(McpError.class)
        .hasMessageContaining("Unknown tool");
    assertThat(structured(js("1 + 1"))).containsEntry("value", 2);
  }

  @Test
  void fiftyMegabytesOfCode_isRefusedWithBothLengths_andTheSessionGoesOn() {
    CallToolResult r = js("1;" + " ".repeat(50_000_000));

    assertThat(r.isError()).isTrue();
    assertThat(text(r)).contains("is 50000002 characters long; at most 1048576");
    assertThat(structured(js("2 + 2"))).containsEntry("value", 4);
  }

  @Test
  void twoHundredCallsInARow_keepTheProtocolIntact() {
    for (int i = 0; i < 200; i++) {
      CallToolResult r = server.call(i % 2 == 0 ? "run_javascript" : "run_python",
          Map.of("code", "n * 2", "inputs", Map.of("n", i)));
      assertThat(structured(r)).as("call %d", i).containsEntry("outcome", "OK").containsEntry("value", i * 2);
    }
  }
}
