package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A scripted model: the MCP Java SDK's client reads {@code tools/list} from {@code bin/sandbox mcp}, and
 * the programs it sends are written from what each run tool's description says and nothing else. The
 * names it uses (the mount, the working directory, the file-reading function, how a host tool is called,
 * the tools' names and argument schemas, the class of a failed call, the modules imported ahead) are
 * read out of the description text, so a sentence that changes or stops being true fails here. Each
 * program reads a mounted file, calls host tools, catches a failed call, and awaits an async function;
 * then the sentences it relied on are checked against what came back.
 */
@Tag("slow")
class McpScriptedModelTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path dir;

  private static McpServerProcess server;
  private static List<McpSchema.Tool> tools;

  @BeforeAll
  static void start() throws IOException {
    Files.createDirectories(dir.resolve("shared"));
    Files.writeString(dir.resolve("shared/numbers.json"), "[1, 2, 3, 4]");
    Path policy = dir.resolve("policy.json");
    Files.writeString(policy, """
        {"languages": ["js", "python"], "limits": {"wallTime": "60s"},
         "mounts": [{"host": "shared", "guest": "/data"}], "tools": ["clock", "kv.get", "kv.put"]}""");
    server = new McpServerProcess("--policy", policy.toString(), "--python-imports", "json,asyncio");
    tools = server.client.listTools().tools();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** What the scripted model takes from a description; each field comes from one sentence of it. */
  record Facts(String language, String mount, String workingDirectory, String readFunction, String callForm,
      String failureClass, Map<String, JsonNode> hostTools, Map<String, String> hostToolDescriptions,
      List<String> preImported) {}

  private static final Pattern LANGUAGE = Pattern.compile("^Runs (JavaScript|Python)\\b");
  private static final Pattern RETURNS = Pattern.compile(
      "returns how it ended \\(OK, [A-Z_, .]+\\), the value of its last expression as JSON, its stdout and stderr\\.");
  private static final Pattern FILES = Pattern.compile("Files: (/[^ ;]+) \\(read-only\\); working directory (/[^;]*);"
      + " every other path is denied(?:; read a file with (\\w+)\\(path\\))?\\.");
  private static final Pattern HOST_TOOLS = Pattern.compile(
      "Host tools, called as (tools\\.NAME\\([^)]*\\)) and returning a value, a failure (?:thrown|raised) as (\\w+): ");
  private static final Pattern HOST_TOOL = Pattern.compile("\\G([A-Za-z0-9_.]+) \\(([^)]*)\\), arguments ");
  private static final Pattern PRE_IMPORTED = Pattern.compile(
      "Modules imported before your code runs, so importing them costs nothing: ([\\w, ]+)\\.");
  private static final String NOTHING_SURVIVES = "Nothing survives between calls.";
  private static final String INPUTS = "Each entry of `inputs` becomes a global variable holding plain JSON data.";

  private static Matcher find(Pattern p, String description) {
    Matcher m = p.matcher(description);
    assertThat(m.find()).as("the description says %s: %s", p, description).isTrue();
    return m;
  }

  /** Reads the facts a model would act on out of a run tool's description. */
  static Facts read(String description) throws IOException {
    String language = find(LANGUAGE, description).group(1);
    find(RETURNS, description);
    assertThat(description).contains(NOTHING_SURVIVES, INPUTS);
    Matcher files = find(FILES, description);
    Matcher host = find(HOST_TOOLS, description);
    Map<String, JsonNode> schemas = new LinkedHashMap<>();
    Map<String, String> descriptions = new LinkedHashMap<>();
    int at = host.end();
    while (true) {
      Matcher entry = HOST_TOOL.matcher(description);
      assertThat(entry.find(at)).as("a host tool entry at %d of %s", at, description).isTrue();
      // The argument schema is one JSON object; its own text may hold "; " or ". ", so it is parsed, not split.
      try (JsonParser parser = JSON.getFactory().createParser(description.substring(entry.end()))) {
        schemas.put(entry.group(1), JSON.readTree(parser));
        descriptions.put(entry.group(1), entry.group(2));
        at = entry.end() + (int) parser.currentLocation().getCharOffset();
      }
      if (description.startsWith(". ", at)) {
        break;
      }
      assertThat(description.substring(at)).startsWith("; ");
      at += 2;
    }
    List<String> preImported = List.of();
    if (language.equals("Python")) {
      preImported = List.of(find(PRE_IMPORTED, description).group(1).split(", "));
    }
    return new Facts(language, files.group(1), files.group(2), files.group(3), host.group(1), host.group(2),
        schemas, descriptions, preImported);
  }

  /** The host tool whose description starts with {@code verb}. */
  private static String toolThat(Facts facts, String verb) {
    List<String> names = facts.hostToolDescriptions().entrySet().stream()
        .filter(e -> e.getValue().startsWith(verb)).map(Map.Entry::getKey).toList();
    assertThat(names).as("one host tool that %s", verb).hasSize(1);
    return names.get(0);
  }

  /** A host tool call written the way the description says, with these arguments (each a code expression). */
  private static String call(Facts facts, String tool, Map<String, String> arguments) {
    assertThat(facts.hostTools().get(tool).path("properties").properties()).extracting(Map.Entry::getKey)
        .as("the arguments %s declares", tool).containsAll(arguments.keySet());
    String args;
    if (facts.callForm().equals("tools.NAME({...})")) {
      args = arguments.entrySet().stream().map(e -> "\"" + e.getKey() + "\": " + e.getValue())
          .collect(Collectors.joining(", ", "{", "}"));
      return facts.callForm().replace("NAME", tool).replace("{...}", args);
    }
    assertThat(facts.callForm()).isEqualTo("tools.NAME(key=value)");
    args = arguments.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
    return facts.callForm().replace("NAME", tool).replace("key=value", args);
  }

  private static String quoted(String s) throws IOException {
    return JSON.writeValueAsString(s);   // a JSON string is a string literal in both languages
  }

  @SuppressWarnings("unchecked")
  @ParameterizedTest
  @ValueSource(strings = {"run_javascript", "run_python"})
  void aProgramWrittenFromTheDescriptionAlone_readsTheMountedFile_callsHostTools_catchesAFailure_andAwaits(
      String toolName) throws Exception {
    McpSchema.Tool tool = tools.stream().filter(t -> t.name().equals(toolName)).findFirst().orElseThrow();
    Facts facts = read(tool.description());
    String store = toolThat(facts, "Stores");
    String fetch = toolThat(facts, "Reads");
    String clock = toolThat(facts, "The current time");
    int maxKey = facts.hostTools().get(fetch).path("properties").path("key").path("maxLength").asInt();
    assertThat(maxKey).as("the key's maxLength in %s's schema", fetch).isPositive();
    String file = facts.mount() + "/numbers.json";   // the user's task names the file; the mount is the description's
    String relative = Path.of(facts.workingDirectory()).relativize(Path.of(file)).toString();
    String tooLongKey = quoted("k".repeat(maxKey + 1));

    String code;
    if (facts.language().equals("JavaScript")) {
      assertThat(facts.readFunction()).as("the description names the function that reads a file").isNotNull();
      code = """
          const numbers = JSON.parse(%1$s(%2$s));
          const sameFile = JSON.stringify(JSON.parse(%1$s(%3$s))) === JSON.stringify(numbers);
          let denied = false;
          try { %1$s('/etc/hostname'); } catch (e) { denied = true; }
          const total = numbers.reduce((a, b) => a + b, 0) * factor;
          console.log('total', total);
          %4$s;
          let failure = null;
          try { %5$s; } catch (e) { if (e instanceof %6$s) { failure = e.message; } else { throw e; } }
          async function readBack() { await null; return %7$s; }
          (async () => ({stored: await readBack(), failure, sameFile, denied, now: %8$s}))()
          """.formatted(facts.readFunction(), quoted(file), quoted(relative),
          call(facts, store, Map.of("key", "'total'", "value", "total")), call(facts, fetch, Map.of("key", tooLongKey)),
          facts.failureClass(), call(facts, fetch, Map.of("key", "'total'")), call(facts, clock, Map.of()));
    } else {
      assertThat(facts.preImported()).as("modules imported ahead").contains("json", "asyncio");
      code = """
          import json, asyncio
          with open(%1$s) as f:
              numbers = json.load(f)
          with open(%2$s) as f:
              same_file = json.load(f) == numbers
          try:
              open('/etc/hostname').read()
              denied = False
          except OSError:
              denied = True
          try:
              open(%1$s + '.new', 'w').write('x')
              write_refused = False
          except OSError:
              write_refused = True
          total = sum(numbers) * factor
          print('total', total)
          %3$s
          failure = None
          try:
              %4$s
          except %5$s as e:
              failure = str(e)
          async def read_back():
              await asyncio.sleep(0)
              return %6$s
          {'stored': asyncio.run(read_back()), 'failure': failure, 'sameFile': same_file, 'denied': denied,
           'writeRefused': write_refused, 'now': %7$s}
          """.formatted(quoted(file), quoted(relative),
          call(facts, store, Map.of("key", "'total'", "value", "total")), call(facts, fetch, Map.of("key", tooLongKey)),
          facts.failureClass(), call(facts, fetch, Map.of("key", "'total'")), call(facts, clock, Map.of()));
    }

    CallToolResult r = server.call(toolName, Map.of("code", code, "inputs", Map.of("factor", 10)));

    Map<String, Object> structured = (Map<String, Object>) r.structuredContent();
    // "returns how it ended ..., the value of its last expression as JSON, its stdout and stderr"
    assertThat(r.isError()).as("%s", structured).isFalse();
    assertThat(structured).containsEntry("outcome", "OK").containsEntry("stdout", "total 100\n")
        .containsEntry("stderr", "");
    Map<String, Object> value = (Map<String, Object>) structured.get("value");
    // "Files: /data (read-only); working directory /; every other path is denied; read a file with ..."
    // and "Each entry of `inputs` becomes a global variable": 10 * (1 + 2 + 3 + 4), read back from the store.
    assertThat(value).containsEntry("stored", 100).containsEntry("sameFile", true).containsEntry("denied", true);
    if (facts.language().equals("Python")) {
      // JavaScript's description names no function that writes, so only Python's program tries to.
      assertThat(value).containsEntry("writeRefused", true);
    }
    // "a failure thrown (raised) as ToolError": a key past the schema's maxLength is such a failure.
    assertThat((String) value.get("failure")).contains("key");
    // "clock (The current time in UTC.)"
    assertThat(Instant.parse((String) ((Map<String, Object>) value.get("now")).get("utc"))).isNotNull();

    // "Nothing survives between calls.": neither the program's globals nor what it stored.
    String later = facts.language().equals("JavaScript")
        ? "[typeof numbers, " + call(facts, fetch, Map.of("key", "'total'")) + "]"
        : "['numbers' in globals(), " + call(facts, fetch, Map.of("key", "'total'")) + "]";
    Object expectedGlobal = facts.language().equals("JavaScript") ? "undefined" : false;
    List<Object> leftovers = new ArrayList<>();
    leftovers.add(expectedGlobal);
    leftovers.add(null);
    assertThat((Map<String, Object>) server.call(toolName, Map.of("code", later)).structuredContent())
        .containsEntry("value", leftovers);
  }
}
