package org.polyglotsandbox.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.P;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.Tool;

/** {@link ApplicationTools}: LangChain4j {@code @Tool} methods as sandbox tools, called from guest code. */
class ApplicationToolsTest {
  record Quote(String sku, double price, List<String> tags) {}

  public static final class Catalogue {
    final AtomicInteger calls = new AtomicInteger();

    @dev.langchain4j.agent.tool.Tool("Quotes a product")
    public Quote quote(@P("the product's SKU") String sku, @P(value = "how many", required = false) Integer units) {
      calls.incrementAndGet();
      if (sku.startsWith("X")) {
        throw new IllegalStateException("no product " + sku);
      }
      return new Quote(sku, 2.5 * (units == null ? 1 : units), List.of("new"));
    }

    @dev.langchain4j.agent.tool.Tool(name = "reset", value = "Forgets every quote")
    public void clear() {
      calls.incrementAndGet();
    }

    public String notATool() {
      return "never offered";
    }
  }

  public static final class BadName {
    @dev.langchain4j.agent.tool.Tool(name = "get-price")
    public int price() {
      return 1;
    }
  }

  private static final Catalogue CATALOGUE = new Catalogue();
  private static List<Tool> tools;
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    tools = ApplicationTools.builder().namespace("shop").add(CATALOGUE).build();
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder().allowTools("shop.quote", "shop.reset")
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60)).build())
            .build())
        .tools(tools)
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static Tool tool(String name) {
    return tools.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void everyToolMethod_becomesATool_withLangChain4jsNameAndDescription() {
    assertThat(tools).extracting(Tool::name).containsExactlyInAnyOrder("shop.quote", "shop.reset");
    assertThat(tool("shop.quote").description()).isEqualTo("Quotes a product");
  }

  @Test
  void theParametersSchema_comesFromTheSignature_andIsClosed() {
    assertThat(tool("shop.quote").parameters()).isEqualTo("{\"type\":\"object\",\"properties\":{"
        + "\"sku\":{\"type\":\"string\",\"description\":\"the product's SKU\"},"
        + "\"units\":{\"type\":\"integer\",\"description\":\"how many\"}},"
        + "\"required\":[\"sku\"],\"additionalProperties\":false}");
    assertThat(tool("shop.reset").parameters())
        .isEqualTo("{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}");
  }

  @Test
  void aRecordResult_reachesTheGuestAsPlainData() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT,
        "const q = tools.shop.quote({sku: 'A-1', units: 3}); [q.sku, q.price, q.tags[0]]");

    assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.OK);
    assertThat(r.value()).isEqualTo(List.of("A-1", 7.5, "new"));
  }

  @Test
  void aVoidMethod_returnsNull() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, "tools.shop.reset() === null");

    assertThat(r.value()).as("%s", r).isEqualTo(true);
  }

  @Test
  void argumentsTheSchemaRefuses_neverReachTheMethod() {
    int before = CATALOGUE.calls.get();
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, """
        const out = [];
        for (const args of [{}, {sku: 7}, {sku: 'A', units: 1.5}, {sku: 'A', colour: 'red'}]) {
          try { tools.shop.quote(args); out.push('called'); } catch (e) { out.push(e.code + ' ' + e.message); }
        }
        out""");

    assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.OK);
    assertThat((List<?>) r.value()).hasSize(4).allSatisfy(v -> assertThat((String) v).startsWith("invalid_arguments "));
    assertThat((List<?>) r.value()).extracting(String::valueOf)
        .anySatisfy(v -> assertThat(v).contains("$.sku")).anySatisfy(v -> assertThat(v).contains("$.units"))
        .anySatisfy(v -> assertThat(v).contains("$.colour"));
    assertThat(CATALOGUE.calls).hasValue(before);
  }

  @Test
  void aMethodThatThrows_failsTheGuestsCallWithItsMessageOnly() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT,
        "try { tools.shop.quote({sku: 'X-9'}) } catch (e) { e.code + ': ' + e.message }");

    assertThat(r.value()).as("%s", r).isEqualTo("failed: no product X-9");
    assertThat(r.events()).filteredOn(SandboxEvent.ToolCall.class::isInstance)
        .extracting(e -> ((SandboxEvent.ToolCall) e).status()).containsExactly(SandboxEvent.ToolCall.Status.FAILED);
  }

  @Test
  void aLangChain4jNameTheSandboxCannotCall_isRefusedNamingTheMethod() {
    assertThatThrownBy(() -> ApplicationTools.of(new BadName()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("@Tool BadName.price: ")
        .hasMessageContaining("get-price");
  }

  @Test
  void anObjectWithoutToolMethods_isRefused() {
    assertThatThrownBy(() -> ApplicationTools.of("a string"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("java.lang.String has no public @Tool method");
  }
}
