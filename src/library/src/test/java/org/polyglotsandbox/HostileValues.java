package org.polyglotsandbox;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Generates hostile guest values from composable pieces, as guest source text: JavaScript expressions
 * and Python expressions (over the helpers of {@link #PYTHON_PRELUDE}). A value is a leaf, or a piece
 * wrapped around smaller values: a {@code Proxy} whose traps throw, lie, answer differently each time,
 * mutate their target, return themselves or never end; an array whose index getter shrinks or grows
 * it; getters with side effects; symbol and huge keys; self-references and deep nesting; Python
 * classes whose {@code __len__}, {@code __getitem__}, {@code __iter__}, {@code keys()}, {@code __eq__},
 * {@code __hash__}, {@code __class__}, {@code __str__} and {@code __repr__} lie, raise or loop, dict and
 * list subclasses, class names a million characters long.
 *
 * <p>Everything is drawn from a {@link SplittableRandom}, so a seed reproduces a case exactly.
 */
final class HostileValues {
  /**
   * Python helpers every generated Python program starts with. Loops span lines: GraalPy counts a
   * statement when execution moves to another line, so the statement cap stops them.
   */
  static final String PYTHON_PRELUDE = """
      import sys as _sys
      def _loop(*a, **k):
          n = 0
          while True:
              n += 1
      def _raise(*a, **k):
          raise ValueError('trap raised')
      class _Liar(Exception):
          def __str__(self):
              raise RuntimeError('str of an exception raised')
      def _raise_liar(*a, **k):
          raise _Liar()
      def _huge(*a, **k):
          return 'h' * 10**7
      _state = [0]
      def _flip(*a, **k):
          _state[0] += 1
          return _state[0] % 3
      def _grow(s, *a):
          if isinstance(s, list):
              s.append(len(s))
          return 1
      def _shrink(s, *a):
          if isinstance(s, list) and s:
              s.pop()
          return 1
      def _inf(*a, **k):
          return iter(int, 1)
      """;

  private static final int MAX_DEPTH = 3;
  // Not among the leaves: sys, sys.modules and builtins, whose text shows GraalPy's home; what a guest
  // sees of it is VirtualInterpreterHomeTest's subject.

  private final SplittableRandom random;
  private final Language language;

  HostileValues(SplittableRandom random, Language language) {
    this.random = random;
    this.language = language;
  }

  /** One hostile value. */
  String value() {
    return language == Language.JAVASCRIPT ? js(0) : py(0);
  }

  private boolean chance(int percent) {
    return random.nextInt(100) < percent;
  }

  private <T> T pick(List<T> options) {
    return options.get(random.nextInt(options.size()));
  }

  private String hugeLength() {
    return pick(List.of("10", "1000", "200000", "20000000"));
  }

  // ---- JavaScript

  private static final List<String> JS_LEAVES = List.of("1", "-0", "NaN", "Infinity", "2 ** 53 + 1", "'s'", "''",
      "null", "undefined", "true", "Symbol('s')", "10n ** 400n", "-(10n ** 5000n)", "new Date(NaN)", "new Date(8.64e15)",
      "new Date()", "() => 1", "class K {}", "Object.create(null)", "new Map([[{}, 1], [NaN, 2]])", "new Set([1, {}])",
      "new WeakMap()", "Promise.resolve(1)", "new Uint8Array(4)", "new ArrayBuffer(8)", "/re/g", "new Error('e')",
      "Math", "JSON", "globalThis", "(function () { return arguments; })(1, 2)", "(function* () { while (true) { yield 1; } })()",
      "[1, , 3]", "'\\u001b[31mred\\u202e\\ud800'", "new String('boxed')", "Object(1n)", "Object(Symbol('s'))");

  private String js(int depth) {
    if (depth >= MAX_DEPTH || chance(25)) {
      return jsLeaf();
    }
    String child = js(depth + 1);
    return switch (random.nextInt(11)) {
      case 0, 1, 2 -> jsProxy(child, depth);
      case 3 -> jsLyingArray(child);
      case 4 -> jsGetters(child);
      case 5 -> "{[Symbol('s')]: " + child + ", a: " + child + "}";
      case 6 -> "{['k'.repeat(" + hugeLength() + ")]: " + child + "}";
      case 7 -> "(() => { const o = {a: " + child + "}; o.self = o; const a = [o]; a.push(a); return "
          + pick(List.of("o", "a", "[o, o]")) + "; })()";
      case 8 -> nested(child, 120);
      case 9 -> jsLongName(child);
      default -> jsPrimitiveTraps(child);
    };
  }

  /**
   * {@code child} inside up to {@code maxLevels} lists (JavaScript and Python write them alike). Python's
   * parser refuses more than 200 nested brackets in one program, so its share stays below that over
   * {@link #MAX_DEPTH} levels with the brackets around them.
   */
  private String nested(String child, int maxLevels) {
    int levels = 1 + random.nextInt(maxLevels);
    return "[".repeat(levels) + child + "]".repeat(levels);
  }

  private String jsLeaf() {
    if (chance(15)) {
      return "'x'.repeat(" + hugeLength() + ")";
    }
    return pick(JS_LEAVES);
  }

  /** What a trap does, given the proxy's target {@code t}, the proxy {@code p} and a counter {@code n}. */
  private String jsTrapBody(String trap, String child) {
    return switch (random.nextInt(12)) {
      case 0 -> "throw new Error('trap " + trap + "');";
      case 1 -> "throw p;";
      case 2 -> "throw 'e'.repeat(" + hugeLength() + ");";
      case 3 -> "for (;;) {}";
      case 4 -> "return p;";
      case 5 -> "return n++ % 2 ? " + child + " : undefined;";
      case 6 -> "for (const k of Reflect.ownKeys(t)) { delete t[k]; } t.z = " + child + "; return Reflect." + trap
          + "(t, ...r);";
      case 7 -> "return " + lie(trap, child) + ";";
      case 8 -> "return 'x'.repeat(" + hugeLength() + ");";
      case 9 -> "return Symbol('trap');";
      case 10 -> "if (Array.isArray(t)) { t.length = n++ % 3; } return Reflect." + trap + "(t, ...r);";
      default -> "return Reflect." + trap + "(t, ...r);";
    };
  }

  private String lie(String trap, String child) {
    return switch (trap) {
      case "ownKeys" -> pick(List.of("['a', 'b', 'length']", "n++ % 2 ? ['x'] : ['y', 'z', '0']",
          "Array.from({length: 100000}, (_, i) => 'k' + i)", "[Symbol('s'), 'a']", "['a', 'a']"));
      case "getOwnPropertyDescriptor" -> pick(List.of("({value: " + child + ", enumerable: true, configurable: true})",
          "({get() { throw new Error('descriptor getter'); }, enumerable: true, configurable: true})",
          "n++ % 2 ? undefined : {value: 1, enumerable: true, configurable: true}"));
      case "has" -> "n++ % 2 === 0";
      case "getPrototypeOf" -> pick(List.of("Array.prototype", "null", "Date.prototype", "Map.prototype",
          "Error.prototype", "Function.prototype"));
      default -> child;
    };
  }

  private String jsProxy(String child, int depth) {
    String target = pick(List.of("{}", "[]", "{a: 1, b: 2}", "[1, 2, 3]", "function () {}", "new Error('t')",
        depth + 1 < MAX_DEPTH ? "(" + js(depth + 1) + ")" : "{}"));
    StringBuilder traps = new StringBuilder();
    for (String trap : List.of("ownKeys", "get", "getOwnPropertyDescriptor", "has", "getPrototypeOf")) {
      if (chance(45)) {
        traps.append(trap).append("(t, ...r) { ").append(jsTrapBody(trap, child)).append(" }, ");
      }
    }
    String body = traps.toString();
    return "(() => { let n = 0; let p; const t0 = " + target + "; p = new Proxy(typeof t0 === 'object' && t0 !== null"
        + " || typeof t0 === 'function' ? t0 : {}, {" + body + "}); return p; })()";
  }

  private String jsLyingArray(String child) {
    String effect = pick(List.of("a.length = 0;", "a.push(a.length);", "a.length = 1;", "throw new Error('getter');",
        "for (;;) {}", "a.splice(0, 2);", "a[1e6] = 1;", "Object.defineProperty(a, 2, {get() { a.length = 0; }});"));
    return "(() => { const a = [" + child + ", " + child + ", " + child + "]; Object.defineProperty(a, "
        + random.nextInt(3) + ", {get() { " + effect + " return " + child + "; }, enumerable: true, configurable: true});"
        + " return a; })()";
  }

  private String jsGetters(String child) {
    String effect = pick(List.of("delete this.b;", "this.c = " + child + ";", "throw new Error('getter');",
        "for (;;) {}", "Object.defineProperty(this, 'b', {get() { throw new Error('later'); }, enumerable: true});",
        "for (let i = 0; i < 1000; i++) { this['k' + i] = i; }", "Object.setPrototypeOf(this, null);"));
    return "({get a() { " + effect + " return " + child + "; }, b: " + child + ", get [Symbol.toStringTag]() { "
        + pick(List.of("throw new Error('tag');", "return 'x'.repeat(" + hugeLength() + ");", "for (;;) {}",
        "return 'T';")) + " }})";
  }

  private String jsLongName(String child) {
    return "(() => { const C = class {}; Object.defineProperty(C, 'name', {value: 'C'.repeat(" + hugeLength() + ")});"
        + " const o = new C(); o.v = " + child + "; return " + pick(List.of("o", "C", "[o]")) + "; })()";
  }

  private String jsPrimitiveTraps(String child) {
    String body = pick(List.of("throw new Error('conversion');", "for (;;) {}", "return 'x'.repeat(" + hugeLength() + ");",
        "return {};", "return " + child + ";"));
    return "({toString() { " + body + " }, valueOf() { " + body + " }, toJSON() { " + body + " }, [Symbol.toPrimitive]() { "
        + body + " }, v: " + child + "})";
  }

  /** A value thrown by the program: a plain hostile value, or an error object with hostile parts. */
  String jsThrown() {
    String child = js(1);
    return switch (random.nextInt(6)) {
      case 0 -> child;
      case 1 -> "new Error('m'.repeat(" + hugeLength() + "))";
      case 2 -> "Object.assign(new Error('m'), {stack: " + child + ", name: " + child + "})";
      case 3 -> "(() => { class E extends Error { get message() { " + pick(List.of("for (;;) {}",
          "throw new Error('message getter');", "return 'x'.repeat(" + hugeLength() + ");", "return " + child + ";"))
          + " } get stack() { throw new Error('stack getter'); } } return new E('e'); })()";
      case 4 -> "(() => { let n = 0; const p = new Proxy(new Error('proxied'), {get(t, ...r) { " + jsTrapBody("get", child)
          + " }, getPrototypeOf(t, ...r) { " + jsTrapBody("getPrototypeOf", child) + " }}); return p; })()";
      default -> "(() => { const e = new Error('with cause'); e.cause = " + child + "; e.errors = [" + child + "]; return e; })()";
    };
  }

  // ---- Python

  private static final List<String> PY_LEAVES = List.of("1", "-1", "1.5", "float('nan')", "float('inf')", "-0.0",
      "10**5000", "-(10**300)", "'s'", "''", "None", "True", "b'bytes'", "bytearray(4)", "{1, 2}", "frozenset()", "1j",
      "lambda: 1", "print", "object()", "type", "range(10**12)", "iter(int, 1)", "memoryview(b'ab')",
      "__import__('datetime').datetime.now()", "__import__('datetime').date(1, 1, 1)", "__import__('datetime').timedelta(days=9)",
      "Ellipsis", "NotImplemented", "__import__('decimal').Decimal('1e99999')", "__import__('fractions').Fraction(1, 3)",
      "ValueError('v')", "(x for x in iter(int, 1))", "'\\x1b[31mred\\u202e'", "{'a': 1}.keys()",
      "type('M', (type,), {})");

  private String py(int depth) {
    if (depth >= MAX_DEPTH || chance(25)) {
      return pyLeaf();
    }
    String child = py(depth + 1);
    return switch (random.nextInt(8)) {
      case 0, 1, 2, 3 -> pyClass(child);
      case 4 -> "(lambda l: (l.append(l), l)[1])([" + child + "])";
      case 5 -> "(lambda d: (d.__setitem__('self', d), d)[1])({'a': " + child + "})";
      case 6 -> nested(child, 50);
      default -> "{" + pick(List.of("(1, 2)", "1", "None", "1.5", "'k' * " + hugeLength(), "frozenset()",
          "type('K', (str,), {'__str__': _raise, '__hash__': lambda s: 1, '__eq__': _raise})('k')",
          "type('K', (int,), {'__repr__': _raise, '__str__': _huge})(7)")) + ": " + child + ", 'b': " + child + "}";
    };
  }

  private String pyLeaf() {
    if (chance(15)) {
      return "'x' * " + hugeLength();
    }
    return pick(PY_LEAVES);
  }

  private String pyImpl(String child) {
    return pick(List.of("_raise", "_raise_liar", "_loop", "_huge", "_flip", "_inf", "lambda s, *a: " + child,
        "lambda s, *a: 3", "lambda s, *a: -1", "lambda s, *a: 10**30", "lambda s, *a: iter([" + child + "])",
        "lambda s, *a: ['a', 'b']", "_grow", "_shrink", "lambda s, *a: 'x' * " + hugeLength(), "lambda s, *a: None"));
  }

  private String pyClass(String child) {
    String[] base = pick(List.of(new String[] {"()", "()"}, new String[] {"(dict,)", "({'a': " + child + ", 'b': 2})"},
        new String[] {"(list,)", "([" + child + ", 2, 3])"}, new String[] {"(tuple,)", "((1, " + child + "))"},
        new String[] {"(str,)", "('abc')"}, new String[] {"(int,)", "(5)"}, new String[] {"(float,)", "(2.5)"},
        new String[] {"(Exception,)", "('e')"}, new String[] {"(__import__('datetime').date,)", "(2020, 1, 1)"},
        new String[] {"(set,)", "([1, 2])"}, new String[] {"(bytes,)", "(b'ab')"}));
    String members = pyMembers(child);
    if (base[0].contains("date") && chance(50)) {
      members += "'year': property(" + pick(List.of("lambda s: 10**10", "_raise", "lambda s: -5")) + "), ";
    }
    String name = pick(List.of("'C'", "'C'", "'A' * 10**6", "'x\\x1b[2J\\u202e'", "''", "'Runtime'"));
    return "type(" + name + ", " + base[0] + ", {" + members + "})" + base[1];
  }

  /** A class body's members: dunders that lie, raise or loop. */
  private String pyMembers(String child) {
    StringBuilder members = new StringBuilder();
    for (String dunder : List.of("__len__", "__getitem__", "__iter__", "keys", "items", "values", "__eq__", "__hash__",
        "__str__", "__repr__", "__getattr__", "__bool__", "__index__", "__int__", "__float__", "__contains__", "__next__",
        "__dir__", "__format__")) {
      if (chance(18)) {
        members.append("'").append(dunder).append("': ").append(pyImpl(child)).append(", ");
      }
    }
    if (chance(10)) {
      members.append("'__getattribute__': ").append(pick(List.of("_raise", "_loop", "lambda s, k: " + child))).append(", ");
    }
    if (chance(15)) {
      members.append("'__class__': property(").append(pick(List.of("lambda s: int", "lambda s: dict", "_raise", "_loop")))
          .append("), ");
    }
    return members.toString();
  }

  /** A Python statement that raises: a hostile value in an exception, or an exception class that lies. */
  String pyRaise() {
    String child = py(1);
    return switch (random.nextInt(6)) {
      case 0 -> "raise ValueError(" + child + ")";
      case 1 -> "raise type(" + pick(List.of("'E'", "'A' * 10**6", "''")) + ", (Exception,), {" + pyMembers(child) + "})('e')";
      case 2 -> "raise type('E', (Exception,), {'__str__': " + pyImpl(child) + ", '__repr__': " + pyImpl(child) + "})()";
      case 3 -> "raise SystemExit(" + pick(List.of(child, "10**100", "-1", "'x' * " + hugeLength(),
          "type('I', (int,), {'__index__': _raise, '__int__': _raise})(3)")) + ")";
      case 4 -> "raise type('E', (Exception,), {})('m' * " + hugeLength() + ")";
      default -> "e = ValueError('chained')\ne.__cause__ = type('C', (Exception,), {'__str__': _huge})()\nraise e";
    };
  }
}
