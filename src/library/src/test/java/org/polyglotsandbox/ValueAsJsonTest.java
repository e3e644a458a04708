package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link ExecutionResult#valueAsJson()}: the value's types kept, and text safe to print. */
class ValueAsJsonTest {
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON)).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static String json(Language language, String javascript, String python) {
    ExecutionResult r = sandbox.run(language, GuestCode.of(language, javascript, python));
    assertThat(r.isOk()).as("%s", r).isTrue();
    return r.valueAsJson();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void numbersStayNumbers_bigIntegersExactly(Language language) {
    assertThat(json(language, "({list: [1, 2.5, null, true, 's', 10n ** 30n]})",
        "{'list': [1, 2.5, None, True, 's', 10 ** 30]}"))
        .isEqualTo("{\"list\":[1,2.5,null,true,\"s\",1000000000000000000000000000000]}");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void nonFiniteDoubles_becomeStrings(Language language) {
    assertThat(json(language, "[NaN, Infinity, -Infinity]", "[float('nan'), float('inf'), float('-inf')]"))
        .isEqualTo("[\"NaN\",\"Infinity\",\"-Infinity\"]");
    assertThat(json(language, "[null, undefined]", "[None]")).startsWith("[null");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void guestText_hasNoRawControlOrInvisibleCharacters_andTheJsonStaysExact(Language language) throws Exception {
    String text = "a\u001b[2J\u007f\u009b\u202e\u200b\u00e9\ud83d\ude00\n";
    String json = json(language, "'a\\u001b[2J\\u007f\\u009b\\u202e\\u200b\\u00e9\\ud83d\\ude00\\n'",
        "'a\\x1b[2J\\x7f\\x9b\\u202e\\u200b\\u00e9\\U0001F600\\n'");

    assertThat(json.chars().filter(c -> c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x202e || c == 0x200b
        || Character.isSurrogate((char) c))).as(json).isEmpty();
    try (JsonParser p = new JsonFactory().createParser(json)) {
      p.nextToken();
      assertThat(p.getText()).isEqualTo(text);
    }
  }
}
