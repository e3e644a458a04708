package org.polyglotsandbox.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;

/** {@link PolicyFileReader}: the format of {@code docs/policy-file.md}, strict, messages naming the field. */
class PolicyFileReaderTest {
  @TempDir
  Path dir;

  private Path write(String json) throws Exception {
    return Files.writeString(dir.resolve("policy.json"), json);
  }

  @Test
  void theDocumentedFields_makeThePolicy() throws Exception {
    Files.createDirectory(dir.resolve("data"));
    Policy p = PolicyFileReader.read(write("""
        {"languages": ["python", "javascript"],
         "mounts": [{"host": "data", "guest": "/data"}, {"host": "data", "guest": "/copy", "access": "rw"},
                    {"guest": "/scratch", "access": "scratch"}],
         "workingDirectory": "/scratch",
         "limits": {"wallTime": "1.5s", "maxCpuTime": "500ms", "maxStatements": 1000, "maxOutputBytes": "64k",
                    "stackSize": "8m", "maxAllocatedBytes": 1073741824},
         "tools": ["kv.get", {"name": "clock"}]}""")).policy().build();

    assertThat(p.languages()).containsExactlyInAnyOrder(Language.PYTHON, Language.JAVASCRIPT);
    assertThat(p.mounts()).extracting(Mount::guestPath, Mount::isWritable)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("/data", false),
            org.assertj.core.groups.Tuple.tuple("/copy", true), org.assertj.core.groups.Tuple.tuple("/scratch", true));
    assertThat(p.mounts().get(0).hostPath()).contains(dir.resolve("data").toAbsolutePath());
    assertThat(p.workingDirectory()).isEqualTo("/scratch");
    assertThat(p.limits().wallTime()).isEqualTo(Duration.ofMillis(1500));
    assertThat(p.limits().maxCpuTime()).isEqualTo(Duration.ofMillis(500));
    assertThat(p.limits().maxStatements()).isEqualTo(1000);
    assertThat(p.limits().maxOutputBytes()).isEqualTo(65536);
    assertThat(p.tools()).containsExactly("kv.get", "clock");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"limits\": {\"wallTime\": \"2 sec\"}}               | limits.wallTime: \"2 sec\" is not a duration (use 500ms, 2s, 1.5s or 1m)",
      "{\"limits\": {\"wallTme\": \"2s\"}}                   | limits.wallTme: unknown field (known fields of limits: maxStatements, wallTime",
      "{\"limits\": {\"maxStatements\": 1.5}}                | limits.maxStatements: 1.5 is not a whole number",
      "{\"limits\": {\"maxOutputBytes\": \"1t\"}}            | limits.maxOutputBytes: \"1t\" is not a size",
      "{\"languages\": []}                                   | languages: must be a non-empty list",
      "{\"languages\": [\"ruby\"]}                           | languages[0]: unknown language 'ruby'",
      "{\"mounts\": [{\"host\": \"nope\", \"guest\": \"/d\"}]} | mounts[0].host: 'nope' does not exist",
      "{\"mounts\": [{\"guest\": \"/d\", \"access\": \"x\"}]}  | mounts[0].host: is required unless access is \"scratch\"",
      "{\"tools\": [{\"name\": \"lookup\", \"file\": \"c.json\"}]} | tools[0].file: unknown field (known fields of tools[0]: name); bin/sandbox's demonstration tools are not here",
      "{\"networking\": true}                                | networking: unknown field",
      "{\"a\": 1, \"a\": 2}                                  | cannot be read as JSON",
      "[]                                                    | must hold a JSON object"})
  void aBadValue_isRefusedNamingTheFileTheFieldAndTheValue(String json, String message) throws Exception {
    Path file = write(json);

    assertThatThrownBy(() -> PolicyFileReader.read(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(file.toString())
        .hasMessageContaining(message);
  }

  @Test
  void theRepositorysSamplePolicy_isRead_butItsDemoToolFileIsRefused() {
    assertThatThrownBy(() -> PolicyFileReader.read(Path.of("guest-samples/policy.json")))
        .hasMessageContaining("tools[3].file: unknown field");
  }
}
