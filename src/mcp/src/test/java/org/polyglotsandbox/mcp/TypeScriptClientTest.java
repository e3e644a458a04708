package org.polyglotsandbox.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * The official TypeScript SDK's client ({@code @modelcontextprotocol/sdk} from npm, version pinned in the
 * root pom) against this server, over stdio (the SDK starts {@link McpTestServer} as a process) and over
 * Streamable HTTP on loopback. {@code src/test/resources/ts-client/client.mjs} makes the calls and prints
 * what came back; the assertions are here. Skipped when node or npm is missing, except in CI
 * ({@code CI=true}), where {@code .ci/run} installs them.
 */
@Tag("slow")
class TypeScriptClientTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path dir;

  @BeforeAll
  static void install() throws Exception {
    boolean ci = "true".equals(System.getenv("CI"));
    boolean haveNode = works("node", "--version") && works("npm", "--version");
    if (!haveNode) {
      assertThat(ci).as("CI must have node and npm (.ci/run installs them)").isFalse();
      Assumptions.abort("node or npm is not installed");
    }
    dir = Path.of(System.getProperty("mcp.ts.client.dir", "src/mcp/target/ts-client"));
    Files.createDirectories(dir);
    try (InputStream in = TypeScriptClientTest.class.getResourceAsStream("/ts-client/client.mjs")) {
      Files.write(dir.resolve("client.mjs"), in.readAllBytes());
    }
    String version = System.getProperty("mcp.ts.sdk.version");
    assertThat(version).as("the pinned TypeScript SDK version (root pom)").isNotBlank();
    Path installed = dir.resolve("node_modules/@modelcontextprotocol/sdk/package.json");
    if (!Files.exists(installed) || !JSON.readTree(installed.toFile()).get("version").asText().equals(version)) {
      Files.writeString(dir.resolve("package.json"), "{\"name\": \"mcp-ts-client-test\", \"private\": true, \"type\": \"module\"}");
      // Not inheritIO(): npm can leave the test JVM's stdin non-blocking (surefire then loses its command
      // channel: "std/in stream corrupted", and the fork does not exit), and its output on the JVM's own
      // stdout corrupts surefire's stream.
      Path log = dir.resolve("npm-install.log");
      Process npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
          "@modelcontextprotocol/sdk@" + version).directory(dir.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      assertThat(npm.waitFor(10, TimeUnit.MINUTES)).as("npm install finished").isTrue();
      assertThat(npm.exitValue()).as("npm install @modelcontextprotocol/sdk@%s: %s", version,
          Files.readString(log, StandardCharsets.UTF_8)).isZero();
    }
  }

  private static boolean works(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private record Run(JsonNode out, String stderr) {}

  private static Run client(List<String> args, List<String> serverCommand) throws Exception {
    List<String> command = new ArrayList<>(List.of("node", "client.mjs"));
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(dir.resolve("stdout.json").toFile())
        .redirectError(dir.resolve("stderr.txt").toFile());
    if (serverCommand != null) {
      pb.environment().put("SERVER_COMMAND", JSON.writeValueAsString(serverCommand));
    }
    Process p = pb.start();
    assertThat(p.waitFor(10, TimeUnit.MINUTES)).as("the TypeScript client finished").isTrue();
    String stderr = Files.readString(dir.resolve("stderr.txt"), StandardCharsets.UTF_8);
    String stdout = Files.readString(dir.resolve("stdout.json"), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("node client.mjs: " + stderr).isZero();
    return new Run(JSON.readTree(stdout), stderr);
  }

  private static void assertAnswers(JsonNode out) {
    assertThat(out.get("server").get("name").asText()).isEqualTo("polyglot-sandbox");
    assertThat(out.get("tools").toString()).contains("\"name\":\"run_javascript\",\"hasOutputSchema\":true",
        "\"name\":\"run_python\"", "\"name\":\"text_upper\"");
    assertThat(out.get("ok").get("isError").asBoolean()).isFalse();
    assertThat(out.get("ok").get("structured").get("value").asInt()).isEqualTo(42);
    assertThat(out.get("ok").get("structured").get("stdout").asText()).isEqualTo("hi\n");
    assertThat(out.get("ok").get("text").asText()).contains("outcome: OK");
    assertThat(out.get("python").get("structured").get("value").asInt()).isEqualTo(6);
    assertThat(out.get("syntaxError").get("isError").asBoolean()).isTrue();
    assertThat(out.get("syntaxError").get("structured").get("outcome").asText()).isEqualTo("SYNTAX_ERROR");
    assertThat(out.get("denied").get("structured").get("error").asText()).startsWith("PermissionError");
    assertThat(out.get("loop").get("structured").get("outcome").asText()).isEqualTo("LIMIT_EXCEEDED");
    assertThat(out.get("loop").get("structured").get("limit").asText()).isEqualTo("wall_time");
    assertThat(out.get("toolFromGuest").get("structured").get("value").asText()).isEqualTo("ABC");
    assertThat(out.get("exposedTool").get("text").asText()).isEqualTo("\"XYZ\"");
    assertThat(out.get("missingCode").get("isError").asBoolean()).isTrue();
    assertThat(out.get("missingCode").get("text").asText()).contains("missing argument \"code\"");
    assertThat(out.get("wrongType").get("text").asText()).contains("must be a string, got a number");
    assertThat(out.get("unknownTool").get("protocolError").asBoolean()).isTrue();
    assertThat(out.get("unknownTool").get("code").asInt()).isEqualTo(-32602);
    assertThat(out.get("cancel").get("aborted").asBoolean()).isTrue();
    assertThat(out.get("cancel").get("progress").asInt()).isPositive();
    assertThat(out.get("afterCancel").get("structured").get("value").asText()).isEqualTo("still here");
    assertThat(out.get("fiftyInARow").asInt()).isEqualTo(50);
  }

  @Test
  void typeScriptSdk_overStdio_getsEveryAnswer_andItsCancellationStopsTheRun() throws Exception {
    List<String> server = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    server.addAll(List.of(System.getProperty("sandbox.jit.args").trim().split("\\s+")));
    server.addAll(List.of("-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
        McpTestServer.class.getName()));

    Run r = client(List.of("stdio"), server);

    assertAnswers(r.out());
    assertThat(r.stderr()).as("the cancelled run ended CANCELLED on the server").contains("run: CANCELLED");
    assertThat(r.stderr()).doesNotContain("fallback runtime", "SEVERE");
  }

  @Test
  void typeScriptSdk_overStreamableHttp_onLoopback_getsEveryAnswer() throws Exception {
    List<String> outcomes = java.util.Collections.synchronizedList(new ArrayList<>());
    try (PolyglotSandbox sandbox = McpTestServer.sandbox();
        HttpEndpoint http = SandboxMcpServer.builder(sandbox).exposeTools(true)
            .runListener((s, result) -> outcomes.add(result.outcome().name())).build()
            .serveHttp("127.0.0.1", 0)) {
      assertThat(http.uri().toString()).startsWith("http://127.0.0.1:").endsWith("/mcp");

      Run r = client(List.of("http", http.uri().toString()), null);

      assertAnswers(r.out());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!outcomes.contains("CANCELLED") && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(outcomes).as("the aborted call's run ended CANCELLED").contains("CANCELLED");
    }
  }
}
