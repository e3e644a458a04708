package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link Script#fromToolArguments}: an agent's {@code {code, inputs?}} tool call as a script, or a plain refusal. */
class ScriptFromToolArgumentsTest {
  @Test
  void codeAndInputs_makeTheScript() {
    Script s = Script.fromToolArguments(Language.PYTHON,
        "{\"code\": \"sum(rows) * k\", \"inputs\": {\"rows\": [1, 2, 3], \"k\": 2}}", 100);

    assertThat(s.language()).isEqualTo(Language.PYTHON);
    assertThat(s.code()).isEqualTo("sum(rows) * k");
    assertThat(s.name()).isEqualTo("main.py");
    assertThat(s.inputs()).containsOnlyKeys("rows", "k");
    assertThat(Script.fromToolArguments(Language.JAVASCRIPT, Map.of("code", ""), 100).code()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "not json                                         | the arguments are not a JSON object (",
      "[1, 2]                                           | the arguments must be a JSON object {\"code\": ..., \"inputs\": {...}}, got an array",
      "{}                                               | missing argument \"code\": the program to run, as a string",
      "{\"code\": null}                                 | missing argument \"code\": the program to run, as a string (got null)",
      "{\"code\": 42}                                   | argument \"code\" must be a string, got a number",
      "{\"code\": \"12345678901\"}                      | argument \"code\" is 11 characters long; at most 10 are accepted",
      "{\"code\": \"1\", \"lang\": \"js\"}              | unknown argument \"lang\"; the tool takes \"code\" (a string) and optionally \"inputs\" (an object)",
      "{\"code\": \"1\", \"inputs\": [1]}               | argument \"inputs\" must be an object of names to JSON values, got an array",
      "{\"code\": \"1\", \"inputs\": {\"tools\": 1}}    | argument \"inputs\": input name 'tools' is reserved",
      "{\"code\": \"1\", \"code\": \"2\"}               | the arguments are not a JSON object (Duplicate field 'code'"})
  void badArguments_areRefused_namingTheProblem(String json, String problem) {
    assertThatThrownBy(() -> Script.fromToolArguments(Language.JAVASCRIPT, json, 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(problem);
  }

  @Test
  void aHugeUnknownArgumentName_isCutInTheMessage() {
    Map<String, Object> args = new HashMap<>();
    args.put("code", "1");
    args.put("k".repeat(10_000), List.of());
    assertThatThrownBy(() -> Script.fromToolArguments(Language.JAVASCRIPT, args, 10))
        .isInstanceOf(IllegalArgumentException.class).message().hasSizeLessThan(300);
  }
}
