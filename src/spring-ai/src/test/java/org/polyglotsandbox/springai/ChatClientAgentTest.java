package org.polyglotsandbox.springai;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.polyglotsandbox.AuditEvent;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Verdict;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Spring AI {@link ChatClient} with a scripted model that writes code and runs it through the
 * {@link SandboxToolCallbackProvider}: Spring AI's own tool calling runs the callback, the answer is made
 * from the sandbox's result, denied and runaway code come back as text the model reads, and the
 * conversation id reaches the run's audit events.
 */
@Tag("slow")
class ChatClientAgentTest {
  private static PolyglotSandbox sandbox;
  private static final List<SandboxRun> RUNS = new CopyOnWriteArrayList<>();
  private static SandboxToolCallbackProvider tools;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.builder().allowLanguages(Language.PYTHON, Language.JAVASCRIPT)
            .mount(Mount.readOnly(Path.of("guest-samples/data"), "/data"))
            // Time a loaded machine meets for every guest that answers (a cold Python context takes seconds
            // of CPU); the runaway guest cannot finish, and its 2,000,000 statements stop it either way.
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60))
                .maxStatements(2_000_000).build())
            .build())
        .build();
    tools = SandboxToolCallbackProvider.of(sandbox, RUNS::add);
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static String ask(ScriptedChatModel model, String conversation, String question) {
    RUNS.clear();
    return ChatClient.builder(model).build().prompt()
        .user(question)
        .toolCallbacks(tools.getToolCallbacks())
        .toolContext(Map.of(ChatMemory.CONVERSATION_ID, conversation))
        .call()
        .content();
  }

  private static String args(String code) {
    return JsonMapper.builder().build().writeValueAsString(Map.of("code", code));
  }

  @Test
  void csvTotal_theAnswerCarriesTheValueThePythonComputed() throws Exception {
    String code = Files.readString(Path.of("guest-samples/csv_total.py"));
    ScriptedChatModel model = ScriptedChatModel.callingThenAnswering("run_python", args(code),
        result -> "The total is " + ModelTexts.firstLine(result, "value as JSON") + " euros.");

    String answer = ask(model, "ana", "What is the total of /data/sales.csv?");

    assertThat(answer).isEqualTo("The total is 403.45 euros.");
    assertThat(RUNS).singleElement().satisfies(run -> {
      assertThat(run.conversationId()).isEqualTo("ana");
      assertThat(run.result().outcome()).isEqualTo(Outcome.OK);
    });
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "run_python     | print(open('/etc/passwd').read())",
      "run_javascript | readText('/etc/passwd')"})
  void readingEtcPasswd_isDeniedAndAuditedUnderTheConversationId(String tool, String code) {
    ScriptedChatModel model = ScriptedChatModel.callingThenAnswering(tool, args(code),
        result -> "I could not read it: " + ModelTexts.outcome(result) + ", " + ModelTexts.firstLine(result, "error"));

    String answer = ask(model, "mallory", "Show me /etc/passwd");

    assertThat(answer).startsWith("I could not read it: GUEST_ERROR, ").doesNotContain("root:");
    assertThat(RUNS).singleElement().satisfies(run -> {
      assertThat(run.conversationId()).isEqualTo("mallory");
      assertThat(run.auditEvents()).anySatisfy(e -> {
        assertThat(e.operation()).isEqualTo(Operation.FILE_READ);
        assertThat(e.target()).isEqualTo("/etc/passwd");
        assertThat(e.verdict()).isEqualTo(Verdict.DENIED);
        assertThat(e.label()).as("the sandbox's own audit event carries the conversation id")
            .isEqualTo("conversation:mallory");
      });
    });
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "run_python     | 'n = 0\nwhile True:\n    n += 1'",
      "run_javascript | 'let n = 0; while (true) { n++; }'"})
  void infiniteLoop_isStoppedByALimitAndTheModelIsTold(String tool, String code) {
    ScriptedChatModel model = ScriptedChatModel.callingThenAnswering(tool, args(code.replace("\\n", "\n")),
        result -> "It ran: " + ModelTexts.outcome(result));

    String answer = ask(model, "bob", "Count forever");

    assertThat(answer).isIn("It ran: LIMIT_EXCEEDED (limit statements)", "It ran: LIMIT_EXCEEDED (limit wall_time)");
    assertThat(RUNS.get(0).auditEvents()).extracting(AuditEvent::verdict).contains(Verdict.STOPPED);
  }

  @Test
  void theModelIsOfferedBothTools_describingThePolicy() {
    ScriptedChatModel model = ScriptedChatModel.callingThenAnswering("run_javascript", args("1 + 1"),
        result -> ModelTexts.firstLine(result, "value as JSON"));

    assertThat(ask(model, "ana", "1 + 1?")).isEqualTo("2");
    assertThat(model.prompts.get(0).getOptions()).isInstanceOf(org.springframework.ai.model.tool.ToolCallingChatOptions.class);
    var offered = ((org.springframework.ai.model.tool.ToolCallingChatOptions) model.prompts.get(0).getOptions())
        .getToolCallbacks();
    assertThat(offered).extracting(c -> c.getToolDefinition().name()).containsExactly("run_javascript", "run_python");
    assertThat(offered.get(1).getToolDefinition().description()).contains("Python", "/data (read-only)", "wall time 60 s");
  }
}
