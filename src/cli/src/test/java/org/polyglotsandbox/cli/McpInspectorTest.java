package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP Inspector's command line ({@code @modelcontextprotocol/inspector} from npm, version pinned in
 * the root pom) against {@code bin/sandbox mcp}, over stdio (the inspector starts the server) and over
 * Streamable HTTP. {@code --strict} with {@code tools/list} reports every tool-schema portability
 * problem, warnings included; a tool call's structured content is checked by the inspector against the
 * tool's output schema. The policy lists every demo tool and a mount, and {@code --expose-tools} lists
 * them as MCP tools too, so their schemas are checked as well. Skipped when node or npm is missing,
 * except in CI ({@code CI=true}), where {@code .ci/run} installs them.
 */
@Tag("slow")
class McpInspectorTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The server's start (a start-up cache may be made) and warm-up on a loaded machine. */
  private static final Duration START = Duration.ofMinutes(5);

  @TempDir
  static Path dir;

  private static Path inspector;
  private static Path policy;
  private static Process http;
  private static String endpoint;

  @BeforeAll
  static void install() throws Exception {
    boolean ci = "true".equals(System.getenv("CI"));
    if (!(works("node", "--version") && works("npm", "--version"))) {
      assertThat(ci).as("CI must have node and npm (.ci/run installs them)").isFalse();
      Assumptions.abort("node or npm is not installed");
    }
    String version = System.getProperty("mcp.inspector.version");
    assertThat(version).as("the pinned MCP Inspector version (root pom)").isNotBlank();
    Path home = Path.of(System.getProperty("mcp.inspector.dir", "src/cli/target/mcp-inspector"));
    Files.createDirectories(home);
    Path installed = home.resolve("node_modules/@modelcontextprotocol/inspector/package.json");
    if (!Files.exists(installed) || !JSON.readTree(installed.toFile()).get("version").asText().equals(version)) {
      Files.writeString(home.resolve("package.json"), "{\"name\": \"mcp-inspector-test\", \"private\": true}");
      // Not inheritIO(): npm can leave the test JVM's stdin non-blocking, and its output on the JVM's own
      // stdout corrupts surefire's stream.
      Path log = home.resolve("npm-install.log");
      Process npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
          "@modelcontextprotocol/inspector@" + version).directory(home.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      assertThat(npm.waitFor(10, TimeUnit.MINUTES)).as("npm install finished").isTrue();
      assertThat(npm.exitValue()).as("npm install @modelcontextprotocol/inspector@%s: %s", version,
          Files.readString(log, StandardCharsets.UTF_8)).isZero();
    }
    inspector = home.resolve("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    assertThat(inspector).exists();

    Files.createDirectories(dir.resolve("data"));
    Files.writeString(dir.resolve("data/table.json"), "{\"a\": 1}");
    policy = dir.resolve("policy.json");
    Files.writeString(policy, """
        {"languages": ["js", "python"], "mounts": [{"host": "data", "guest": "/data"}],
         "tools": ["clock", "kv.get", "kv.put", {"name": "lookup", "file": "data/table.json"}]}""");

    Path stderr = dir.resolve("http-stderr");
    http = McpServerProcess.startHttp(stderr, dir.resolve("http-stdout"), "--http", ":0", "--policy",
        policy.toString(), "--expose-tools");
    String base = McpServerProcess.httpBase(http, stderr, START);
    endpoint = base == null ? null : base + "/mcp";
    assertThat(endpoint).as("the server says where it listens: %s", Files.readString(stderr)).isNotNull();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (http != null) {
      http.destroy();
      http.waitFor();
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

  private record Run(int exit, JsonNode out, String stderr) {}

  /** The inspector's command line with {@code --format json}, against {@code target}. */
  private static Run inspect(List<String> target, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("node", inspector.toString(), "--cli",
        "--connect-timeout", String.valueOf(START.toMillis()), "--format", "json"));
    command.addAll(List.of(args));
    command.addAll(target);
    Path out = Files.createTempFile(dir, "inspector", ".json");
    Path err = Files.createTempFile(dir, "inspector", ".err");
    ProcessBuilder pb = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    // The inspector keeps a catalog, client settings and storage under the user's home by default.
    pb.environment().put("MCP_CATALOG_PATH", dir.resolve("inspector-home/mcp.json").toString());
    pb.environment().put("MCP_CLIENT_CONFIG_PATH", dir.resolve("inspector-home/client.json").toString());
    pb.environment().put("MCP_STORAGE_DIR", dir.resolve("inspector-home/storage").toString());
    Process p = pb.start();
    assertThat(p.waitFor(10, TimeUnit.MINUTES)).as("the inspector finished").isTrue();
    String stdout = Files.readString(out, StandardCharsets.UTF_8);
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    return new Run(p.exitValue(), stdout.isBlank() ? JSON.nullNode() : JSON.readTree(stdout), stderr);
  }

  private static List<String> stdio() {
    return List.of("-e", "SANDBOX_SKIP_BUILD=1", "--", McpServerProcess.SCRIPT.toString(), "mcp", "--policy",
        policy.toString(), "--expose-tools");
  }

  private static List<String> streamableHttp() {
    return List.of("--transport", "http", "--server-url", endpoint);
  }

  private static void assertNoSchemaFindings(Run r) {
    assertThat(r.exit()).as("exit status; stderr: %s", r.stderr()).isZero();
    assertThat(r.out().path("result").path("tools").size()).isEqualTo(6);
    assertThat(r.out().has("schemaFindings")).as("schema findings: %s", r.out().path("schemaFindings")).isFalse();
    assertThat(r.stderr()).doesNotContain("Warning:", "Error:", "Schema portability");
  }

  @Test
  void strictToolsList_overStdio_findsNoSchemaProblem() throws Exception {
    assertNoSchemaFindings(inspect(stdio(), "--method", "tools/list", "--strict"));
  }

  @Test
  void strictToolsList_overStreamableHttp_findsNoSchemaProblem() throws Exception {
    assertNoSchemaFindings(inspect(streamableHttp(), "--method", "tools/list", "--strict"));
  }

  @Test
  void callWithABadArgument_isAToolError_withStructuredContentTheInspectorAccepts() throws Exception {
    Run r = inspect(stdio(), "--method", "tools/call", "--tool-name", "run_python", "--tool-args-json",
        "{\"code\": \"1\", \"lang\": \"py\"}");

    // Exit 5 is the inspector's "the tool returned isError"; an answer that failed its output-schema check
    // would be an error of its own instead.
    assertThat(r.exit()).as("stderr: %s", r.stderr()).isEqualTo(5);
    assertThat(r.stderr()).contains("tool_is_error");
    JsonNode structured = r.out().path("result").path("structuredContent");
    assertThat(structured.path("outcome").asText()).isEqualTo("NOT_RUN");
    assertThat(structured.path("error").asText()).contains("unknown argument \"lang\"");
  }

  @Test
  void valueWithNaN_overStreamableHttp_passesTheOutputSchemaCheck_andSaysWhereTheNumbersWere() throws Exception {
    Run r = inspect(streamableHttp(), "--method", "tools/call", "--tool-name", "run_javascript", "--tool-args-json",
        "{\"code\": \"[1 / 0, {ratio: 0 / 0}]\"}");

    assertThat(r.exit()).as("stderr: %s", r.stderr()).isZero();
    JsonNode structured = r.out().path("result").path("structuredContent");
    assertThat(structured.path("value").toString()).isEqualTo("[\"Infinity\",{\"ratio\":\"NaN\"}]");
    assertThat(structured.path("nonFiniteNumbers").toString()).isEqualTo("[\"/0\",\"/1/ratio\"]");
  }
}
