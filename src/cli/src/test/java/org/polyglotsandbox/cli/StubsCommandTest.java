package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sandbox stubs}: typed stubs of a policy file's tools, and clear errors for bad usage. */
class StubsCommandTest {
  private static final String SAMPLE_POLICY = "guest-samples/policy.json";

  @TempDir
  Path dir;

  @Test
  void samplePolicy_typeScript_declaresEachAllowedTool() {
    CliRun r = CliRun.of("stubs", "--policy", SAMPLE_POLICY, "--lang", "ts");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out()).startsWith("// TypeScript declarations")
        .contains("interface KvGetParams {\n  key: string;\n}", "clock(args?: ClockParams): ClockResult;",
            "    get(args: KvGetParams): KvGetResult;", "  \"kv.put\"(args: KvPutParams): KvPutResult;",
            "lookup(args: LookupParams): LookupResult;", "Reads a value from the in-memory key-value store",
            "declare const tools: Tools;")
        .doesNotContain(Path.of("").toAbsolutePath().toString());
  }

  @Test
  void samplePolicy_python_declaresKeywordArguments() {
    CliRun r = CliRun.of("stubs", "--policy", SAMPLE_POLICY, "--lang", "python");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out()).startsWith("# Python stubs (.pyi)")
        .contains("class _Tools_kv:", "def get(self, *, key: str) -> KvGetResult:",
            "def put(self, *, key: str, value: dict[str, Any] | list[Any] | str | float | bool | None) -> KvPutResult:", "class ClockResult(TypedDict):",
            "    kv: _Tools_kv\n", "tools: Tools\n");
  }

  @Test
  void noPolicy_declaresNoTools() {
    CliRun r = CliRun.of("stubs", "--lang", "ts");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out()).contains("declare class ToolError extends Error", "interface Tools {\n}");
  }

  @Test
  void unknownLanguage_isAUsageError_namingTheValue() {
    CliRun r = CliRun.of("stubs", "--lang", "rust");

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("'rust' is not ts or python").contains("sandbox stubs --help");
  }

  @Test
  void missingLanguage_isAUsageError() {
    CliRun r = CliRun.of("stubs", "--policy", SAMPLE_POLICY);

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--lang");
  }

  @Test
  void languageThePolicyDoesNotAllow_isAUsageError() throws IOException {
    Path policy = Files.writeString(dir.resolve("py-only.json"), "{\"languages\": [\"python\"], \"tools\": [\"clock\"]}");
    CliRun r = CliRun.of("stubs", "--policy", policy.toString(), "--lang", "ts");

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("languages: does not allow js (allowed: python)");
  }

  @Test
  void badPolicyFile_isAUsageError() throws IOException {
    Path policy = Files.writeString(dir.resolve("bad.json"), "{\"tools\": [\"rm\"]}");
    CliRun r = CliRun.of("stubs", "--policy", policy.toString(), "--lang", "python");

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("'rm' is not a demo tool");
  }
}
