package org.polyglotsandbox.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ToolContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@link SandboxToolCallback} on its own: its definition, arguments, inputs and conversation id. */
class SandboxToolCallbackTest {
  private static PolyglotSandbox sandbox;
  private static final List<SandboxRun> RUNS = new CopyOnWriteArrayList<>();
  private static SandboxToolCallback callback;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60)).build())
        .build()).build();
    callback = SandboxToolCallback.builder(sandbox, Language.JAVASCRIPT).onRun(RUNS::add).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @Test
  void theInputSchema_isCodeAndOptionalInputs_closed() {
    JsonNode schema = JsonMapper.builder().build().readTree(callback.getToolDefinition().inputSchema());

    assertThat(callback.getToolDefinition().name()).isEqualTo("run_javascript");
    assertThat(schema.get("required").toString()).isEqualTo("[\"code\"]");
    assertThat(schema.get("additionalProperties").booleanValue()).isFalse();
    assertThat(schema.get("properties").propertyNames()).containsExactly("code", "inputs");
    assertThat(callback.getToolDefinition().description()).contains("JavaScript", "Files: none (every file operation is denied)", "wall time 60 s");
  }

  @Test
  void inputs_areBoundAsGlobals_andTheConversationIdGoesWithTheRun() {
    String text = callback.call("{\"code\": \"a.length * b\", \"inputs\": {\"a\": [1, 2], \"b\": 21}}",
        new ToolContext(Map.of(ChatMemory.CONVERSATION_ID, "c-9")));

    assertThat(ModelTexts.firstLine(text, "value as JSON")).isEqualTo("42");
    assertThat(RUNS.get(RUNS.size() - 1).conversationId()).isEqualTo("c-9");
  }

  @Test
  void withoutAToolContext_theRunHasNoConversationId() {
    callback.call("{\"code\": \"1\"}");

    assertThat(RUNS.get(RUNS.size() - 1).conversationId()).isNull();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "not json                                      | the arguments are not a JSON object",
      "\"text\"                                      | the arguments must be a JSON object",
      "{\"code\": true}                              | argument \"code\" must be a string, got a boolean",
      "{\"code\": \"1\", \"language\": \"py\"}       | unknown argument \"language\"",
      "{\"code\": \"1\", \"inputs\": {\"1x\": 1}}    | input name '1x' is not a valid identifier"})
  void badArguments_comeBackAsTextNamingTheProblem_andNothingRuns(String arguments, String problem) {
    int before = RUNS.size();

    assertThat(callback.call(arguments)).startsWith("Invalid arguments for run_javascript: ").contains(problem)
        .endsWith("Nothing ran.");
    assertThat(RUNS).hasSize(before);
  }

  @Test
  void anInputTheSandboxRefusesToEncode_comesBackAsText_andNothingRuns() {
    int before = RUNS.size();
    String deep = "[".repeat(70) + "]".repeat(70);

    String text = callback.call("{\"code\": \"1\", \"inputs\": {\"deep\": " + deep + "}}");

    assertThat(text).startsWith("Invalid arguments for run_javascript: input deep").endsWith("Nothing ran.");
    assertThat(RUNS).hasSize(before);
  }

  @Test
  void aLanguageThePolicyDoesNotAllow_isRefused() {
    assertThatThrownBy(() -> SandboxToolCallback.builder(sandbox, Language.PYTHON))
        .hasMessage("the sandbox's policy does not allow language 'python' (allowed: [js])");
  }
}
