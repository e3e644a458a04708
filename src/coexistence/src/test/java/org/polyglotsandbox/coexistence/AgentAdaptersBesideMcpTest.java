package org.polyglotsandbox.coexistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson3.DefaultJsonSchemaValidator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.langchain4j.ApplicationTools;
import org.polyglotsandbox.langchain4j.SandboxTools;
import org.polyglotsandbox.springai.SandboxToolCallback;
import org.springframework.ai.util.json.schema.JsonSchemaGenerator;
import tools.jackson.databind.json.JsonMapper;

/**
 * One JVM holding the library, the LangChain4j adapter (Jackson 2.22), the Spring AI adapter (Jackson 3)
 * and {@code io.modelcontextprotocol.sdk:mcp:2.1.0} (Jackson 3, networknt 3.x): a tool call validated
 * against a schema LangChain4j derived and one Spring AI generated passes through each adapter, and the MCP
 * SDK's own validator checks the adapters' {@code run_*} argument schemas, with no class of one stack
 * breaking another.
 */
class AgentAdaptersBesideMcpTest {
  /** An application service, as LangChain4j sees it; this module compiles without {@code -parameters}. */
  public static final class Stock {
    @dev.langchain4j.agent.tool.Tool("Units in stock")
    public int unitsOf(@P(name = "product", value = "the product") String product) {
      return product.length();
    }
  }

  /** The same without {@code @P(name)}: its parameter is {@code arg0} in the class file. */
  public static final class UnnamedStock {
    @dev.langchain4j.agent.tool.Tool("Units in stock")
    public int unitsOf(@P("the product") String product) {
      return product.length();
    }
  }

  record Lookup(String key, int limit) {}

  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    List<Tool> tools = new ArrayList<>(ApplicationTools.builder().namespace("stock").add(new Stock()).build());
    tools.add(Tool.builder("lookup").parameters(JsonSchemaGenerator.generateForType(Lookup.class))
        .handler(args -> args.get("limit")).inline().build());
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder().allowTools("stock.unitsOf", "lookup")
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60)).build())
            .build())
        .tools(tools)
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static final String CODE = """
      const bad = [];
      for (const call of [() => tools.stock.unitsOf({product: 3}), () => tools.lookup({key: 'a', limit: 'x'})]) {
        try { call(); } catch (e) { bad.push(e.code); }
      }
      [tools.stock.unitsOf({product: 'widget'}), tools.lookup({key: 'a', limit: 4}), bad]""";

  private static final String EXPECTED = "[6,4,[\"invalid_arguments\",\"invalid_arguments\"]]";

  private static String valueLine(String modelText) {
    int at = modelText.indexOf("\n| ", modelText.indexOf("value as JSON"));
    return modelText.substring(at + 3, modelText.indexOf('\n', at + 3));
  }

  @Test
  void aSchemaValidatedToolCall_passesThroughTheLangChain4jAdapter() {
    SandboxTools tools = SandboxTools.builder(sandbox).build();
    String arguments = JsonMapper.builder().build().writeValueAsString(Map.of("code", CODE));

    String text = tools.tools().values().iterator().next()
        .execute(ToolExecutionRequest.builder().id("1").name("run_javascript").arguments(arguments).build(), "m");

    assertThat(valueLine(text)).isEqualTo(EXPECTED);
  }

  @Test
  void aSchemaValidatedToolCall_passesThroughTheSpringAiAdapter() {
    SandboxToolCallback callback = SandboxToolCallback.builder(sandbox, Language.JAVASCRIPT).build();
    String arguments = JsonMapper.builder().build().writeValueAsString(Map.of("code", CODE));

    assertThat(valueLine(callback.call(arguments))).isEqualTo(EXPECTED);
  }

  @Test
  void aToolParameterWithoutAName_isRefused_ratherThanOfferedAsArg0() {
    assertThatThrownBy(() -> ApplicationTools.of(new UnnamedStock()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("@Tool UnnamedStock.unitsOf: parameter arg0 has no name in the class file, so guest code would"
            + " have to pass it as arg0; compile with -parameters or name it with @P(name = ...)");
  }

  @Test
  void theMcpSdksValidator_checksBothAdaptersArgumentSchemas() {
    JsonSchemaValidator mcp = new DefaultJsonSchemaValidator();
    JsonMapper json = JsonMapper.builder().build();
    @SuppressWarnings("unchecked")
    Map<String, Object> spring = json.readValue(SandboxToolCallback.INPUT_SCHEMA, Map.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> langchain4j = (Map<String, Object>) json.readValue(
        SandboxTools.builder(sandbox).build().specifications().get(0).toJson(), Map.class).get("parameters");

    for (Map<String, Object> schema : List.of(spring, langchain4j)) {
      assertThat(mcp.validate(schema, Map.of("code", "6*7", "inputs", Map.of("a", 1))).valid()).isTrue();
      assertThat(mcp.validate(schema, Map.of("code", 42)).valid()).isFalse();
      assertThat(mcp.validate(schema, Map.of("code", "1", "language", "js")).valid()).isFalse();
    }
  }
}
