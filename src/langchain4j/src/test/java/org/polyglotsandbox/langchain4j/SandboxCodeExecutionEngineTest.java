package org.polyglotsandbox.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.code.CodeExecutionEngine;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/** {@link SandboxCodeExecutionEngine}: model text back for every guest behaviour, never an exception. */
class SandboxCodeExecutionEngineTest {
  private static PolyglotSandbox sandbox;
  private static CodeExecutionEngine engine;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
            // Time a loaded machine meets; the endless loop meets its 1,000,000 statements long before.
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60))
                .maxStatements(1_000_000).build()).build())
        .build();
    engine = SandboxCodeExecutionEngine.of(sandbox, Language.JAVASCRIPT);
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @Test
  void execute_returnsTheValueAndStdoutAsModelText() {
    String text = engine.execute("console.log('hello'); 6 * 7");

    assertThat(text).startsWith("<<<sandbox-result id=").contains("untrusted code");
    assertThat(ModelTexts.outcome(text)).isEqualTo("OK");
    assertThat(ModelTexts.firstLine(text, "value as JSON")).isEqualTo("42");
    assertThat(ModelTexts.firstLine(text, "stdout")).isEqualTo("hello");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "throw new Error('boom')         | GUEST_ERROR",
      "let x = ;                       | SYNTAX_ERROR",
      "while (true) {}                 | LIMIT_EXCEEDED (limit statements)",
      "Java.type('java.lang.System')   | GUEST_ERROR",
      "Polyglot.eval('python', '1')    | GUEST_ERROR"})
  void guestBehaviour_neverThrows_andShowsNoHostInternals(String code, String outcome) {
    String text = engine.execute(code);

    assertThat(ModelTexts.outcome(text)).isEqualTo(outcome);
    assertThat(text).doesNotContain("org.graalvm", "org.polyglotsandbox", "java.lang.", "/root", "/work");
  }

  @Test
  void aLanguageThePolicyDoesNotAllow_isRefusedWhenTheEngineIsMade() {
    assertThatThrownBy(() -> SandboxCodeExecutionEngine.of(sandbox, Language.PYTHON))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the sandbox's policy does not allow language 'python' (allowed: [js])");
  }

  @Test
  void aTinyBudget_isRefusedNamingIt() {
    assertThatThrownBy(() -> SandboxCodeExecutionEngine.of(sandbox, Language.JAVASCRIPT).withMaxChars(10))
        .hasMessage("maxChars (10) must be at least 1000");
  }
}
