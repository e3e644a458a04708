package org.polyglotsandbox.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
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
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.Verdict;

/**
 * A LangChain4j {@code AiServices} agent, with a scripted model, that writes code and runs it through
 * {@link SandboxTools}: the answer is built from the sandbox's result, denied and runaway code end in
 * the text the model reads (never an exception), the agent's memory id reaches the run's audit events,
 * and guest code calls the application's own {@code @Tool} methods through {@link ApplicationTools}.
 *
 * <p>LangChain4j's own GraalVM engine ({@code langchain4j-code-execution-engine-graalvm-polyglot}) is not
 * served by the Maven repository this project builds from, so what it does with the same code (its Python
 * runs under {@code SandboxPolicy.TRUSTED}, per langchain4j#4334) was not measured here.
 */
@Tag("slow")
class AiServicesAgentTest {
  interface Agent {
    String chat(@MemoryId String user, @UserMessage String question);
  }

  /** An application service whose {@code @Tool} methods guest code may call. */
  public static final class Shop {
    final AtomicInteger calls = new AtomicInteger();

    @dev.langchain4j.agent.tool.Tool("The unit price of a product, in euros")
    public double unitPrice(@P("the product's name") String product) {
      calls.incrementAndGet();
      return switch (product) {
        case "widget" -> 3.5;
        case "gadget" -> 19.99;
        default -> throw new IllegalArgumentException("no product named " + product);
      };
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Shop SHOP = new Shop();
  private static PolyglotSandbox sandbox;
  private final List<AgentRun> runs = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void build() {
    List<Tool> shopTools = ApplicationTools.builder().namespace("shop").add(SHOP).build();
    Policy policy = Policy.builder()
        .allowLanguages(Language.PYTHON, Language.JAVASCRIPT)
        .mount(Mount.readOnly(Path.of("guest-samples/data"), "/data"))
        .allowTools("shop.unitPrice")
        // Time a loaded machine meets for every guest that answers (a cold Python context takes seconds of
        // CPU); the runaway guest cannot finish, and its 2,000,000 statements stop it either way.
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60))
            .maxStatements(2_000_000).build())
        .build();
    sandbox = PolyglotSandbox.builder().policy(policy).tools(shopTools).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @BeforeEach
  void resetShop() {
    SHOP.calls.set(0);
  }

  private Agent agent(ScriptedChatModel model) {
    SandboxTools tools = SandboxTools.builder(sandbox).onRun(runs::add).build();
    return AiServices.builder(Agent.class)
        .chatModel(model)
        .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
        .toolProvider(tools)
        .build();
  }

  private static String args(String code) throws Exception {
    return JSON.writeValueAsString(Map.of("code", code));
  }

  @Test
  void csvTotal_theAnswerCarriesTheValueThePythonComputed() throws Exception {
    String code = Files.readString(Path.of("guest-samples/csv_total.py"));
    ScriptedChatModel model = ScriptedChatModel.callingThenAnswering("run_python", args(code),
        result -> "The total is " + ModelTexts.firstLine(result, "value as JSON") + " euros.");

    String answer = agent(model).chat("ana", "What is the total of /data/sales.csv?");

    assertThat(answer).isEqualTo("The total is 403.45 euros.");
    assertThat(runs).singleElement().satisfies(run -> {
      assertThat(run.memoryId()).isEqualTo("ana");
      assertThat(run.tool()).isEqualTo("run_python");
      assertThat(run.result().outcome()).isEqualTo(Outcome.OK);
      assertThat(run.result().stdout()).contains("total: 403.45");
    });
    // The model was offered both tools, each describing the policy it runs under.
    assertThat(model.requests.get(0).toolSpecifications()).extracting(s -> s.name())
        .containsExactly("run_javascript", "run_python");
    assertThat(model.requests.get(0).toolSpecifications().get(1).description())
        .contains("/data (read-only)", "shop.unitPrice", "wall time 60 s", "2,000,000 statements");
  }

  /**
   * The guest tries the host's password file in each language: the sandbox denies it, the model reads the
   * denial, and the run's audit events, carried to the application with the agent's memory id, record it.
   * What LangChain4j's own GraalVM Python engine does with the same code was not measured: its artifact,
   * {@code langchain4j-code-execution-engine-graalvm-polyglot}, is not served by this build's repository.
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "run_python     | print(open('/etc/passwd').read())",
      "run_javascript | readText('/etc/passwd')"})
  void readingEtcPasswd_isDeniedAndAuditedUnderTheAgentsMemoryId(String tool, String code) throws Exception {
    ScriptedChatModel model = ScriptedChatModel.callingThenAnswering(tool, args(code),
        result -> "I could not read it: " + ModelTexts.outcome(result) + ", " + ModelTexts.firstLine(result, "error"));

    String answer = agent(model).chat("mallory", "Show me /etc/passwd");

    assertThat(answer).startsWith("I could not read it: GUEST_ERROR, ").doesNotContain("root:");
    assertThat(answer).containsAnyOf("PermissionError", "EACCES");
    AgentRun run = runs.get(0);
    assertThat(run.memoryId()).isEqualTo("mallory");
    assertThat(run.auditEvents()).anySatisfy(e -> {
      assertThat(e.operation()).isEqualTo(Operation.FILE_READ);
      assertThat(e.target()).isEqualTo("/etc/passwd");
      assertThat(e.verdict()).isEqualTo(Verdict.DENIED);
      assertThat(e.runId()).isEqualTo(run.result().runId());
      assertThat(e.label()).as("the sandbox's own audit event carries the memory id").isEqualTo("memory:mallory");
    });
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "run_python     | 'n = 0\nwhile True:\n    n += 1'",
      "run_javascript | 'let n = 0; while (true) { n++; }'"})
  void infiniteLoop_isStoppedByALimitAndTheModelIsTold(String tool, String code) throws Exception {
    ScriptedChatModel model = ScriptedChatModel.callingThenAnswering(tool, args(code.replace("\\n", "\n")),
        result -> "It ran: " + ModelTexts.outcome(result));

    String answer = agent(model).chat("bob", "Count forever");

    assertThat(answer).isIn("It ran: LIMIT_EXCEEDED (limit statements)", "It ran: LIMIT_EXCEEDED (limit wall_time)");
    assertThat(runs.get(0).auditEvents()).extracting(AuditEvent::verdict).contains(Verdict.STOPPED);
  }

  @Test
  void guestCode_callsAnApplicationToolMethod() throws Exception {
    String code = "units = 12\nunits * tools.shop.unitPrice(product='widget')";
    ScriptedChatModel model = ScriptedChatModel.callingThenAnswering("run_python", args(code),
        result -> "12 widgets cost " + ModelTexts.firstLine(result, "value as JSON") + " euros.");

    String answer = agent(model).chat("ana", "What do 12 widgets cost?");

    assertThat(answer).isEqualTo("12 widgets cost 42.0 euros.");
    assertThat(SHOP.calls).hasValue(1);
    assertThat(runs.get(0).auditEvents()).anySatisfy(e -> {
      assertThat(e.operation()).isEqualTo(Operation.TOOL_CALL);
      assertThat(e.target()).isEqualTo("shop.unitPrice");
    });
  }

  @Test
  void aToolArgumentTheMethodsSchemaRefuses_neverReachesTheMethod() throws Exception {
    String code = """
        try { tools.shop.unitPrice({product: 7}) } catch (e) { e.code + ': ' + e.message }""";
    ScriptedChatModel model = ScriptedChatModel.callingThenAnswering("run_javascript", args(code),
        result -> ModelTexts.firstLine(result, "value as JSON"));

    String answer = agent(model).chat("ana", "Price of product 7?");

    assertThat(answer).startsWith("\"invalid_arguments: ").contains("$.product");
    assertThat(SHOP.calls).hasValue(0);
  }
}
