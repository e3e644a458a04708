package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Tools and the tool allowlist are checked when they are built, with messages naming the problem. */
class ToolDefinitionTest {
  private static final Tool.Handler NOTHING = args -> null;

  @Test
  void validTool_keepsWhatItWasGiven() {
    Tool t = Tool.builder("kv.get").description("reads").handler(NOTHING)
        .parameters("{\"type\": \"object\", \"properties\": {\"key\": {\"type\": \"string\"}}}")
        .result("{\"type\": [\"string\", \"null\"]}")
        .maxCallsPerRun(7).timeout(Duration.ofMillis(250)).maxArgumentBytes(100).build();
    assertThat(t.name()).isEqualTo("kv.get");
    assertThat(t.description()).isEqualTo("reads");
    assertThat(t.parameters()).contains("\"key\"");
    assertThat(t.result()).contains("{\"type\": [\"string\", \"null\"]}");
    assertThat(t.maxCallsPerRun()).isEqualTo(7);
    assertThat(t.timeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(t.maxArgumentBytes()).isEqualTo(100);
  }

  @Test
  void defaults_takeNoArgumentsWithABudgetAndTimeout() {
    Tool t = Tool.builder("clock").handler(NOTHING).build();
    assertThat(t.parameters()).contains("\"additionalProperties\": false");
    assertThat(t.result()).isEmpty();
    assertThat(t.maxCallsPerRun()).isEqualTo(1000);
    assertThat(t.timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(t.maxArgumentBytes()).isEqualTo(64 << 10);
  }

  @Test
  void badNames_areRejectedNamingTheRule() {
    assertThatThrownBy(() -> Tool.builder("")).hasMessageContaining("must be 1 to 64 characters");
    assertThatThrownBy(() -> Tool.builder("a".repeat(65))).hasMessageContaining("must be 1 to 64 characters");
    for (String bad : new String[] {"kv-get", "kv..get", ".kv", "kv.", "1kv", "kv.1", "__proto__", "_x", "a b",
        "tools['x']", "k\u00e9"}) {
      assertThatThrownBy(() -> Tool.builder(bad)).as(bad)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dot-separated parts");
    }
    for (String reserved : new String[] {"class", "kv.delete", "import", "None", "then", "constructor", "x.call"}) {
      assertThatThrownBy(() -> Tool.builder(reserved)).as(reserved)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved word");
    }
    assertThat(Tool.builder("kv_store.get_2").handler(NOTHING).build().name()).isEqualTo("kv_store.get_2");
  }

  @Test
  void invalidSchemas_areRejectedAtBuild() {
    assertThatThrownBy(() -> Tool.builder("t").handler(NOTHING).parameters("{\"type\": ").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tool 't': parameters schema is not valid JSON");
    assertThatThrownBy(() -> Tool.builder("t").handler(NOTHING).parameters("{\"type\": \"objekt\"}").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not a valid JSON Schema");
    assertThatThrownBy(() -> Tool.builder("t").handler(NOTHING)
        .parameters("{\"type\": \"object\", \"properties\": {\"a\": {\"minLength\": -1}}}").build())
        .hasMessageContaining("is not a valid JSON Schema");
    assertThatThrownBy(() -> Tool.builder("t").handler(NOTHING).parameters("{\"type\": \"string\"}").build())
        .hasMessageContaining("parameters schema must have \"type\": \"object\"");
    assertThatThrownBy(() -> Tool.builder("t").handler(NOTHING).parameters("[1]").build())
        .hasMessageContaining("must be a JSON object");
    assertThatThrownBy(() -> Tool.builder("t").handler(NOTHING).result("{\"type\": 5}").build())
        .hasMessageContaining("tool 't': result schema is not a valid JSON Schema");
  }

  @Test
  void remoteReferences_areNeverFetched() {
    assertThatThrownBy(() -> Tool.builder("t").handler(NOTHING)
        .parameters("{\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": \"http://127.0.0.1:9/x.json\"}}}")
        .build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be compiled");
  }

  @Test
  void missingHandlerAndBadBudgets_areRejected() {
    assertThatThrownBy(() -> Tool.builder("t").build()).hasMessageContaining("tool 't' has no handler");
    assertThatThrownBy(() -> Tool.builder("t").maxCallsPerRun(0)).hasMessageContaining("maxCallsPerRun (0)");
    assertThatThrownBy(() -> Tool.builder("t").timeout(Duration.ZERO)).hasMessageContaining("timeout (PT0S)");
    assertThatThrownBy(() -> Tool.builder("t").maxArgumentBytes(1)).hasMessageContaining("maxArgumentBytes (1)");
  }

  @Test
  void policyTools_areAValueAndCheckNames() {
    Policy p = Policy.computeOnly(Language.JAVASCRIPT).toBuilder().allowTools("clock", "kv.get").build();
    assertThat(p.tools()).containsExactly("clock", "kv.get");
    assertThat(p.allowsTool("kv.get")).isTrue();
    assertThat(p.allowsTool("kv.put")).isFalse();
    assertThat(p.toBuilder().build()).isEqualTo(p).hasSameHashCodeAs(p);
    assertThat(p).isNotEqualTo(Policy.computeOnly(Language.JAVASCRIPT));
    assertThat(Policy.computeOnly(Language.JAVASCRIPT).tools()).isEmpty();
    assertThatThrownBy(() -> Policy.builder().allowTools("kv get")).hasMessageContaining("tool name 'kv get'");
  }

  @Test
  void allowedButUnregisteredTool_failsTheSandboxBuild() {
    Policy p = Policy.computeOnly(Language.JAVASCRIPT).toBuilder().allowTools("clock", "kv.get").build();
    assertThatThrownBy(() -> PolyglotSandbox.builder().policy(p)
        .tool(Tool.builder("clock").handler(NOTHING).build()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("policy allows tool 'kv.get' but no tool of that name was registered");
  }

  @Test
  void sameToolTwice_isRejected() {
    Tool t = Tool.builder("clock").handler(NOTHING).build();
    assertThatThrownBy(() -> PolyglotSandbox.builder().tool(t).tool(t))
        .hasMessageContaining("tool 'clock' is registered twice");
  }
}
