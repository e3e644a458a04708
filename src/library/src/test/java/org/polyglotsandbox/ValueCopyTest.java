package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What crosses the boundary is plain immutable Java data, in both directions. */
class ValueCopyTest {
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON)).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void lastExpression_isCopiedOutAsPlainData(Language language) {
    ExecutionResult r = sandbox.run(language, GuestCode.of(language,
        "({n: null, t: true, i: 7, d: 1.5, s: 'é', list: [1, [2]], nested: {k: 'v'}, f() {}, big: 2n ** 70n})",
        "def f(): pass\n{'n': None, 't': True, 'i': 7, 'd': 1.5, 's': 'é', 'list': [1, (2,)], 'nested': {'k': 'v'},"
            + " 'f': f, 'big': 2**70}"));
    assertThatRun(r).isOk();
    Map<String, Object> expected = new LinkedHashMap<>();
    expected.put("n", null);
    expected.put("t", true);
    expected.put("i", 7L);
    expected.put("d", 1.5);
    expected.put("s", "é");
    expected.put("list", List.of(1L, List.of(2L)));
    expected.put("nested", Map.of("k", "v"));
    expected.put("big", BigInteger.TWO.pow(70));
    assertThat(r.value()).isEqualTo(expected);
    assertThat(((Map<?, ?>) r.value()).containsKey("f")).isFalse();
    @SuppressWarnings("unchecked")
    Map<String, Object> map = (Map<String, Object>) r.value();
    assertThatThrownBy(() -> map.put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
  }

  /**
   * Regression: a Python program that ends in a statement, or in an expression that is None, must not
   * have the {@code __main__} module as its value ({@code "<module '__main__'>"}).
   */
  @ParameterizedTest
  @EnumSource(Language.class)
  void aProgramWithoutAFinalValue_hasTheValueNull(Language language) {
    for (String code : language == Language.PYTHON
        ? List.of("", "x = 1", "None", "def f():\n    pass", "import sys\nsys.modules['__main__'] = 3\nx = 1",
            "for i in range(3):\n    pass", "print('done')")
        : List.of("", "var x = 1", "undefined", "function f() {}", "for (let i = 0; i < 3; i++) {}", "null")) {
      ExecutionResult r = sandbox.run(language, code);
      assertThatRun(r).isOk();
      assertThat(r.value()).as("value of %s", code).isNull();
    }
    // A value that is not the main module still counts, modules included.
    assertThatRun(sandbox.run(Language.PYTHON, "x = 6\nx * 7")).hasValue(42L);
    assertThatRun(sandbox.run(Language.PYTHON, "import types\ntypes.ModuleType('__main__')"))
        .hasValue("<module '__main__'>");
  }

  @Test
  void pythonFloatsStayFloats_andObjectsBecomeTheirRepr() {
    ExecutionResult r = sandbox.run(Language.PYTHON,
        "class P:\n    def __repr__(self): return 'P()'\n[2.0, {3}, P(), 'x'.join(['a', 'b'])]");
    assertThatRun(r).hasValue(List.of(2.0, List.of(3L), "P()", "axb"));
  }

  @Test
  void javascriptGetters_runInsideTheGuest() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, "let n = 0; ({ get x() { return ++n; }, y: 1 })");
    assertThatRun(r).hasValue(Map.of("x", 1L, "y", 1L));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void inputs_arriveAsFreshGuestValues(Language language) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", 1);
    row.put("price", 2.5);
    row.put("tags", Arrays.asList("a", null));
    ExecutionResult r = sandbox.run(Script.of(language, GuestCode.of(language,
            "[rows.length, rows[0].price * 2, typeof rows[0].getClass, Array.isArray(rows), label]",
            "[len(rows), rows[0]['price'] * 2, type(rows).__name__, type(rows[0]).__name__, label]"))
        .withInputs(Map.of("rows", List.of(row), "label", "ok")));
    assertThatRun(r).isOk();
    assertThat(r.value()).isEqualTo(language == Language.JAVASCRIPT
        ? List.of(1L, 5L, "undefined", true, "ok") // JavaScript has one number type; 5 is integral
        : List.of(1L, 5.0, "list", "dict", "ok"));
  }

  @Test
  void inputsThatAreNotPlainData_areRejectedNamingThePath() {
    Script bad = Script.of(Language.JAVASCRIPT, "1").withInputs(Map.of("cfg", Map.of("when", new Object())));
    assertThatThrownBy(() -> sandbox.run(bad))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("input cfg.when is a Object");
    Number odd = new Number() {
      private static final long serialVersionUID = 1L;

      @Override public int intValue() { return 1; }
      @Override public long longValue() { return 1; }
      @Override public float floatValue() { return 1; }
      @Override public double doubleValue() { return 1; }
    };
    assertThatThrownBy(() -> sandbox.run(Script.of(Language.JAVASCRIPT, "1").withInputs(Map.of("v", List.of(odd)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("input v[0] is a Number subclass; only null, booleans, numbers, strings");
    // Regression: it must not reach the guest as Infinity, since NaN and infinities are refused.
    assertThatThrownBy(() -> sandbox.run(Script.of(Language.JAVASCRIPT, "1")
        .withInputs(Map.of("v", new java.math.BigDecimal("1e400")))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("input v is 1E+400, beyond the range of a double: a guest would read it as Infinity");
    assertThatThrownBy(() -> Script.of(Language.JAVASCRIPT, "1").withInputs(Map.of("not an id", 1)))
        .hasMessageContaining("'not an id'");
    for (String reserved : List.of("tools", "readText", "ToolError")) {
      assertThatThrownBy(() -> Script.of(Language.PYTHON, "1").withInputs(Map.of(reserved, 1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("input name '" + reserved + "' is reserved: the sandbox defines ToolError, readText and tools itself");
    }
  }
}
