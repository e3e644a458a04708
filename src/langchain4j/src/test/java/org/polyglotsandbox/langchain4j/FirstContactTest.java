package org.polyglotsandbox.langchain4j;

import org.polyglotsandbox.ProgramFromDescription;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
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

/**
 * A model's first contact with {@link SandboxTools} through LangChain4j's {@code AiServices}: a scripted
 * model that knows only what it was offered (the tool's name and description) writes an async program
 * that calls an application's {@code @Tool} method, catches a failed call as the error class the
 * description names, and reads a mounted file ({@link ProgramFromDescription}); the program runs as
 * written, in each language, and the model answers from its value.
 */
@Tag("slow")
class FirstContactTest {
  interface Agent {
    String chat(@MemoryId String user, @UserMessage String question);
  }

  /** An application service whose {@code @Tool} method guest code may call. */
  public static final class Shop {
    @dev.langchain4j.agent.tool.Tool("The unit price of a product, in euros")
    public double unitPrice(@P("the product's name") String product) {
      return switch (product) {
        case "widget" -> 3.5;
        case "gadget" -> 19.99;
        default -> throw new IllegalArgumentException("no product named " + product);
      };
    }
  }

  private static PolyglotSandbox sandbox;
  private final List<AgentRun> runs = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(ProgramFromDescription.policy())
        .tools(ApplicationTools.builder().namespace("shop").add(new Shop()).build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  /** The model's tool call: the tool for {@code language} it was offered, with a program from its description alone. */
  private static ToolExecutionRequest writeProgram(ChatRequest request, Language language) {
    String prefix = language == Language.PYTHON ? "Runs Python" : "Runs JavaScript";
    ToolSpecification tool = request.toolSpecifications().stream()
        .filter(s -> s.description().startsWith(prefix)).findFirst()
        .orElseThrow(() -> new AssertionError("no tool offered for " + language + ": " + request.toolSpecifications()));
    String code = ProgramFromDescription.write(tool.description());
    String arguments;
    try {
      arguments = new ObjectMapper().writeValueAsString(Map.of("code", code));
    } catch (JsonProcessingException e) {
      throw new AssertionError(e);
    }
    return ToolExecutionRequest.builder().id("call-1").name(tool.name()).arguments(arguments).build();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aModelKnowingOnlyTheDescription_callsATool_catchesToolError_awaits_andReadsAMountedFile(Language language) {
    ScriptedChatModel model = ScriptedChatModel.callingThenAnswering(request -> writeProgram(request, language),
        result -> ProgramFromDescription.answer(ModelTexts.firstLine(result, "value as JSON")));
    Agent agent = AiServices.builder(Agent.class)
        .chatModel(model)
        .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
        .toolProvider(SandboxTools.builder(sandbox).onRun(runs::add).build())
        .build();

    String answer = agent.chat("ana", "What do a widget, a gadget and a no-such-product cost, and how many rows has"
        + " sales.csv?");

    assertThat(answer).isEqualTo("A widget costs 3.5 euros and a gadget 19.99; no-such-product: no product named"
        + " no-such-product; sales.csv has 8 rows.");
    assertThat(runs).singleElement().satisfies(run -> {
      assertThat(run.tool()).isEqualTo(SandboxTools.toolName(language));
      assertThat(run.result().outcome()).as("%s", run.result()).isEqualTo(Outcome.OK);
      assertThat(run.result().events()).filteredOn(SandboxEvent.ToolCall.class::isInstance)
          .extracting(e -> ((SandboxEvent.ToolCall) e).status())
          .containsExactlyInAnyOrder(SandboxEvent.ToolCall.Status.OK, SandboxEvent.ToolCall.Status.OK,
              SandboxEvent.ToolCall.Status.FAILED);
    });
  }
}
