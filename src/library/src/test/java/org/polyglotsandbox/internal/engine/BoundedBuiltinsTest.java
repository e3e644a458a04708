package org.polyglotsandbox.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.stream.Stream;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.io.IOAccess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * Below their bounds ({@link BuiltinBounds}), the sandbox's bounded builtins give exactly what GraalJS's
 * and GraalPy's own give: the same values, the same errors, and the same conversions of their arguments in
 * the same order. Each case runs in a sandbox and in a plain context, and the two answers must be equal.
 */
@Tag("slow")
class BoundedBuiltinsTest {
  private static PolyglotSandbox sandbox;
  private static Engine plainEngine;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60)).build())
        .build()).build();
    plainEngine = Engine.newBuilder().option("engine.WarnInterpreterOnly", "false")
        .out(new ByteArrayOutputStream()).err(new ByteArrayOutputStream()).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
    plainEngine.close();
  }

  static Stream<String> javaScriptCases() {
    return Stream.of(
        "'abc'.padStart(10) + '|' + 'abc'.padStart(10, '12') + '|' + 'abc'.padEnd(10, 'xyz') + '|' + 'abc'.padEnd(8)",
        "['abc'.padStart(2, 'x'), 'abc'.padStart(-5, 'x'), 'abc'.padStart(NaN, 'x'), 'abc'.padStart(3.9, 'x'),"
            + " 'abc'.padStart('7', 0), 'abc'.padEnd(6, null), 'abc'.padEnd(6, undefined), 'abc'.padEnd(Infinity, ''),"
            + " 'abc'.padStart(-Infinity), 'abc'.padEnd(5, 1.5), 'abc'.padEnd(true, 'x'), 'abc'.padEnd(), 'abc'.padStart(6, [1, 2])].join('|')",
        "''.padStart(4, 'ab') + '|' + '\\ud800'.padEnd(3, '\\udc00') + '|' + 'é'.padStart(5, '\\u1234x')",
        "String.prototype.padStart.call({toString() { log.push('this'); return 'ab'; }},"
            + " {valueOf() { log.push('length'); return 6; }}, {toString() { log.push('fill'); return '-'; }})",
        "String.prototype.padEnd.call(42, {valueOf() { log.push('length'); return 1; }},"
            + " {toString() { log.push('fill, never'); return '-'; }})",
        "String.prototype.padEnd.call(new String('ab'), 4, {toString() { log.push('fill'); return ''; }})",
        "String.prototype.padStart.call(null, 3)",
        "String.prototype.padEnd.call(undefined)",
        "String.prototype.padEnd.call(Symbol(), 3)",
        "'x'.padStart(Symbol())",
        "'x'.padStart(5, Symbol())",
        "'x'.padStart(1n)",
        "'x'.padEnd({valueOf() { throw new TypeError('from valueOf'); }})",
        "String.prototype.padEnd.call({toString() { throw new RangeError('from toString'); }}, {valueOf() { log.push('never'); }})",
        "'x'.padEnd(2 ** 22, 'ab').length + ' ' + 'x'.padStart(2 ** 22).slice(-3)",
        "['abc'.normalize(), '\\u1E9B\\u0323'.normalize('NFC'), '\\u1E9B\\u0323'.normalize('NFD'),"
            + " '\\u1E9B\\u0323'.normalize('NFKC'), '\\u1E9B\\u0323'.normalize('NFKD'), 'é'.normalize(undefined)]"
            + ".map(s => s.length + ':' + [...s].map(c => c.codePointAt(0).toString(16)).join(',')).join(' ')",
        "'abc'.normalize('nfc')",
        "'abc'.normalize(null)",
        "''.normalize('NFX')",
        "String.prototype.normalize.call(null)",
        "String.prototype.normalize.call(undefined, 'NFX')",
        "String.prototype.normalize.call({toString() { log.push('this'); return 'e\\u0301'; }},"
            + " {toString() { log.push('form'); return 'NFC'; }}).length",
        "String.prototype.normalize.call(12, {toString() { log.push('form'); return 'NFKC'; }})",
        "'x'.normalize(Symbol())",
        "'\\u1E9B\\u0323'.repeat(2 ** 22).normalize('NFKD').length",
        "[String.prototype.padStart, String.prototype.padEnd, String.prototype.normalize].map(f => [typeof f, f.name,"
            + " f.length, String(f), JSON.stringify(Object.getOwnPropertyDescriptor(String.prototype, f.name),"
            + " ['writable', 'enumerable', 'configurable']), 'prototype' in f, Object.getOwnPropertyNames(f).join(),"
            + " JSON.stringify(Object.getOwnPropertyDescriptor(f, 'length'))].join(' ')).join(' | ')",
        "new String.prototype.padStart(3)",
        "new ''.normalize()",
        "Reflect.apply = null; Object.defineProperty = null; String = null; RangeError = null; Math.trunc = null;"
            + " Array.prototype[Symbol.iterator] = null; Function.prototype.call = null;"
            + " 'ab'.padStart(5, 'x') + 'ab'.padEnd(4) + 'e\\u0301'.normalize().length + ''.normalize.call('x', 'NFD')");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("javaScriptCases")
  void javaScript_givesWhatGraalJsGives(String expression) {
    String code = "globalThis.log = [];\n(() => { try { return String((0, eval)(" + jsLiteral(expression)
        + ")) + ' | ' + log.join(','); } catch (e) { return 'ERR ' + e.name + ': ' + e.message + ' | ' + log.join(',');"
        + " } })()";
    String expected;
    try (Context plain = Context.newBuilder("js").engine(plainEngine).build()) {
      expected = plain.eval("js", code).asString();
    }
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, code);
    assertThat(r.errorMessage()).as("error").isEmpty();
    assertThat(r.value()).as("%s", expression).isEqualTo(expected);
  }

  static Stream<String> pythonCases() {
    return Stream.of(
        "answer = [math.factorial(n) for n in (0, 1, 2, 20, 21, 25, True, False)]",
        "answer = len(str(math.factorial(3000)))",
        "class I:\n    def __index__(self):\n        return 7\nanswer = (math.factorial(I()), math.comb(I(), 3), math.perm(I(), 2), math.perm(I()))",
        "math.factorial(-1)",
        "math.factorial(-10**30)",
        "math.factorial(1.5)",
        "math.factorial('3')",
        "math.factorial()",
        "answer = [math.comb(10, 3), math.comb(3, 10), math.comb(10, 0), math.comb(10, 10), math.comb(10**100, 2) % 997,"
            + " math.comb(0, 0), math.comb(True, True), math.comb(400, 200) % 10**9]",
        "math.comb(-1, 2)",
        "math.comb(5, -1)",
        "math.comb(5.0, 2)",
        "math.comb(5, '2')",
        "math.comb(5)",
        "answer = [math.perm(10), math.perm(10, 3), math.perm(10, None), math.perm(3, 10), math.perm(10, 0),"
            + " math.perm(10**100, 2) % 997, math.perm(300, 150) % 10**9]",
        "math.perm(-1)",
        "math.perm(5, -1)",
        "math.perm(-5, 2)",
        "math.perm(5, 2.0)",
        "answer = math.perm(n=6, k=2)",
        "math.perm()",
        "math.factorial(a=3)",
        "answer = (sys.get_int_max_str_digits(), sys.set_int_max_str_digits(640), sys.get_int_max_str_digits())",
        "answer = (sys.set_int_max_str_digits(maxdigits=5000), len(str(10**4999)), len(repr(-10**4999)))",
        "sys.set_int_max_str_digits(639)",
        "sys.set_int_max_str_digits(-1)",
        "sys.set_int_max_str_digits(1.5)",
        "sys.set_int_max_str_digits('100')",
        "sys.set_int_max_str_digits()",
        "str(10**5000)",
        "int('9' * 5000)",
        "sys.set_int_max_str_digits(10**5)\nanswer = len(str(10**99999))",
        "answer = [decimal.getcontext().prec, str(decimal.Decimal(1) / decimal.Decimal(7))]",
        "decimal.getcontext().prec = 50\nanswer = str(decimal.Decimal(1) / decimal.Decimal(7))",
        "c = decimal.Context(prec=100)\nanswer = (c.prec, str(c.divide(decimal.Decimal(2), decimal.Decimal(3)))[-5:])",
        "with decimal.localcontext(prec=60) as c:\n    answer = (c.prec, len(str(decimal.Decimal(1) / 3)))",
        "decimal.getcontext().prec = 10**5\nanswer = decimal.getcontext().prec",
        "decimal.getcontext().prec = 0",
        "decimal.getcontext().prec = -5",
        "decimal.getcontext().prec = 'x'",
        "decimal.getcontext().prec = 5.0",
        "decimal.getcontext().Emax = 10**6\ndecimal.getcontext().rounding = decimal.ROUND_DOWN\n"
            + "answer = (decimal.getcontext().Emax, decimal.getcontext().rounding, str(decimal.Decimal('2.999').quantize(decimal.Decimal('0.1'))))",
        "decimal.getcontext().nonsense = 1",
        "answer = [(f.__name__, f.__qualname__, f.__module__, callable(f)) for f in (math.factorial, math.comb, math.perm,"
            + " sys.set_int_max_str_digits)] + [decimal.Context.__setattr__.__name__]");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("pythonCases")
  void python_givesWhatGraalPyGives(String statements) {
    String code = "def __case():\n    import math, sys, decimal\n    ns = {'math': math, 'sys': sys, 'decimal': decimal}\n"
        + "    try:\n        exec(" + pyLiteral(statements) + ", ns)\n        return repr(ns.get('answer'))\n"
        + "    except BaseException as e:\n        return 'ERR ' + type(e).__name__ + ': ' + str(e)\n__case()";
    String expected;
    try (Context plain = Context.newBuilder("python").engine(plainEngine).allowIO(IOAccess.ALL).build()) {
      expected = plain.eval("python", code).asString();
    }
    ExecutionResult r = sandbox.run(Language.PYTHON, code);
    assertThat(r.errorMessage()).as("error").isEmpty();
    assertThat(r.value()).as("%s", statements).isEqualTo(expected);
  }

  /** The case as a JavaScript string literal. */
  private static String jsLiteral(String code) {
    return "'" + code.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'";
  }

  /** The case as a Python string literal. */
  private static String pyLiteral(String code) {
    return "'" + code.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'";
  }
}
