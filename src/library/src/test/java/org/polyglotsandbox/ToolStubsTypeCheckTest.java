package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The stubs of {@link Tool#stubs} checked by the real type checkers against sample guest programs
 * ({@code src/test/resources/stub-samples}): {@code tsc} (TypeScript {@value #TYPESCRIPT}, installed into
 * {@code target/typescript} with npm on first use) for the declarations, mypy for the Python stubs. A
 * correct program type-checks and also runs OK in a sandbox with the same tools, so the stubs' shape is
 * the one guests really call; a program whose every line misuses a tool fails on every one of those lines.
 * Skipped, saying why, only when Node.js/npm or mypy is missing, and then only outside CI ({@code CI=true};
 * {@code .ci/run} installs both).
 */
@Tag("slow")
class ToolStubsTypeCheckTest {
  /** The TypeScript compiler this test installs, pinned. */
  static final String TYPESCRIPT = "5.9.3";
  private static final Path WORK = Path.of("target", "tool-stubs");

  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(30)).build())
        .allowTools(tools().stream().map(Tool::name).toArray(String[]::new))
        .build();
    PolyglotSandbox.Builder b = PolyglotSandbox.builder().policy(policy);
    tools().forEach(b::tool);
    sandbox = b.build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  /** Tools that use each schema construct the sample programs touch, and a description meant to break out. */
  static List<Tool> tools() {
    Map<String, Object> store = new ConcurrentHashMap<>();
    String key = "{\"type\": \"string\", \"minLength\": 1}";
    return List.of(
        Tool.builder("kv").description("How many keys are stored. */ declare const x: number; /* \"\"\" breaks?")
            .result("{\"type\": \"integer\"}").handler(args -> (long) store.size()).build(),
        Tool.builder("kv.get").description("Reads a value; null if absent.")
            .parameters("{\"type\": \"object\", \"properties\": {\"key\": " + key + "}, \"required\": [\"key\"],"
                + " \"additionalProperties\": false}")
            .result("{\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"null\"}]}")
            .handler(args -> store.containsKey(args.get("key")) ? String.valueOf(store.get(args.get("key"))) : null)
            .build(),
        Tool.builder("kv.put").description("Stores a value.\n\"\"\"\nprint('escaped')\n\"\"\"")
            .parameters("{\"type\": \"object\", \"properties\": {\"key\": " + key + ", \"value\": {}},"
                + " \"required\": [\"key\", \"value\"], \"additionalProperties\": false}")
            .result("{\"type\": \"object\", \"properties\": {\"keys\": {\"type\": \"integer\"}}, \"required\": [\"keys\"]}")
            .handler(args -> {
              store.put((String) args.get("key"), args.get("value"));
              return Map.of("keys", (long) store.size());
            }).build(),
        Tool.builder("clock").description("The time.")
            .result("""
                {"type": "object", "required": ["utc", "epochMillis"],
                 "properties": {"utc": {"type": "string"}, "epochMillis": {"type": "integer"}}}""")
            .handler(args -> Map.of("utc", "2026-12-01T20:00:00Z", "epochMillis", 1L)).build(),
        Tool.builder("orders.search").description("Finds orders.")
            .parameters("""
                {"type": "object", "additionalProperties": false,
                 "properties": {
                   "status": {"enum": ["open", "closed"], "description": "Which orders."},
                   "limit": {"type": "integer", "minimum": 1},
                   "tags": {"type": "array", "items": {"type": "string"}},
                   "max-price": {"type": ["number", "null"]},
                   "filter": {"type": "object", "additionalProperties": false,
                              "properties": {"from": {"type": "string"}, "to": {"type": "string"}}}}}""")
            .result("""
                {"type": "array", "items": {"$ref": "#/$defs/order"},
                 "$defs": {
                   "order": {"type": "object", "required": ["id", "lines"],
                             "properties": {"id": {"type": "integer"},
                                            "lines": {"type": "array", "items": {"$ref": "#/$defs/line"}}}},
                   "line": {"type": "object", "required": ["qty"], "properties": {"qty": {"type": "integer"}}}}}""")
            .handler(args -> List.of(Map.of("id", 1L, "lines", List.of(Map.of("qty", 2L), Map.of("qty", 3L)))))
            .build(),
        Tool.builder("odd.names").description("Takes properties no keyword argument can name.")
            .parameters("""
                {"type": "object", "required": ["not-an-identifier"],
                 "properties": {"not-an-identifier": {"type": "integer"}, "class": {"type": "string"}}}""")
            .result("{\"type\": \"boolean\"}")
            .handler(args -> true).build());
  }

  @Test
  void typeScript_correctProgramTypeChecks_andRunsOk() throws Exception {
    Path tsc = tsc();
    Path dir = write("tools.d.ts", sandbox.toolStubs(Language.JAVASCRIPT));
    Files.writeString(dir.resolve("good.js"), sample("good.js"));
    Checked r = exec(dir, tsc.toString(), "--noEmit", "--strict", "--allowJs", "--checkJs", "--target", "es2022",
        "--lib", "es2022", "tools.d.ts", "good.js");
    assertThat(r.output()).isEmpty();
    assertThat(r.status()).isZero();

    ExecutionResult run = sandbox.run(Language.JAVASCRIPT, sample("good.js"));
    assertThat(run.isOk()).as("%s %s", run.outcome(), run.errorMessage()).isTrue();
    assertThat(run.value()).isEqualTo(Map.of("keys", 1L, "got", 6L, "utc", 20L, "count", 1L, "total", 10L,
        "failure", "ToolError:invalid_arguments", "odd", true));
  }

  @Test
  void typeScript_misusedToolsFailToTypeCheck_onEveryLine() throws Exception {
    Path tsc = tsc();
    Path dir = write("tools.d.ts", sandbox.toolStubs(Language.JAVASCRIPT));
    Files.writeString(dir.resolve("misuse.js"), sample("misuse.js"));
    Checked r = exec(dir, tsc.toString(), "--noEmit", "--strict", "--allowJs", "--checkJs", "--target", "es2022",
        "--lib", "es2022", "tools.d.ts", "misuse.js");
    assertThat(r.status()).isNotZero();
    for (int line : misuseLines("misuse.js")) {
      assertThat(r.output()).as("tsc output").contains("misuse.js(" + line + ",");
    }
    assertThat(r.output()).doesNotContain("tools.d.ts(");
  }

  @Test
  void python_correctProgramTypeChecks_andRunsOk() throws Exception {
    String mypy = mypy();
    Path dir = write("sandbox_tools.pyi", sandbox.toolStubs(Language.PYTHON));
    Files.writeString(dir.resolve("good.py"), "from sandbox_tools import tools, ToolError\n" + sample("good.py"));
    Checked r = exec(dir, mypy, "--strict", "--no-incremental", "--python-version", "3.11", "good.py");
    assertThat(r.output()).startsWith("Success");
    assertThat(r.status()).isZero();

    ExecutionResult run = sandbox.run(Language.PYTHON, sample("good.py"));
    assertThat(run.isOk()).as("%s %s", run.outcome(), run.errorMessage()).isTrue();
    assertThat(run.value()).isEqualTo(Map.of("keys", 1L, "got", 6L, "utc", 20L, "count", 1L, "total", 10L,
        "failure", "ToolError:invalid_arguments", "odd", true));
  }

  @Test
  void python_misusedToolsFailToTypeCheck_onEveryLine() throws Exception {
    String mypy = mypy();
    Path dir = write("sandbox_tools.pyi", sandbox.toolStubs(Language.PYTHON));
    Files.writeString(dir.resolve("misuse.py"), "from sandbox_tools import tools\n" + sample("misuse.py"));
    Checked r = exec(dir, mypy, "--strict", "--no-incremental", "--python-version", "3.11", "misuse.py");
    assertThat(r.status()).isEqualTo(1);
    for (int line : misuseLines("misuse.py")) {
      assertThat(r.output()).as("mypy output").contains("misuse.py:" + (line + 1) + ": error");
    }
    assertThat(r.output()).doesNotContain("sandbox_tools.pyi:");
  }

  /** Tools whose schemas use every construct the renderers map, with odd names and descriptions. */
  static List<Tool> everyConstruct() {
    List<String> results = List.of(
        "{\"type\": [\"string\", \"integer\", \"number\", \"boolean\", \"null\"]}",
        "{\"enum\": [\"a\", \"say \\\"hi\\\"\\n\\u2028\", 2, -3, 1.5, true, null]}",
        "{\"enum\": [{\"a\": 1}]}", "{\"enum\": []}", "{\"const\": \"*/ \\\"\\\"\\\" \\\\\"}",
        "{\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"array\", \"items\": {\"type\": [\"integer\", \"null\"]}}]}",
        "{\"oneOf\": [{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}, {\"type\": \"null\"}]}",
        "{\"allOf\": [{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}},"
            + " {\"type\": \"object\", \"properties\": {\"b\": {\"type\": \"integer\"}}}]}",
        "{\"$ref\": \"#/$defs/node\", \"$defs\": {\"node\": {\"type\": \"object\", \"required\": [\"name\"],"
            + " \"properties\": {\"name\": {\"type\": \"string\"}, \"children\": {\"type\": \"array\","
            + " \"items\": {\"$ref\": \"#/$defs/node\"}}, \"up\": {\"$ref\": \"#\"},"
            + " \"deep\": {\"$ref\": \"#/$defs/node/properties/name\"}}}}}",
        "{\"definitions\": {\"a-b\": {\"type\": \"integer\"}}, \"$ref\": \"#/definitions/a-b\"}",
        "{\"type\": \"object\", \"additionalProperties\": {\"type\": \"array\"}}",
        "{\"type\": \"object\", \"additionalProperties\": false}", "{\"minimum\": 1}", "true", "false");
    List<Tool> out = new ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      out.add(Tool.builder("construct.r" + i).description("Result " + i + " */ \"\"\" \\").result(results.get(i))
          .handler(args -> null).build());
    }
    out.add(Tool.builder("construct.params").parameters("""
        {"type": "object", "required": ["first-name", "ok"],
         "properties": {
           "first-name": {"type": "string", "description": "*/ \\"\\"\\" \\\\ \\r\\n end"},
           "class": {"type": "string"}, "self": {"type": "string"}, "__x": {"type": "string"},
           "list": {"type": "array", "items": {"type": "object", "properties": {"Any": {"type": "integer"}}}},
           "ok": {"type": "object", "additionalProperties": false, "properties": {"never": false}},
           "extra": {"type": "string"}}}""").handler(args -> null).build());
    out.add(Tool.builder("construct.keywords").parameters("""
        {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}, "extra": {"type": "integer"},
         "b-c": {"type": "integer"}}, "additionalProperties": {"type": "integer"}}""").handler(args -> null).build());
    out.add(Tool.builder("construct").handler(args -> null).build());
    out.add(Tool.builder("constructT").handler(args -> null).build());
    return out;
  }

  @Test
  void everyConstruct_rendersDeclarationsTscAccepts() throws Exception {
    Path tsc = tsc();
    Path dir = Files.createDirectories(WORK.resolve("every-construct"));
    Files.writeString(dir.resolve("tools.d.ts"), Tool.stubs(Language.JAVASCRIPT, everyConstruct()));
    Checked r = exec(dir, tsc.toString(), "--noEmit", "--strict", "--lib", "es2022", "tools.d.ts");
    assertThat(r.output()).isEmpty();
    assertThat(r.status()).isZero();
  }

  @Test
  void everyConstruct_rendersStubsMypyAccepts() throws Exception {
    String mypy = mypy();
    Path dir = Files.createDirectories(WORK.resolve("every-construct"));
    Files.writeString(dir.resolve("sandbox_tools.pyi"), Tool.stubs(Language.PYTHON, everyConstruct()));
    Checked r = exec(dir, mypy, "--strict", "--no-incremental", "--python-version", "3.11", "sandbox_tools.pyi");
    assertThat(r.output()).startsWith("Success");
    assertThat(r.status()).isZero();
  }

  /** Tools named like the builtins and typing names the stubs use ({@code files.list}) must not shadow them. */
  @Test
  void toolsNamedLikeBuiltins_shadowNothing_andTypeCheckWhereCalled() throws Exception {
    String mypy = mypy();
    List<Tool> tools = new ArrayList<>(everyConstruct());
    for (String name : List.of("list", "str", "overload", "TypedDict", "Any", "NotRequired", "dict")) {
      tools.add(Tool.builder("files." + name).parameters("""
          {"type": "object", "required": ["tags"], "properties": {"tags": {"type": "array", "items": {"type": "string"}},
           "list": {"type": "integer"}, "meta": {"type": "object", "properties": {"str": {"type": "string"}}}}}""")
          .result("{\"type\": \"array\", \"items\": {\"type\": \"string\"}}").handler(args -> List.of()).build());
    }
    Path dir = Files.createDirectories(WORK.resolve("shadowing"));
    Files.writeString(dir.resolve("sandbox_tools.pyi"), Tool.stubs(Language.PYTHON, tools));
    Files.writeString(dir.resolve("good.py"), """
        from sandbox_tools import tools
        names: list[str] = tools.files.list(tags=["a"], list=1) + tools.files.str({"tags": []})
        """);
    Files.writeString(dir.resolve("misuse.py"), """
        from sandbox_tools import tools
        tools.files.list(tags="a")
        """);
    Checked good = exec(dir, mypy, "--strict", "--no-incremental", "--python-version", "3.11", "good.py");
    assertThat(good.output()).startsWith("Success");
    Checked misuse = exec(dir, mypy, "--strict", "--no-incremental", "--python-version", "3.11", "misuse.py");
    assertThat(misuse.output()).contains("misuse.py:2: error").doesNotContain("sandbox_tools.pyi:");
  }

  /** The 1-based numbers of a sample's lines that are not comments. */
  private static List<Integer> misuseLines(String name) throws IOException {
    List<String> lines = sample(name).lines().toList();
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).startsWith("//") && !lines.get(i).startsWith("#") && !lines.get(i).isBlank()) {
        out.add(i + 1);
      }
    }
    assertThat(out).hasSizeGreaterThan(3);
    return out;
  }

  private static String sample(String name) throws IOException {
    try (InputStream in = ToolStubsTypeCheckTest.class.getResourceAsStream("/stub-samples/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Path write(String file, String text) throws IOException {
    Path dir = Files.createDirectories(WORK.resolve(file.endsWith(".pyi") ? "python" : "typescript"));
    Files.writeString(dir.resolve(file), text);
    return dir;
  }

  /** tsc from {@code target/typescript}, installed there with npm if it is not yet. */
  private static Path tsc() throws Exception {
    Path prefix = Path.of("target", "typescript").toAbsolutePath();
    Path tsc = prefix.resolve("node_modules/typescript/bin/tsc");
    Path manifest = prefix.resolve("node_modules/typescript/package.json");
    if (!Files.exists(manifest) || !Files.readString(manifest).contains("\"version\": \"" + TYPESCRIPT + "\"")) {
      available(onPath("npm") && onPath("node"), "Node.js and npm are not installed, so TypeScript " + TYPESCRIPT
          + " cannot be installed to type-check the declarations");
      Files.createDirectories(prefix);
      Checked r = exec(prefix, "npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", prefix.toString(),
          "typescript@" + TYPESCRIPT);
      assertThat(r.status()).as("npm install typescript@%s: %s", TYPESCRIPT, r.output()).isZero();
    }
    return tsc;
  }

  private static String mypy() {
    available(onPath("mypy"), "mypy is not installed (apt-get install mypy)");
    return "mypy";
  }

  /** Skips the test when a checker is missing, except in CI ({@code CI=true}), where that is a failure. */
  private static void available(boolean present, String why) {
    assertThat(present || !"true".equals(System.getenv("CI"))).as("CI must have the type checkers (.ci/run"
        + " installs them): " + why).isTrue();
    assumeTrue(present, "skipped: " + why + "; .ci/run installs it");
  }

  private static boolean onPath(String command) {
    String path = System.getenv("PATH");
    return path != null && java.util.Arrays.stream(path.split(java.io.File.pathSeparator))
        .anyMatch(d -> Files.isExecutable(Path.of(d, command)));
  }

  record Checked(int status, String output) {}

  private static Checked exec(Path dir, String... command) throws Exception {
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("%s finished", command[0]).isTrue();
    return new Checked(p.exitValue(), new String(out, StandardCharsets.UTF_8).strip());
  }
}
