package org.polyglotsandbox.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.service.tool.ToolProviderRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Tool;

/** {@link SandboxTools} on its own: the schema, the description, arguments and inputs. */
class SandboxToolsTest {
  private static PolyglotSandbox sandbox;
  private static final List<AgentRun> RUNS = new CopyOnWriteArrayList<>();
  private static SandboxTools tools;

  @BeforeAll
  static void build() {
    Tool clock = Tool.builder("clock").description("The time now").handler(args -> "12:00").inline().build();
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.builder().allowLanguages(Language.JAVASCRIPT)
            .mount(Mount.readOnly(Path.of("guest-samples/data"), "/data"))
            .mount(Mount.scratch("/scratch"))
            .allowTools("clock")
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60))
                .maxStatements(1_000_000).build())
            .build())
        .tool(clock)
        .build();
    tools = SandboxTools.builder(sandbox).onRun(RUNS::add).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static String call(String arguments) {
    ToolExecutionRequest request = ToolExecutionRequest.builder().id("1").name("run_javascript").arguments(arguments).build();
    return tools.tools().values().iterator().next().execute(request, "memory-1");
  }

  @Test
  void onlyTheLanguagesThePolicyAllows_areOffered() {
    assertThat(tools.specifications()).extracting(ToolSpecification::name).containsExactly("run_javascript");
    assertThat(tools.provideTools(new ToolProviderRequest("m", UserMessage.from("hi"))).aiServiceTools())
        .extracting(t -> t.toolSpecification().name()).containsExactly("run_javascript");
  }

  @Test
  void parameters_areCodeAndOptionalInputs_andNothingElse() {
    String json = tools.specifications().get(0).toJson();

    assertThat(json).contains("\"required\":[\"code\"]", "\"additionalProperties\":false",
        "\"maxLength\":" + SandboxTools.MAX_CODE_CHARS, "\"inputs\":{\"type\":\"object\"");
  }

  @Test
  void description_statesTheMountsToolsAndLimits() {
    String description = tools.specifications().get(0).description();

    assertThat(description).contains("JavaScript", "readText(path)", "/data (read-only)",
        "/scratch (an empty scratch directory, in memory)", "clock (The time now)",
        "No network, processes, threads", "wall time 60 s", "1,000,000 statements", "1 MiB of stdout and stderr");
  }

  @Test
  void inputs_areBoundAsGlobalVariables() {
    String text = call("{\"code\": \"rows.reduce((a, b) => a + b, 0) * factor\", \"inputs\": {\"rows\": [1, 2, 3], \"factor\": 2}}");

    assertThat(ModelTexts.outcome(text)).isEqualTo("OK");
    assertThat(ModelTexts.firstLine(text, "value as JSON")).isEqualTo("12");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "not json                                      | the arguments are not a JSON object",
      "[1, 2]                                        | the arguments must be a JSON object",
      "{}                                            | missing argument \"code\"",
      "{\"code\": 42}                                | argument \"code\" must be a string, got a number",
      "{\"code\": \"1\", \"lang\": \"js\"}           | unknown argument \"lang\"; the tool takes \"code\"",
      "{\"code\": \"1\", \"inputs\": [1]}            | argument \"inputs\" must be an object of names to JSON values, got an array",
      "{\"code\": \"1\", \"inputs\": {\"tools\": 1}} | input name 'tools' is reserved"})
  void badArguments_comeBackAsTextNamingTheProblem_andNothingRuns(String arguments, String problem) {
    int before = RUNS.size();

    String text = call(arguments);

    assertThat(text).startsWith("Invalid arguments for run_javascript: ").contains(problem).endsWith("Nothing ran.");
    assertThat(RUNS).hasSize(before);
  }

  @Test
  void anInputTheSandboxRefusesToEncode_comesBackAsText_andNothingRuns() {
    int before = RUNS.size();
    String deep = "[".repeat(70) + "]".repeat(70);

    String text = call("{\"code\": \"1\", \"inputs\": {\"deep\": " + deep + "}}");

    assertThat(text).startsWith("Invalid arguments for run_javascript: input deep").endsWith("Nothing ran.");
    assertThat(RUNS).hasSize(before);
  }

  @Test
  void theMemoryIdGoesWithTheRun() {
    call("{\"code\": \"tools.clock()\"}");

    AgentRun run = RUNS.get(RUNS.size() - 1);
    assertThat(run.memoryId()).isEqualTo("memory-1");
    assertThat(run.auditEvents()).singleElement().satisfies(e -> assertThat(e.target()).isEqualTo("clock"));
  }

  @Test
  void aModelTextBudgetBelowOneThousand_isRefusedNamingIt() {
    assertThatThrownBy(() -> SandboxTools.builder(sandbox).maxModelTextChars(999))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxModelTextChars (999) must be at least 1000");
  }
}
