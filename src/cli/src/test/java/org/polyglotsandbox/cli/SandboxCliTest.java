package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sandbox run} in this JVM: exit statuses, the report, {@code --json}, policies and mounts. */
class SandboxCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path file(String name, String content) throws IOException {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, content);
    return p;
  }

  private static CliRun run(Object... args) {
    String[] a = new String[args.length + 1];
    a[0] = "run";
    for (int i = 0; i < args.length; i++) {
      a[i + 1] = args[i].toString();
    }
    return CliRun.of(a);
  }

  private static void assertUsageError(CliRun r, String... fragments) {
    assertThat(r.status()).as(r.toString()).isEqualTo(2);
    assertThat(r.out()).as("stdout").isEmpty();
    assertThat(r.err().lines()).as("stderr is one line").hasSize(1);
    assertThat(r.err()).contains(fragments);
  }

  // ---- exit statuses ----

  @Test
  void aResultKeyOrIntegerJsonReadersRefuse_exitsFourWithOneJsonObject() throws IOException {
    for (String code : new String[] {"const o = {}; o['k'.repeat(60000)] = 1; o", "({n: 10n ** 1500n})"}) {
      CliRun r = run(file("big.js", code), "--json");
      assertThat(r.status()).as(r.toString()).isEqualTo(4);
      JsonNode result = JSON.readTree(r.out());
      assertThat(result.get("outcome").asText()).isEqualTo("OUTPUT_REJECTED");
      assertThat(result.get("error").asText()).contains("a JSON reader accepts");
    }
  }

  @Test
  void pythonPath_letsTheProgramImportAMountedPackage_andABadDirectoryIsAUsageError() throws IOException {
    file("lib/tally/__init__.py", "def total(xs):\n    return sum(xs)\n");
    String mount = dir.resolve("lib") + ":/pkgs";
    CliRun r = run(file("use.py", "import sys, tally\n[sys.path[0], tally.total([3, 4])]"), "--mount", mount,
        "--python-path", "/pkgs", "--json");

    assertThat(r.status()).as(r.toString()).isZero();
    JsonNode value = JSON.readTree(r.out()).get("value");
    assertThat(value.get(0).asText()).isEqualTo("/pkgs");
    assertThat(value.get(1).asInt()).isEqualTo(7);
    assertUsageError(run(file("use.py", "1"), "--mount", mount, "--python-path", "/elsewhere"),
        "--python-path", "'/elsewhere'", "neither inside nor above any of the policy's mounts [/pkgs]");
    assertUsageError(run(file("use.py", "1"), "--python-path", "pkgs"), "--python-path", "'pkgs'", "absolute");
    assertUsageError(run(file("a.js", "1"), "--mount", mount, "--python-path", "/pkgs"),
        "--python-path needs a policy that allows Python");
  }

  @Test
  void expression_printsValueAndReport_exitsZero() throws IOException {
    CliRun r = run(file("answer.js", "console.log('hello'); 6*7"));

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out().lines()).containsExactly(
        "value: 42", "guest stdout:", "  | hello", r.out().lines().toList().get(3));
    assertThat(r.out().lines().toList().get(3))
        .startsWith("outcome: OK | wall time: ")
        .endsWith(" | output: 6 bytes | denied: 0");
  }

  @Test
  void guestError_exitsOne_withMessageAndGuestStack() throws IOException {
    CliRun r = run(file("fails.js", "function f() { throw new Error('x'); }\nf();"));

    assertThat(r.status()).as(r.toString()).isEqualTo(1);
    assertThat(r.out()).contains("guest error: Error: x", "    at fails.js:1 (f)", "outcome: GUEST_ERROR");
    assertThat(r.out()).doesNotContain(dir.toString()); // guest frames name the file, never the host path
  }

  @Test
  void syntaxError_exitsOne() throws IOException {
    CliRun r = run(file("broken.js", "let = = 3"));

    assertThat(r.status()).as(r.toString()).isEqualTo(1);
    assertThat(r.out()).contains("syntax error: SyntaxError", "outcome: SYNTAX_ERROR");
  }

  @Test
  void infiniteLoop_isStoppedByTimeout_exitsThree() throws IOException {
    // A hot JIT runs the default 10^8 statements in ~0.1 s; lift the cap so the timeout is what trips.
    CliRun r = run(file("loop.js", "while (true) {}"), "--timeout", "500ms", "--max-statements", "1000000000000000");

    assertThat(r.status()).as(r.toString()).isEqualTo(3);
    assertThat(r.out()).contains("stopped: limit exceeded: wall time exceeded 500 ms",
        "outcome: LIMIT_EXCEEDED (wall_time)");
  }

  @Test
  void infiniteLoop_isStoppedByStatementLimit_exitsThree() throws IOException {
    CliRun r = run(file("loop.js", "while (true) {}"), "--max-statements", "10000", "--json");

    assertThat(r.status()).as(r.toString()).isEqualTo(3);
    JsonNode o = JSON.readTree(r.out());
    assertThat(o.get("limit").asText()).isEqualTo("statements");
    assertThat(o.get("usage").get("statements").asLong()).isEqualTo(10000);
  }

  // ---- the output boundary: exit 4, result schema, output files ----

  @Test
  void cyclicResult_isRejected_exitsFour() throws IOException {
    CliRun human = run(file("cyclic.js", "const a = {}; a.self = a; a"));

    assertThat(human.status()).as(human.toString()).isEqualTo(4);
    assertThat(human.out()).contains("rejected: output rejected: $.self: a cycle",
        "outcome: OUTPUT_REJECTED (cycle) | ");

    CliRun json = run(file("cyclic.js", "const a = {}; a.self = a; a"), "--json");
    assertThat(json.status()).as(json.toString()).isEqualTo(4);
    JsonNode o = JSON.readTree(json.out());
    assertThat(o.get("outcome").asText()).isEqualTo("OUTPUT_REJECTED");
    assertThat(o.get("value").isNull()).isTrue();
    assertThat(o.get("rejection").get("reason").asText()).isEqualTo("cycle");
    assertThat(o.get("rejection").get("path").asText()).isEqualTo("$.self");
    assertThat(o.get("events").findValuesAsText("type")).contains("output_rejected");
  }

  @Test
  void resultSchema_violation_exitsFour_namingThePath() throws IOException {
    Path schema = file("schema.json", "{\"type\": \"object\", \"properties\": {\"rows\": {\"type\": \"array\","
        + " \"items\": {\"properties\": {\"price\": {\"type\": \"number\"}}}}}}");
    CliRun ok = run(file("ok.js", "({rows: [{price: 1}]})"), "--result-schema", schema);
    assertThat(ok.status()).as(ok.toString()).isZero();

    CliRun r = run(file("bad.js", "({rows: [{price: 1}, {price: 'free'}]})"), "--result-schema", schema, "--json");
    assertThat(r.status()).as(r.toString()).isEqualTo(4);
    JsonNode rejection = JSON.readTree(r.out()).get("rejection");
    assertThat(rejection.get("reason").asText()).isEqualTo("schema_violation");
    assertThat(rejection.get("path").asText()).isEqualTo("$.rows[1].price");
  }

  @Test
  void resultSchemaThatIsNotASchema_exitsWithUsageError() throws IOException {
    assertUsageError(run(file("a.js", "1"), "--result-schema", file("s.json", "{\"type\": 12}")),
        "--result-schema", "s.json", "not a valid JSON Schema");
    assertUsageError(run(file("a.js", "1"), "--result-schema", dir.resolve("none.json")),
        "--result-schema", "none.json", "does not exist");
  }

  @Test
  void outputFile_isWrittenBelowTheOutputDir() throws IOException {
    Path data = file("data/in.csv", "a,b\n");
    Path out = Files.createDirectories(dir.resolve("results"));
    CliRun r = run(file("noop.js", "readText('/data/in.csv').length"), "--mount", data.getParent() + ":/data:rw",
        "--output-file", "/data/in.csv", "--output-file", "/data/none.csv", "--output-dir", out);

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(out.resolve("data/in.csv")).hasContent("a,b\n");
    assertThat(r.out()).contains("output file: /data/in.csv (4 bytes) written to " + out.toRealPath().resolve("data/in.csv"),
        "output file missing: /data/none.csv");

    CliRun again = run(file("noop.js", "1"), "--mount", data + ":/data/in.csv:rw", "--output-file", "/data/in.csv",
        "--output-dir", out);
    assertUsageError(again, "--output-dir", "already exists");
  }

  @Test
  void outputFile_withoutOutputDir_isOnlyReported() throws IOException {
    Path data = file("data/in.csv", "a,b\n");
    CliRun r = run(file("noop.js", "1"), "--mount", data + ":/data/in.csv:rw", "--output-file", "/data/in.csv", "--json");

    assertThat(r.status()).as(r.toString()).isZero();
    JsonNode f = JSON.readTree(r.out()).get("outputFiles").get(0);
    assertThat(f.get("path").asText()).isEqualTo("/data/in.csv");
    assertThat(f.get("bytes").asInt()).isEqualTo(4);
    assertThat(f.get("writtenTo").isNull()).isTrue();
  }

  @Test
  void badOutputFileOptions_exitWithUsageError() throws IOException {
    assertUsageError(run(file("a.js", "1"), "--output-file", "/out/r.csv"), "--output-file", "/out/r.csv",
        "outside every mount");
    assertUsageError(run(file("a.js", "1"), "--output-file", "/out/../etc/passwd"), "--output-file", "'..'");
    assertUsageError(run(file("a.js", "1"), "--output-dir", dir), "--output-dir", "needs at least one --output-file");
    assertUsageError(run(file("a.js", "1"), "--mount", file("x.csv", "x") + ":/x.csv:rw", "--output-file", "/x.csv",
        "--output-dir", dir.resolve("missing")), "--output-dir", "is not an existing directory");
  }

  @Test
  void fileOption_handsTheHostFileToTheRun_andARewrittenCopyComesBack() throws IOException {
    Path upload = file("upload.csv", "a,b\n");
    Path out = Files.createDirectories(dir.resolve("transformed"));
    CliRun r = run(file("up.py", "t = open('/in/u.csv').read()\nwith open('/in/u.csv', 'w') as f:\n    f.write(t.upper())\nlen(t)"),
        "--file", upload + ":/in/u.csv:rw", "--output-file", "/in/u.csv", "--output-dir", out);
    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(out.resolve("in/u.csv")).hasContent("A,B\n");
    assertThat(upload).as("the host file itself").hasContent("a,b\n");

    CliRun js = run(file("read.js", "readText('/in/u.csv')"), "--file", upload + ":/in/u.csv", "--json");
    assertThat(js.status()).as(js.toString()).isZero();
    assertThat(JSON.readTree(js.out()).get("value").asText()).isEqualTo("a,b\n");
  }

  @Test
  void badFileOptions_exitWithUsageError() throws IOException {
    Path upload = file("upload.csv", "a,b\n");
    assertUsageError(run(file("a.js", "1"), "--file", "/nowhere/x.csv:/in/x.csv"), "--file", "does not exist");
    assertUsageError(run(file("a.js", "1"), "--file", upload.toString()), "--file", "HOST_FILE:GUEST_PATH");
    assertUsageError(run(file("a.js", "1"), "--file", upload + ":in/x.csv"), "--file", "must be absolute");
    assertUsageError(run(file("a.js", "1"), "--file", upload + ":/data/x.csv", "--mount", upload + ":/data/x.csv"),
        "/data/x.csv", "inside mount");
    assertUsageError(run(file("a.js", "1"), "--file", upload + ":/in/x.csv", "--output-file", "/in/x.csv"),
        "--output-file", "/in/x.csv");
  }

  // ---- usage errors: one line naming the value, exit 2, nothing on stdout ----

  @Test
  void badFlag_exitsWithUsageError() throws IOException {
    assertUsageError(run(file("a.js", "1"), "--frobnicate"), "--frobnicate");
  }

  @Test
  void missingFile_exitsWithUsageError() {
    assertUsageError(run(dir.resolve("nope.js")), "nope.js", "does not exist");
  }

  @Test
  void missingFileArgument_exitsWithUsageError() {
    assertUsageError(run(), "FILE");
  }

  @Test
  void unknownExtension_exitsWithUsageError_suggestingLang() throws IOException {
    assertUsageError(run(file("notes.txt", "1")), "notes.txt", "--lang");
  }

  @Test
  void langFlag_overridesTheExtension() throws IOException {
    CliRun r = run(file("script", "'js' + 1"), "--lang", "js");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out()).startsWith("value: \"js1\"");
  }

  @Test
  void badDuration_exitsWithUsageError_namingValue() throws IOException {
    assertUsageError(run(file("a.js", "1"), "--timeout", "2 sec"), "--timeout", "'2 sec' is not a duration");
  }

  @Test
  void nonPositiveStatementLimit_exitsWithUsageError_namingValue() throws IOException {
    assertUsageError(run(file("a.js", "1"), "--max-statements", "0"), "--max-statements", "(0) must be positive");
  }

  @Test
  void mountOfMissingHostPath_exitsWithUsageError() throws IOException {
    assertUsageError(run(file("a.js", "1"), "--mount", dir.resolve("absent.csv") + ":/data/in.csv"),
        "absent.csv", "does not exist");
  }

  @Test
  void malformedPolicyJson_exitsWithUsageError() throws IOException {
    Path policy = file("policy.json", "{\"languages\": [\"js\",}");

    assertUsageError(run(file("a.js", "1"), "--policy", policy), "policy.json: not valid JSON at line 1");
  }

  @Test
  void unknownPolicyField_exitsWithUsageError_namingTheField() throws IOException {
    Path policy = file("policy.json", "{\"limits\": {\"wallTme\": \"2s\"}}");

    assertUsageError(run(file("a.js", "1"), "--policy", policy), "policy.json: limits.wallTme: unknown field");
  }

  @Test
  void badDurationInPolicy_namesFieldAndValue() throws IOException {
    Path policy = file("policy.json", "{\"limits\": {\"wallTime\": \"2 sec\"}}");

    assertUsageError(run(file("a.js", "1"), "--policy", policy),
        "policy.json: limits.wallTime: '2 sec' is not a duration (use 500ms, 2s");
  }

  @Test
  void policyWithoutTheProgramsLanguage_exitsWithUsageError() throws IOException {
    Path policy = file("policy.json", "{\"languages\": [\"python\"]}");

    assertUsageError(run(file("a.js", "1"), "--policy", policy), "languages: does not allow js");
  }

  @Test
  void mountOverlappingThePolicysMount_exitsWithUsageError() throws IOException {
    file("lib/a.js", "1");
    Path policy = file("policy.json", "{\"mounts\": [{\"host\": \"lib\", \"guest\": \"/lib\"}]}");

    assertUsageError(run(file("main.js", "1"), "--policy", policy, "--mount", dir.resolve("lib/a.js") + ":/lib/a.js"),
        "mounts overlap at guest paths /lib and /lib/a.js");
  }

  // ---- --json ----

  @Test
  void json_printsExactlyOneObjectWithAllFields() throws IOException {
    CliRun r = run(file("answer.js", "console.log('hi'); console.error('careful'); 6*7"), "--json");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out().lines()).hasSize(1);
    JsonNode o = JSON.readTree(r.out());
    assertThat(o.isObject()).isTrue();
    assertThat(o.properties()).extracting(java.util.Map.Entry::getKey).contains(
        "outcome", "limit", "value", "error", "stdout", "stderr", "usage", "events", "exitStatus", "guestStackTrace",
        "rejection", "outputNotes", "outputFiles", "missingOutputFiles");
    assertThat(o.get("outcome").asText()).isEqualTo("OK");
    assertThat(o.get("limit").isNull()).isTrue();
    assertThat(o.get("value").asInt()).isEqualTo(42);
    assertThat(o.get("error").isNull()).isTrue();
    assertThat(o.get("stdout").asText()).isEqualTo("hi\n");
    assertThat(o.get("stderr").asText()).isEqualTo("careful\n");
    assertThat(o.get("usage").get("wallTimeMillis").isIntegralNumber()).isTrue();
    assertThat(o.get("usage").get("queueTimeMillis").isIntegralNumber()).isTrue();
    assertThat(o.get("usage").get("setupTimeMillis").isIntegralNumber()).isTrue();
    assertThat(o.get("usage").get("statements").isNull()).isTrue();
    assertThat(o.get("usage").get("outputBytes").asLong()).isEqualTo(11);
    assertThat(o.get("events").isArray()).isTrue();
  }

  @Test
  void json_keepsNumberTypes_andSpellsOutNonFiniteDoubles() throws IOException {
    CliRun r = run(file("values.js", "({big: 2n ** 70n, nan: NaN, inf: -Infinity, half: 0.5, s: 'x', l: [true, null]})"),
        "--json");

    JsonNode v = JSON.readTree(r.out()).get("value");
    assertThat(v.get("big").isIntegralNumber()).isTrue();
    assertThat(v.get("big").bigIntegerValue()).isEqualTo(java.math.BigInteger.TWO.pow(70));
    assertThat(v.get("nan").asText()).isEqualTo("NaN");
    assertThat(v.get("inf").asText()).isEqualTo("-Infinity");
    assertThat(v.get("half").asDouble()).isEqualTo(0.5);
    assertThat(v.get("l").toString()).isEqualTo("[true,null]");
  }

  @Test
  void json_guestErrorAndLimit_fillErrorLimitAndEvents() throws IOException {
    CliRun r = run(file("loop.js", "load('/etc/passwd')"), "--json");

    assertThat(r.status()).as(r.toString()).isEqualTo(1);
    JsonNode o = JSON.readTree(r.out());
    assertThat(o.get("outcome").asText()).isEqualTo("GUEST_ERROR");
    assertThat(o.get("error").asText()).isNotEmpty();
    assertThat(o.get("guestStackTrace").isArray()).isTrue();
    JsonNode e = o.get("events").get(0);
    assertThat(e.get("type").asText()).isEqualTo("denied_operation");
    assertThat(e.get("operation").asText()).isEqualTo("file.read");
    assertThat(e.get("target").asText()).isEqualTo("/etc/passwd");
    assertThat(e.get("layer").asText()).isEqualTo("virtual-file-system");
    assertThat(e.get("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
  }

  @Test
  void json_limitExceeded_hasLimitAndEvent() throws IOException {
    CliRun r = run(file("loop.js", "while (true) {}"), "--timeout", "300ms", "--max-statements", "1000000000000000",
        "--json");

    JsonNode o = JSON.readTree(r.out());
    assertThat(o.get("outcome").asText()).isEqualTo("LIMIT_EXCEEDED");
    assertThat(o.get("limit").asText()).isEqualTo("wall_time");
    JsonNode e = o.get("events").get(0);
    assertThat(e.get("type").asText()).isEqualTo("limit_exceeded");
    assertThat(e.get("limit").asText()).isEqualTo("wall_time");
    assertThat(e.get("layer").asText()).isEqualTo("watchdog");
    assertThat(e.get("detail").asText()).contains("300 ms");
  }

  @Test
  void json_usageError_leavesStdoutEmpty() {
    CliRun r = run(dir.resolve("nope.js"), "--json");

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
  }

  // ---- the report ----

  @Test
  void deniedOperations_areCountedAndNamedInTheReport() throws IOException {
    CliRun r = run(file("snoop.js", "try { load('/etc/passwd') } catch (e) {} 1"));

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out()).contains("| denied: 1 (file.read /etc/passwd)");
  }

  @Test
  void guestControlCharacters_areEscapedInTheReport() throws IOException {
    CliRun r = run(file("ansi.js",
        "console.log('a\\x1b[2Jb\\u009b1mc\\u202ed\\re'); console.error('\\x07'); 'v\\x1b'"));

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out()).doesNotContain("\u001b", "\u009b", "\u202e", "\r", "\u0007");
    // The library removed the escape sequences and the override and replaced the controls; the value's
    // strings are the guest's own, escaped by the report.
    assertThat(r.out()).contains("  | abcd\n  | e\n", "  | \uFFFD", "value: \"v\\u001B\"",
        "note: stdout: 2 terminal escape sequences removed, 1 control character replaced,"
            + " 1 invisible formatting character removed",
        "note: stderr: 1 control character replaced");
  }

  @Test
  void guestOutput_cannotPassItselfOffAsTheReport() throws IOException {
    CliRun r = run(file("spoof.js", "console.log('outcome: OK | wall time: 1 ms'); throw new Error('x')"));

    assertThat(r.out().lines().filter(l -> l.startsWith("outcome:"))).hasSize(1);
  }

  // ---- policies and mounts ----

  @Test
  void policyFile_relativeHostPaths_resolveAgainstItsDirectory() throws IOException {
    file("conf/lib/answer.js", "globalThis.answer = 41;");
    Path policy = file("conf/policy.json",
        "{\"languages\": [\"js\"], \"mounts\": [{\"host\": \"lib/answer.js\", \"guest\": \"/lib/answer.js\"}]}");
    Path program = file("elsewhere/main.js", "load('/lib/answer.js'); answer + 1");

    CliRun r = run(program, "--policy", policy);

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out()).startsWith("value: 42");
  }

  @Test
  void flags_overrideThePolicysLimits() throws IOException {
    Path policy = file("policy.json", "{\"limits\": {\"wallTime\": \"1m\", \"maxStatements\": 5}}");

    CliRun r = run(file("loop.js", "while (true) {}"), "--policy", policy, "--timeout", "300ms",
        "--max-statements", "100000000000");

    assertThat(r.status()).as(r.toString()).isEqualTo(3);
    assertThat(r.out()).contains("outcome: LIMIT_EXCEEDED (wall_time)");
  }

  /** Python, because JavaScript has no file-writing API here; the first Python sandbox takes 5-15 s. */
  @Test
  @Tag("slow")
  void mount_defaultsToReadOnly_guestWriteIsDenied_hostFileUnchanged() throws IOException {
    Path data = file("data/sales.csv", "region,total\n");
    Path program = file("write.py", """
        print(open('/data/sales.csv').read().strip())
        with open('/data/sales.csv', 'w') as f:
            f.write('pwned')
        """);

    CliRun r = run(program, "--mount", data + ":/data/sales.csv", "--json");

    assertThat(r.status()).as(r.toString()).isEqualTo(1);
    JsonNode o = JSON.readTree(r.out());
    assertThat(o.get("stdout").asText()).isEqualTo("region,total\n");
    assertThat(o.get("error").asText()).contains("PermissionError");
    assertThat(o.get("events").findValuesAsText("operation")).contains("file.write");
    assertThat(o.get("events").findValuesAsText("target")).contains("/data/sales.csv");
    assertThat(Files.readString(data)).isEqualTo("region,total\n");
  }

  // ---- help and version ----

  @Test
  void help_exitsZero_andListsExitStatuses() {
    CliRun r = CliRun.of("run", "--help");

    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("--mount", "--policy", "--json", "--timeout", "--max-statements", "--lang",
        "--result-schema", "--output-file", "--output-dir", "4   the output boundary rejected", "5   internal error");
  }

  @Test
  void topLevelAndRunHelp_listEveryExitStatusARunCanEndWith() {
    for (String[] args : new String[][] {{"--help"}, {"run", "--help"}}) {
      CliRun r = CliRun.of(args);

      assertThat(r.status()).as(r.toString()).isZero();
      assertThat(r.out()).contains("Exit status:");
      String statuses = r.out().substring(r.out().indexOf("Exit status:"));
      for (ExitStatus s : ExitStatus.values()) {
        assertThat(statuses).as("'sandbox %s' lists %s", String.join(" ", args), s)
            .containsPattern("(?m)^\\s*" + s.code() + " {3}\\S");
      }
    }
  }

  @Test
  void noCommand_printsUsage_exitsTwo() {
    CliRun r = CliRun.of();

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("Usage: sandbox");
  }

  @Test
  void version_matchesThePom() throws IOException {
    Matcher m = Pattern.compile("<artifactId>polyglot-sandbox-parent</artifactId>\\s*<version>([^<]+)</version>")
        .matcher(Files.readString(Path.of("pom.xml")));
    assertThat(m.find()).isTrue();

    CliRun r = CliRun.of("--version");

    assertThat(r.status()).isZero();
    assertThat(r.out()).startsWith("polyglot-sandbox " + m.group(1) + "\n").contains("GraalVM Polyglot 25.");
  }
}
