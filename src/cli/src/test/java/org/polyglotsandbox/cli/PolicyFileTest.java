package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;

/** The policy file parser: what it accepts, and that each rejection names the file, field and value. */
class PolicyFileTest {
  @TempDir
  Path dir;

  private PolicyFile parse(String json) throws IOException, PolicyFileException {
    Path file = dir.resolve("policy.json");
    Files.writeString(file, json);
    return PolicyFile.parse(file);
  }

  @Test
  void fullExample_parses() throws Exception {
    Files.createDirectories(dir.resolve("data"));
    Files.writeString(dir.resolve("data/sales.csv"), "a,b\n");

    PolicyFile p = parse("""
        {"languages": ["js", "python"],
         "mounts": [{"host": "data/sales.csv", "guest": "/data/sales.csv", "access": "ro"},
                    {"host": "data", "guest": "/work", "access": "rw"},
                    {"guest": "/scratch", "access": "scratch"}],
         "workingDirectory": "/scratch",
         "limits": {"maxStatements": 1000000, "wallTime": "1.5s", "maxOutputBytes": "64k",
                    "stackSize": "8m", "maxResultNodes": 500, "maxResultDepth": 10,
                    "maxResultStringLength": 4096}}
        """);

    assertThat(p.languages()).containsExactlyInAnyOrder(Language.JAVASCRIPT, Language.PYTHON);
    assertThat(p.mounts()).containsExactly(
        Mount.readOnly(dir.resolve("data/sales.csv"), "/data/sales.csv"),
        Mount.readWrite(dir.resolve("data"), "/work"),
        Mount.scratch("/scratch"));
    assertThat(p.workingDirectory()).isEqualTo("/scratch");
    assertThat(p.limits()).isEqualTo(Limits.builder()
        .maxStatements(1_000_000).wallTime(Duration.ofMillis(1500)).maxOutputBytes(64 * 1024)
        .stackSize(8L << 20).maxResultNodes(500).maxResultDepth(10).maxResultStringLength(4096).build());
  }

  @Test
  void emptyObject_meansDefaults() throws Exception {
    PolicyFile p = parse("{}");

    assertThat(p.languages()).isEmpty();
    assertThat(p.mounts()).isEmpty();
    assertThat(p.workingDirectory()).isEqualTo("/");
    assertThat(p.limits()).isEqualTo(Limits.defaults());
  }

  @Test
  void mountAccess_defaultsToReadOnly() throws Exception {
    Files.writeString(dir.resolve("in.txt"), "x");

    Mount m = parse("{\"mounts\": [{\"host\": \"in.txt\", \"guest\": \"/in.txt\"}]}").mounts().get(0);

    assertThat(m.operations()).containsExactlyInAnyOrder(Operation.FILE_READ, Operation.FILE_LIST);
  }

  @Test
  void relativeHostPaths_resolveAgainstThePolicyFilesDirectory() throws Exception {
    Path conf = Files.createDirectories(dir.resolve("conf"));
    Files.createDirectories(conf.resolve("lib"));
    Files.writeString(conf.resolve("lib/x.js"), "1");
    Path file = conf.resolve("policy.json");
    Files.writeString(file, "{\"mounts\": [{\"host\": \"lib/x.js\", \"guest\": \"/x.js\"},"
        + " {\"host\": \"../conf/lib\", \"guest\": \"/lib\"}]}");

    PolicyFile p = PolicyFile.parse(file);

    assertThat(p.mounts()).extracting(m -> m.hostPath().orElseThrow())
        .containsExactly(conf.resolve("lib/x.js").toAbsolutePath(), conf.resolve("lib").toAbsolutePath());
  }

  @Test
  void sizes_acceptBytesAndBinarySuffixes() throws Exception {
    assertThat(parse("{\"limits\": {\"stackSize\": 2097152}}").limits().stackSize()).isEqualTo(2L << 20);
    assertThat(parse("{\"limits\": {\"stackSize\": \"2048k\"}}").limits().stackSize()).isEqualTo(2L << 20);
    assertThat(parse("{\"limits\": {\"stackSize\": \"2M\"}}").limits().stackSize()).isEqualTo(2L << 20);
    assertThat(parse("{\"limits\": {\"maxOutputBytes\": \"1g\"}}").limits().maxOutputBytes()).isEqualTo(1L << 30);
  }

  @Test
  void toBuilder_allowsTheGivenLanguagesOnly() throws Exception {
    PolicyFile p = parse("{\"languages\": [\"js\", \"python\"], \"limits\": {\"wallTime\": \"2s\"}}");

    var policy = p.toBuilder(Language.PYTHON).build();

    assertThat(policy.languages()).isEqualTo(Set.of(Language.PYTHON));
    assertThat(policy.limits().wallTime()).isEqualTo(Duration.ofSeconds(2));
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      `{"languages": ["js",}`                       | policy.json: not valid JSON at line 1, column 21:
      ``                                            | policy.json: is empty; expected a JSON object
      `[]`                                          | policy.json: [] is not a JSON object
      `{} {}`                                       | policy.json: not valid JSON
      `{"limits": {}, "limits": {}}`                | policy.json: not valid JSON at line 1, column 24: Duplicate field 'limits'
      `{"limit": {}}`                               | policy.json: limit: unknown field (known fields: languages, mounts, workingDirectory, limits, tools)
      `{"limits": {"wallTme": "2s"}}`               | policy.json: limits.wallTme: unknown field (known fields of limits: maxStatements,
      `{"limits": {"wallTime": "2 sec"}}`           | policy.json: limits.wallTime: '2 sec' is not a duration (use 500ms, 2s, 1.5s or 1m)
      `{"limits": {"wallTime": 2}}`                 | policy.json: limits.wallTime: 2 is not a duration (use a string
      `{"limits": {"wallTime": "0ms"}}`             | policy.json: limits.wallTime: '0ms' must be longer than zero
      `{"limits": {"wallTime": "2000m"}}`           | policy.json: limits.wallTime: wallTime (PT33H20M) must be at most one day
      `{"limits": {"maxStatements": "many"}}`       | policy.json: limits.maxStatements: 'many' is not a whole number
      `{"limits": {"maxStatements": 1.5}}`          | policy.json: limits.maxStatements: 1.5 is not a whole number
      `{"limits": {"maxStatements": 1e6}}`          | policy.json: limits.maxStatements: 1E+6 is not a whole number
      `{"limits": {"maxStatements": 0}}`            | policy.json: limits.maxStatements: maxStatements (0) must be positive
      `{"limits": {"maxStatements": 99999999999999999999}}` | policy.json: limits.maxStatements: 99999999999999999999 is too large
      `{"limits": {"maxResultDepth": 5000000000}}`  | policy.json: limits.maxResultDepth: 5000000000 is out of range
      `{"limits": {"maxResultDepth": 2000}}`        | policy.json: limits.maxResultDepth: maxResultDepth (2000) must be at most 400: a JSON reader with its default bounds reads no deeper (Jackson 3: 500 levels, with the envelope around the value)
      `{"limits": {"stackSize": "8 MB"}}`           | policy.json: limits.stackSize: '8 MB' is not a size
      `{"limits": {"stackSize": "100k"}}`           | policy.json: limits.stackSize: stackSize (102400) must be between
      `{"limits": []}`                              | policy.json: limits: [] is not a JSON object
      `{"languages": "js"}`                         | policy.json: languages: 'js' is not a list
      `{"languages": []}`                           | policy.json: languages: [] allows no language
      `{"languages": ["ruby"]}`                     | policy.json: languages[0]: unknown language 'ruby'
      `{"languages": ["js", 7]}`                    | policy.json: languages[1]: 7 is not a string
      `{"mounts": {}}`                              | policy.json: mounts: {} is not a list of mounts
      `{"mounts": ["a:/b"]}`                        | policy.json: mounts[0]: 'a:/b' is not a JSON object
      `{"mounts": [{"host": "policy.json"}]}`       | policy.json: mounts[0]: has no "guest" field
      `{"mounts": [{"guest": "/d"}]}`               | policy.json: mounts[0]: has no "host" field
      `{"mounts": [{"host": "missing.csv", "guest": "/d"}]}` | policy.json: mounts[0].host: 'missing.csv' does not exist (resolved against the policy file's directory to
      `{"mounts": [{"host": "", "guest": "/d"}]}`   | policy.json: mounts[0].host: '' is empty
      `{"mounts": [{"host": "policy.json", "guest": "d"}]}` | policy.json: mounts[0].guest: guest path 'd' must be absolute
      `{"mounts": [{"host": "policy.json", "guest": "/a/../b"}]}` | policy.json: mounts[0].guest: guest path '/a/../b' must not contain '..'
      `{"mounts": [{"host": "policy.json", "guest": "/d", "access": "write"}]}` | policy.json: mounts[0].access: 'write' is not one of ro, rw, scratch
      `{"mounts": [{"host": "policy.json", "guest": "/d", "access": "scratch"}]}` | policy.json: mounts[0].host: a scratch mount has no host path
      `{"mounts": [{"host": "policy.json", "guest": "/d", "mode": "ro"}]}` | policy.json: mounts[0].mode: unknown field (known fields of mounts[0]: host, guest, access)
      `{"mounts": [{"guest": "/d", "access": "scratch"}, {"guest": "/d/e", "access": "scratch"}]}` | policy.json: mounts: mounts overlap at guest paths /d and /d/e
      `{"workingDirectory": "/scratch"}`            | policy.json: workingDirectory: working directory /scratch is not inside any mount
      `{"workingDirectory": "scratch"}`             | policy.json: workingDirectory: guest path 'scratch' must be absolute
      `{"workingDirectory": null}`                  | policy.json: workingDirectory: null is not a string
      `{"\\u001b[2J": 1}`                           | policy.json: \\x1b[2J: unknown field
      `{"tools": "clock"}`                          | policy.json: tools: 'clock' is not a list
      `{"tools": ["shell"]}`                        | policy.json: tools[0]: 'shell' is not a demo tool (known: clock, kv.get, kv.put, lookup)
      `{"tools": ["clock", "clock"]}`               | policy.json: tools[1]: 'clock' is listed twice
      `{"tools": ["lookup"]}`                       | policy.json: tools[0]: lookup needs a file
      `{"tools": [{"name": "lookup", "file": "missing.json"}]}` | policy.json: tools[0].file: 'missing.json' does not exist
      `{"tools": [{"name": "clock", "file": "policy.json"}]}` | policy.json: tools[0].file: only the lookup tool takes a file
      `{"tools": [{"name": "clock", "path": "x"}]}`  | policy.json: tools[0].path: unknown field (known fields of tools[0]: name, file)
      """)
  void badFile_isRejected_namingFieldAndValue(String json, String message) {
    assertThatThrownBy(() -> parse(json == null ? "" : json))
        .isInstanceOf(PolicyFileException.class)
        .hasMessageStartingWith(message.replace("policy.json", dir.resolve("policy.json").toString()))
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", "\u001b"));
  }

  @Test
  void demoTools_areBuiltAndAllowed() throws Exception {
    Files.writeString(dir.resolve("table.json"), "{\"ada\": {\"tier\": \"gold\"}}");

    PolicyFile p = parse("""
        {"tools": ["clock", "kv.get", "kv.put", {"name": "lookup", "file": "table.json"}]}""");

    assertThat(p.toolNames()).containsExactly("clock", "kv.get", "kv.put", "lookup");
    assertThat(p.toBuilder(Language.JAVASCRIPT).build().tools()).containsExactly("clock", "kv.get", "kv.put", "lookup");
    var lookup = p.tools().get(3);
    assertThat(lookup.handler().call(java.util.Map.of("key", "ada"))).isEqualTo(java.util.Map.of("tier", "gold"));
    assertThat(lookup.handler().call(java.util.Map.of("key", "bob"))).isNull();
    var put = p.tools().get(2).handler();
    var get = p.tools().get(1).handler();
    put.call(java.util.Map.of("key", "k", "value", java.util.List.of(1L)));
    assertThat(get.call(java.util.Map.of("key", "k"))).isEqualTo(java.util.List.of(1L));
    assertThat(parse("{}").tools()).isEmpty();
  }

  @Test
  void missingFile_isNamed() {
    Path file = dir.resolve("absent.json");

    assertThatThrownBy(() -> PolicyFile.parse(file)).hasMessage(file + ": no such file");
  }

  @Test
  void nonUtf8File_isRejected() throws IOException {
    Path file = dir.resolve("latin1.json");
    Files.write(file, new byte[] {'{', '"', (byte) 0xe9, '"', ':', '1', '}'});

    assertThatThrownBy(() -> PolicyFile.parse(file)).hasMessage(file + ": is not UTF-8 text");
  }
}
