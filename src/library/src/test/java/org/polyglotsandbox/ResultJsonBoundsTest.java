package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.polyglotsandbox.SandboxEvent.OutputRejected.Reason;

/**
 * What the output boundary lets out is JSON that a reader with its default bounds reads (Jackson 2 and
 * 3 both refuse names over 50,000 characters, numbers over 1,000 digits, strings over 20,000,000
 * characters, and Jackson 3 nesting over 500 levels): a result past one of them is refused at the
 * boundary with {@code OUTPUT_REJECTED}, naming the path, instead of failing later in the CLI, the MCP
 * server or the embedder's own parser.
 */
class ResultJsonBoundsTest {
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60))
                .maxResultDepth(Limits.MAX_RESULT_DEPTH).build())
            .build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  /** Reads every token of {@code json} with a default reader, or with Jackson 3's nesting bound. */
  private static void readWithDefaultBounds(String json, int maxNesting) throws IOException {
    JsonFactory factory = JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(maxNesting).build()).build();
    try (JsonParser p = factory.createParser(json)) {
      while (p.nextToken() != null) {
        p.getText();
      }
    }
  }

  private static String key(Language language, int length) {
    return GuestCode.of(language,
        "const o = {}; o['k'.repeat(" + length + ")] = 1; o",
        "{'k' * " + length + ": 1}");
  }

  private static String integer(Language language, int digits, boolean negative) {
    String sign = negative ? "-" : "";
    return GuestCode.of(language,
        sign + "(10n ** " + (digits - 1) + "n)",
        sign + "10 ** " + (digits - 1));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aKeyLongerThanJsonReadersAccept_isRejectedAtTheBoundary(Language language) {
    ExecutionResult r = sandbox.run(language, key(language, 60_000));
    assertThatRun(r).wasRejected(Reason.STRING_TOO_LONG, "$").leaksNoHostDetail();
    assertThat(r.errorMessage()).hasValue(
        "output rejected: $: a key of 60000 characters, longer than the 50000 a JSON reader accepts");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aKeyAtTheBound_comesOutAsJsonADefaultReaderReads(Language language) throws IOException {
    ExecutionResult r = sandbox.run(language, key(language, 50_000));
    assertThatRun(r).isOk();
    readWithDefaultBounds(r.valueAsJson(), 1000);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void anIntegerOfMoreDigitsThanJsonReadersAccept_isRejectedAtTheBoundary(Language language) {
    for (boolean negative : new boolean[] {false, true}) {
      ExecutionResult r = sandbox.run(language, GuestCode.of(language,
          "({n: " + integer(language, 1001, negative) + "})", "{'n': " + integer(language, 1001, negative) + "}"));
      assertThatRun(r).wasRejected(Reason.STRING_TOO_LONG, "$.n").leaksNoHostDetail();
      assertThat(r.errorMessage()).hasValue("output rejected: $.n: an integer of 1001 digits, more than the 1000"
          + " a JSON reader accepts (return it as a string)");
    }
    ExecutionResult far = sandbox.run(language, integer(language, 5000, false));
    assertThatRun(far).wasRejected(Reason.STRING_TOO_LONG, "$");
    assertThat(far.errorMessage().orElseThrow()).contains("more than 1000 digits");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void anIntegerAtTheBound_comesOutAsJsonADefaultReaderReads(Language language) throws IOException {
    for (boolean negative : new boolean[] {false, true}) {
      String digits = (negative ? "-1" : "1") + "0".repeat(999);
      ExecutionResult r = sandbox.run(language, integer(language, 1000, negative));
      assertThatRun(r).isOk();
      assertThat(r.value()).isEqualTo(new java.math.BigInteger(digits));
      readWithDefaultBounds(r.valueAsJson(), 1000);
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void theDeepestResultAllowed_inTwoEnvelopes_isReadWithJacksonThreesNestingBound(Language language)
      throws IOException {
    int depth = Limits.MAX_RESULT_DEPTH;
    ExecutionResult r = sandbox.run(language, GuestCode.of(language,
        "let a = 1; for (let i = 0; i < " + depth + "; i++) { a = [a]; } a",
        "a = 1\nfor i in range(" + depth + "):\n    a = [a]\na"));
    assertThatRun(r).isOk();
    readWithDefaultBounds("{\"result\": {\"structuredContent\": {\"value\": " + r.valueAsJson() + "}}}", 500);
  }

  @Test
  void limitsAboveWhatJsonReadersAccept_areRefusedWhenBuilt() {
    assertThatThrownBy(() -> Limits.builder().maxResultDepth(Limits.MAX_RESULT_DEPTH + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxResultDepth (401) must be at most 400");
    assertThatThrownBy(() -> Limits.builder().maxResultStringLength(Limits.MAX_RESULT_STRING_LENGTH + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxResultStringLength (20000001) must be at most 20000000");
  }
}
