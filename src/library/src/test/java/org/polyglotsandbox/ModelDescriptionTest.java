package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link PolyglotSandbox#describeForModel}: the policy in guest terms, for a model's code tool. */
class ModelDescriptionTest {
  private static final String KV_SCHEMA =
      "{\"type\": \"object\",\n  \"properties\": {\"key\": {\"type\": \"string\", \"maxLength\": 64}}}";

  @TempDir Path dir;

  private PolyglotSandbox sandbox(Tool... tools) throws IOException {
    Path data = Files.writeString(dir.resolve("sales.csv"), "a,b\n1,2\n");
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT)
        .mount(Mount.readOnly(data, "/data/sales.csv")).mount(Mount.scratch("/scratch"))
        .allowTools("kv.get")
        .limits(Limits.builder().wallTime(Duration.ofMillis(1500)).maxAllocatedBytes(64L << 20).build())
        .build();
    PolyglotSandbox.Builder b = PolyglotSandbox.builder().policy(policy).warmUp(Duration.ZERO);
    for (Tool t : tools) {
      b.tool(t);
    }
    return b.build();
  }

  @Test
  void description_namesMountsToolsAndLimits_inGuestTermsOnly() throws IOException {
    Tool kv = Tool.builder("kv.get").description("Reads a value by key.").parameters(KV_SCHEMA)
        .handler(args -> Map.of()).build();
    try (PolyglotSandbox sandbox = sandbox(kv)) {
      String text = sandbox.describeForModel(Language.JAVASCRIPT);
      assertThat(text)
          .startsWith("Runs JavaScript")
          .contains("/data/sales.csv (read-only)", "/scratch (an empty scratch directory, in memory)",
              "readText(path)", "every other path is denied")
          .contains("tools.NAME({...})", "kv.get (Reads a value by key.), arguments {\"type\": \"object\", "
              + "\"properties\": {\"key\": {\"type\": \"string\", \"maxLength\": 64}}}")
          .contains("wall time 1500 ms", "64 MiB of heap allocation")
          .doesNotContain(dir.toString(), "\n");
    }
  }

  @Test
  void processIsolation_isNamed_withWhatACallWhoseWorkerDiedEndsWith_andInProcessSaysNothingOfWorkers() {
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT).build();
    String process = ModelDescription.of(Language.JAVASCRIPT, policy, java.util.List.of(), java.util.List.of(),
        java.util.List.of(), PolyglotSandbox.Isolation.processBuilder().weakWall().build());
    String inProcess = ModelDescription.of(Language.JAVASCRIPT, policy, java.util.List.of(), java.util.List.of(),
        java.util.List.of(), PolyglotSandbox.Isolation.inProcess());

    assertThat(process).endsWith(" Each call runs in a separate worker process; a call whose worker process ended"
        + " unexpectedly ends CANCELLED and may be tried again.");
    assertThat(process).as("the wall is the host's business").doesNotContain("bubblewrap", "seccomp", "weak");
    assertThat(inProcess).doesNotContain("worker").isEqualTo(process.substring(0, process.indexOf(" Each call runs")));
  }

  @Test
  void description_saysSoWhenNothingIsAllowed() {
    Policy policy = Policy.builder().allowLanguages(Language.PYTHON).build();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).warmUp(Duration.ZERO).build()) {
      assertThat(sandbox.describeForModel(Language.PYTHON))
          .startsWith("Runs Python 3 (GraalPy; the standard library only")
          .contains("Files: none (every file operation is denied)", "Host tools: none.")
          .doesNotContain("readText");
    }
  }

  @Test
  void description_saysHowAnAsyncProgramGivesItsValue_inEachLanguage() {
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON).build();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).startInBackground().build()) {
      assertThat(sandbox.describeForModel(Language.JAVASCRIPT))
          .contains("An async program works: with top-level await its value is still its last expression's (or"
              + " what it returns); a Promise as its last expression is awaited.");
      assertThat(sandbox.describeForModel(Language.PYTHON))
          .contains("An async program works: asyncio needs no permission, and a coroutine as its last expression"
              + " (such as main()) is run to its end; tool calls return their values at once, not awaitables.");
    }
  }

  @Test
  void aLongSchema_isCutAndSaysSo() throws IOException {
    String huge = "{\"type\": \"object\", \"description\": \"" + "x".repeat(5000) + "\"}";
    Tool kv = Tool.builder("kv.get").parameters(huge).handler(args -> Map.of()).build();
    try (PolyglotSandbox sandbox = sandbox(kv)) {
      String text = sandbox.describeForModel(Language.JAVASCRIPT);
      assertThat(text).contains("x".repeat(100) + "... (cut)").hasSizeLessThan(ModelDescription.MAX_SCHEMA_CHARS + 1500);
    }
  }

  @Test
  void aLanguageThePolicyDoesNotAllow_isRefusedByName() throws IOException {
    Tool kv = Tool.builder("kv.get").parameters(KV_SCHEMA).handler(args -> Map.of()).build();
    try (PolyglotSandbox sandbox = sandbox(kv)) {
      assertThatThrownBy(() -> sandbox.describeForModel(Language.PYTHON))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("python").hasMessageContaining("not allowed");
    }
  }
}
