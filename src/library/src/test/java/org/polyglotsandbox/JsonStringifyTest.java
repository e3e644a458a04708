package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.stream.Stream;
import org.graalvm.polyglot.Context;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The sandbox's {@code JSON.stringify} (which passes every value through a guest call, so that a stopped
 * run stops) gives exactly what GraalJS's own gives: the same text, the same errors, and the same calls
 * to getters, {@code toJSON}, replacers and Proxy traps in the same order. Each case runs in a sandbox
 * and in a plain GraalJS context, and the two answers must be equal.
 */
@Tag("slow")
class JsonStringifyTest {
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60)).build())
        .build()).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  static Stream<String> cases() {
    return Stream.of(
        "JSON.stringify({a: 1, b: [1, 'x', null, undefined, () => 1, NaN, -0], c: {d: new Date(0)}, e: undefined})",
        "JSON.stringify({a: {b: 1}, c: [2]}, function (k, v) {"
            + " log.push(JSON.stringify(k), typeof this, Array.isArray(this), this === globalThis);"
            + " return typeof v === 'number' ? v * 2 : v; })",
        "JSON.stringify({x: 1}, function (k, v) { log.push(Object.keys(this).join('+')); return v; })",
        "JSON.stringify({b: 1, 1: 2, a: {a: 1, b: 2, c: 3}, c: 3}, ['b', 1, 'a', new String('c'), 'b', {}, 1.5, true])",
        "JSON.stringify([{a: 1, b: 2}, [{a: 3, z: 4}]], ['a'])",
        "JSON.stringify({a: [1, {b: 2, c: 3}], b: 4}, null, 2)",
        "JSON.stringify({a: [1, {b: 2}]}, null, '--')",
        "JSON.stringify({a: [1, {b: 2}]}, null, new Number(3))",
        "JSON.stringify({a: [1, {b: 2}]}, null, new String('abcdefghijklmn'))",
        "JSON.stringify({a: [1, {b: 2}]}, ['a', 'b'], '\\t')",
        "JSON.stringify({x: {toJSON(k) { log.push('toJSON ' + k); return 'k=' + k; }}, y: [{toJSON: (k) => k}]})",
        "JSON.stringify({x: {toJSON(k) { log.push('toJSON ' + k); return {a: 1, q: 2}; }}}, ['x', 'a'])",
        "let o = {get a() { log.push('a'); return {get z() { log.push('z'); return 1; }, y: 2}; },"
            + " get b() { log.push('b'); return 2; }}; JSON.stringify(o, ['b', 'a', 'z'])",
        "let o = {get a() { log.push('a'); return 1; }, get b() { log.push('b'); delete this.c; return 2; },"
            + " get c() { log.push('c'); return 3; }}; JSON.stringify(o)",
        "let n = 0; let o = {get a() { n++; return n < 3 ? {a: o} : 1; }}; JSON.stringify(o, ['a'])",
        "let o = {}; o.self = o; JSON.stringify(o)",
        "let o = {x: {}}; o.x.back = o; JSON.stringify(o, ['x', 'back'])",
        "let o = []; o.push({y: o}); JSON.stringify(o, (k, v) => v)",
        "JSON.stringify({a: 1n})",
        "JSON.stringify({a: Object(2n)}, ['a'])",
        "BigInt.prototype.toJSON = function () { return this.toString() + 'n'; }; JSON.stringify({a: 1n, b: [2n]}, ['a', 'b'])",
        "let t = new Proxy({a: 1, b: 2, c: 3}, {get(t, k, r) { log.push('get ' + String(k)); return Reflect.get(t, k, r); },"
            + " ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t); },"
            + " getOwnPropertyDescriptor(t, k) { log.push('gopd ' + k); return Reflect.getOwnPropertyDescriptor(t, k); }});"
            + " JSON.stringify(t) + ' ' + JSON.stringify(t, ['c', 'a'])",
        "JSON.stringify(new Proxy([1, {a: 2, b: 3}], {}), ['b'])",
        "JSON.stringify({a: 1, b: 2}, new Proxy(['b'], {get(t, k) { log.push('list ' + String(k)); return t[k]; }}))",
        "let r = Proxy.revocable({}, {}); r.revoke(); JSON.stringify({a: r.proxy})",
        "let r = Proxy.revocable({}, {}); r.revoke(); JSON.stringify({a: r.proxy}, ['a'])",
        "JSON.stringify([new Number(3), new String('s'), new Boolean(false), Object(Symbol())], ['x'])",
        "JSON.stringify({a: 1}, {length: 1, 0: 'a'}) + JSON.stringify({a: 1}, 'abc') + JSON.stringify({a: 1}, 7, 1)",
        "let l = []; l.length = 5; l[3] = 'a'; JSON.stringify({a: 1, b: 2}, l)",
        "String(JSON.stringify(undefined)) + String(JSON.stringify(() => 1)) + String(JSON.stringify(Symbol()))"
            + " + JSON.stringify('\\ud800\\u2028\"\\\\') + JSON.stringify(1e21) + JSON.stringify(new Date(NaN))",
        "JSON.stringify({a: 1}, () => { throw new TypeError('from the replacer'); })",
        "JSON.stringify({get a() { throw new RangeError('from a getter'); }}, ['a'])",
        "JSON.stringify({a: 1}, {get length() { throw new Error('never read'); }})",
        "let d = []; for (let i = 0; i < 3000; i++) d = [d, {k: i}]; JSON.stringify(d).length",
        "let d = {}; for (let i = 0; i < 2000; i++) d = {k: d}; JSON.stringify(d, ['k']).length",
        "Reflect.apply = null; Array.isArray = () => true; Map.prototype.get = () => 1; Map.prototype.set = null;"
            + " Object.prototype.get = () => 0; Object.prototype.ownKeys = 1; Function.prototype.bind = null;"
            + " Number.prototype.valueOf = () => 1; String = null; Proxy = null;"
            + " JSON.stringify({a: [1, {b: 2}], c: new Number(4)}, ['a', 'b', 'c'], 1)"
            + " + JSON.stringify({a: 1}, (k, v) => v) + JSON.stringify({a: 1})",
        "typeof JSON.stringify + ' ' + JSON.stringify.name + ' ' + JSON.stringify.length + ' '"
            + " + JSON.stringify(Object.getOwnPropertyDescriptor(JSON, 'stringify'), ['writable', 'enumerable', 'configurable'])"
            + " + ' ' + ('prototype' in JSON.stringify) + ' ' + Object.keys(JSON).length",
        "new JSON.stringify({})");
  }

  /** The case as a JavaScript string literal. */
  private static String literal(String code) {
    return "'" + code.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'";
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void stringify_givesWhatGraalJsGives(String expression) {
    String code = "globalThis.log = [];\n(() => { try { return String((0, eval)(" + literal(expression)
        + ")) + ' | ' + log.join(','); } catch (e) { return 'ERR ' + e.name + ': ' + e.message + ' | ' + log.join(',');"
        + " } })()";
    String expected;
    try (Context plain = Context.newBuilder("js").build()) {
      expected = plain.eval("js", code).asString();
    }
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, code);
    assertThat(r.errorMessage()).as("error").isEmpty();
    assertThat(r.value()).as("%s", expression).isEqualTo(expected);
  }
}
