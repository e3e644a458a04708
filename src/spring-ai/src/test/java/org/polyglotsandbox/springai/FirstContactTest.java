package org.polyglotsandbox.springai;

import org.polyglotsandbox.ProgramFromDescription;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.ToolException;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.tool.definition.ToolDefinition;
import tools.jackson.databind.json.JsonMapper;

/**
 * A model's first contact with the {@link SandboxToolCallbackProvider} through a Spring AI
 * {@link ChatClient}: a scripted model that knows only what it was offered (the tool definitions Spring
 * AI resolves from the prompt) writes an async program that calls a host tool, catches a failed call as
 * the error class the description names, and reads a mounted file ({@link ProgramFromDescription}); the
 * program runs as written, in each language, and the model answers from its value.
 */
@Tag("slow")
class FirstContactTest {
  private static final String PRICE_SCHEMA = """
      {"type": "object", "properties": {"product": {"type": "string", "description": "the product's name"}},
       "required": ["product"], "additionalProperties": false}""";

  private static PolyglotSandbox sandbox;
  private static final List<SandboxRun> RUNS = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void build() {
    Tool price = Tool.builder("shop.unitPrice").description("The unit price of a product, in euros")
        .parameters(PRICE_SCHEMA)
        .handler(args -> switch ((String) args.get("product")) {
          case "widget" -> 3.5;
          case "gadget" -> 19.99;
          default -> throw new ToolException("no product named " + args.get("product"));
        })
        .build();
    sandbox = PolyglotSandbox.builder()
        .policy(ProgramFromDescription.policy())
        .tool(price)
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  /** The model's tool call: the tool for {@code language} it was offered, with a program from its description alone. */
  private static AssistantMessage.ToolCall writeProgram(Prompt prompt, Language language) {
    String prefix = language == Language.PYTHON ? "Runs Python" : "Runs JavaScript";
    List<ToolDefinition> offered = ScriptedChatModel.offeredTools(prompt);
    ToolDefinition tool = offered.stream().filter(d -> d.description().startsWith(prefix)).findFirst()
        .orElseThrow(() -> new AssertionError("no tool offered for " + language + ": " + offered));
    String code = ProgramFromDescription.write(tool.description());
    String arguments = JsonMapper.builder().build().writeValueAsString(Map.of("code", code));
    return new AssistantMessage.ToolCall("call-1", "function", tool.name(), arguments);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aModelKnowingOnlyTheDescription_callsATool_catchesToolError_awaits_andReadsAMountedFile(Language language) {
    RUNS.clear();
    ScriptedChatModel model = ScriptedChatModel.callingThenAnswering(prompt -> writeProgram(prompt, language),
        result -> ProgramFromDescription.answer(ModelTexts.firstLine(result, "value as JSON")));

    String answer = ChatClient.builder(model).build().prompt()
        .user("What do a widget, a gadget and a no-such-product cost, and how many rows has sales.csv?")
        .toolCallbacks(SandboxToolCallbackProvider.of(sandbox, RUNS::add).getToolCallbacks())
        .call()
        .content();

    assertThat(answer).isEqualTo("A widget costs 3.5 euros and a gadget 19.99; no-such-product: no product named"
        + " no-such-product; sales.csv has 8 rows.");
    assertThat(RUNS).singleElement().satisfies(run -> {
      assertThat(run.tool()).isEqualTo(SandboxToolCallback.toolName(language));
      assertThat(run.result().outcome()).as("%s", run.result()).isEqualTo(Outcome.OK);
      assertThat(run.result().events()).filteredOn(SandboxEvent.ToolCall.class::isInstance)
          .extracting(e -> ((SandboxEvent.ToolCall) e).status())
          .containsExactlyInAnyOrder(SandboxEvent.ToolCall.Status.OK, SandboxEvent.ToolCall.Status.OK,
              SandboxEvent.ToolCall.Status.FAILED);
    });
  }
}
