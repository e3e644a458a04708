package org.polyglotsandbox.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * What a run tool answers, seen by the MCP Java SDK's client over Streamable HTTP in this JVM: every
 * answer, a call that never ran included, carries structured content that matches the tool's declared
 * output schema (checked with the SDK's own validator); the schema declares a type for every property;
 * NaN and the infinities are strings the answer points to; progress has no total.
 */
@Tag("slow")
class RunToolAnswersTest {
  private static final JsonSchemaValidator VALIDATOR = new DefaultJsonSchemaValidator(new ObjectMapper());
  private static final int MAX_CODE_CHARS = 1000;

  private static PolyglotSandbox sandbox;
  private static HttpEndpoint http;
  private static McpSyncClient client;
  private static final List<McpSchema.ProgressNotification> progress = Collections.synchronizedList(new ArrayList<>());
  private static Map<String, Map<String, Object>> outputSchemas;

  @BeforeAll
  static void start() {
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
        .limits(Limits.builder().wallTime(Duration.ofSeconds(30)).maxStatements(1_000_000_000_000L).build()).build();
    sandbox = PolyglotSandbox.builder().policy(policy).warmContexts(1).build();
    http = SandboxMcpServer.builder(sandbox).maxCodeChars(MAX_CODE_CHARS).progressAfter(Duration.ofMillis(100))
        .build().serveHttp("127.0.0.1", 0);
    client = McpClient.sync(HttpClientStreamableHttpTransport.builder(http.uri().resolve("/").toString())
            .endpoint("/mcp").jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper())).build())
        .requestTimeout(Duration.ofSeconds(120)).progressConsumer(progress::add).build();
    client.initialize();
    outputSchemas = new java.util.HashMap<>();
    client.listTools().tools().forEach(t -> outputSchemas.put(t.name(), t.outputSchema()));
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (http != null) {
      http.close();
    }
    if (sandbox != null) {
      sandbox.close();
    }
  }

  private static CallToolResult call(String tool, Map<String, Object> arguments) {
    return client.callTool(McpSchema.CallToolRequest.builder(tool).arguments(arguments).build());
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> structured(CallToolResult r) {
    return (Map<String, Object>) r.structuredContent();
  }

  private static void assertMatchesOutputSchema(String tool, CallToolResult r) {
    assertThat(r.structuredContent()).as("structured content of %s", r.content()).isNotNull();
    JsonSchemaValidator.ValidationResponse v = VALIDATOR.validate(outputSchemas.get(tool), r.structuredContent());
    assertThat(v.valid()).as("%s against the output schema: %s", r.structuredContent(), v.errorMessage()).isTrue();
  }

  @SuppressWarnings("unchecked")
  @ParameterizedTest
  @ValueSource(strings = {"run_javascript", "run_python"})
  void outputSchema_declaresATypeForEveryProperty_valueOneBranchPerJsonType(String tool) {
    Map<String, Object> properties = (Map<String, Object>) outputSchemas.get(tool).get("properties");

    // A property schema with no validation keyword accepts anything without saying so (a bare `true`).
    assertThat(properties).allSatisfy((name, schema) ->
        assertThat(((Map<String, Object>) schema).keySet()).as(name).containsAnyOf("type", "anyOf"));
    Map<String, Object> value = (Map<String, Object>) properties.get("value");
    assertThat(value).doesNotContainKey("type");   // a list of types is less portable than anyOf
    assertThat((List<Map<String, Object>>) value.get("anyOf")).extracting(b -> b.get("type"))
        .containsExactlyInAnyOrder("object", "array", "string", "number", "boolean", "null");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      run_javascript | ({a: [1, 'x']})
      run_javascript | [1, 2.5]
      run_javascript | 'text'
      run_javascript | 2.5
      run_javascript | true
      run_javascript | null
      run_python     | {'a': [1, 'x']}
      run_python     | [1, 2.5]
      run_python     | 'text'
      run_python     | 12345678901234567890123
      run_python     | False
      run_python     | None
      """)
  void valuesOfEveryJsonType_matchTheOutputSchema(String tool, String code) {
    CallToolResult r = call(tool, Map.of("code", code));

    assertThat(structured(r)).containsEntry("outcome", "OK");
    assertMatchesOutputSchema(tool, r);
  }

  @ParameterizedTest
  @ValueSource(strings = {"run_javascript", "run_python"})
  void callsThatNeverRan_carryStructuredContent_ofOutcomeNotRun_matchingTheOutputSchema(String tool) {
    List<Map<String, Object>> badArguments = List.of(Map.of(), Map.of("code", 42), Map.of("code", "1", "lang", "js"),
        Map.of("code", "1", "inputs", List.of(1)), Map.of("code", "1;".repeat(MAX_CODE_CHARS)));
    for (Map<String, Object> arguments : badArguments) {
      CallToolResult r = call(tool, arguments);

      assertThat(r.isError()).isTrue();
      assertMatchesOutputSchema(tool, r);
      String text = ((McpSchema.TextContent) r.content().get(0)).text();
      assertThat(structured(r)).as("%s", arguments).containsEntry("outcome", "NOT_RUN").containsEntry("value", null)
          .containsEntry("stdout", "").containsEntry("stderr", "").containsEntry("error", text);
      assertThat(text).startsWith(tool + ": ");
    }
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      run_javascript | [NaN, {x: Infinity, 'a/b~': -Infinity}, 'NaN', 1.5]
      run_python     | [float('nan'), {'x': float('inf'), 'a/b~': float('-inf')}, 'NaN', 1.5]
      """)
  void nanAndInfinities_areStringsInTheirPlace_listedAsJsonPointers_withANoteToTheModel(String tool, String code) {
    CallToolResult r = call(tool, Map.of("code", code));

    assertThat(r.isError()).isFalse();
    assertMatchesOutputSchema(tool, r);
    assertThat(structured(r)).containsEntry("value",
        List.of("NaN", Map.of("x", "Infinity", "a/b~", "-Infinity"), "NaN", 1.5));
    // The guest's own string "NaN" at /2 is no number: only the three numbers are listed.
    assertThat(structured(r).get("nonFiniteNumbers")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
        .containsExactlyInAnyOrder("/0", "/1/x", "/1/a~1b~0");
    assertThat(r.content()).hasSize(2);
    assertThat(((McpSchema.TextContent) r.content().get(1)).text())
        .startsWith("Note from the sandbox: the value held 3 numbers JSON cannot carry")
        .contains("nonFiniteNumbers");
  }

  @Test
  void aValueThatIsNaN_isPointedToByTheEmptyPointer_andAFiniteValueGetsNoNote() {
    CallToolResult nan = call("run_javascript", Map.of("code", "0 / 0"));
    CallToolResult finite = call("run_javascript", Map.of("code", "[1, 'NaN']"));

    assertThat(structured(nan)).containsEntry("value", "NaN").containsEntry("nonFiniteNumbers", List.of(""));
    assertThat(structured(finite)).doesNotContainKey("nonFiniteNumbers");
    assertThat(finite.content()).hasSize(1);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      run_javascript | const t = Date.now(); while (Date.now() - t < 1500) {} 'done'
      run_python     | import time\\nt = time.time()\\nwhile time.time() - t < 1.5: pass\\n'done'
      """)
  void progress_hasNoTotal_andEachNotificationReportsMoreSecondsThanAnyBefore(String tool, String code) {
    String token = "progress-" + tool;
    CallToolResult r = client.callTool(McpSchema.CallToolRequest.builder(tool)
        .arguments(Map.of("code", code.replace("\\n", "\n"))).progressToken(token).build());

    assertThat(structured(r)).containsEntry("value", "done");
    List<McpSchema.ProgressNotification> mine;
    synchronized (progress) {
      mine = progress.stream().filter(p -> token.equals(p.progressToken())).toList();
    }
    // Every 100 ms over a run of at least 1.5 s: more than one notification, whatever the machine's load.
    assertThat(mine).hasSizeGreaterThan(1);
    // The wall-time limit is a ceiling, not the amount of work: no total that progress would never reach.
    assertThat(mine).allSatisfy(p -> assertThat(p.total()).isNull());
    assertThat(mine).allSatisfy(p -> assertThat(p.message()).contains("wall-time limit 30 s"));
    // The SDK hands notifications to the consumer on threads of its own, so their order here is not the
    // wire's; no two may carry the same progress.
    Set<Double> values = new HashSet<>();
    mine.forEach(p -> assertThat(values.add(p.progress())).as("progress %s repeated", p.progress()).isTrue());
  }
}
