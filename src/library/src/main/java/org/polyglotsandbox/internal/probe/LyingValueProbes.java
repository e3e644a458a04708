package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.HOST_REFLECTION;
import static org.polyglotsandbox.Operation.OUTPUT_WRITE;
import static org.polyglotsandbox.PolicyReport.OVERSIZE_RESULT;

import java.util.List;

/**
 * Values that lie: guest objects that answer differently each time the host reads them,
 * whose traps throw or whose lengths lie. Handed to the host as tool arguments (where tools are
 * allowed) and as {@code readText}'s path, they must come back as the guest's own errors or a plain
 * tool error: any host exception, class name or frame the guest catches counts as reachable host
 * reflection. Returned as the run's result, they must be refused by the output boundary
 * ({@code OUTPUT_REJECTED}), never end the run on an internal error.
 */
final class LyingValueProbes {
  private static final String HELD_VALUES = "<values the guest holds>";

  private LyingValueProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    if (!b.policy().tools().isEmpty()) {
      out.add(Probe.js("js.lying.tool-arguments", HOST_REFLECTION, HELD_VALUES)
          .code(JS_LYING_TOOL_ARGUMENTS.formatted(ProbeBattery.quote(b.policy().tools().iterator().next()))));
    }
    out.add(Probe.js("js.lying.read-text", HOST_REFLECTION, HELD_VALUES).code(JS_LYING_READ_TEXT));
    out.add(Probe.js("js.lying.result-proxy", OUTPUT_WRITE, OVERSIZE_RESULT).rejectedOutput().code(JS_LYING_RESULT_PROXY));
    out.add(Probe.js("js.lying.result-array", OUTPUT_WRITE, OVERSIZE_RESULT).rejectedOutput().code(JS_LYING_RESULT_ARRAY));
  }

  static void python(ProbeBattery b, List<Probe> out) {
    if (!b.policy().tools().isEmpty()) {
      out.add(Probe.py("py.lying.tool-arguments", HOST_REFLECTION, HELD_VALUES)
          .code(PY_LYING_TOOL_ARGUMENTS.formatted(ProbeBattery.quote(b.policy().tools().iterator().next()))));
    }
    out.add(Probe.py("py.lying.result-sequence", OUTPUT_WRITE, OVERSIZE_RESULT).rejectedOutput()
        .code(PY_LYING_RESULT_SEQUENCE));
    out.add(Probe.py("py.lying.result-dict", OUTPUT_WRITE, OVERSIZE_RESULT).rejectedOutput().code(PY_LYING_RESULT_DICT));
  }

  // ---- guest code: JavaScript

  /**
   * The liars (no percent sign: the tool probe's text is a format), and a test of what a catch saw: a
   * host exception is not an Error and names host classes.
   */
  static final String JS_LIARS = """
      const liars = () => [
        (() => { const a = [1, 2, 3]; Object.defineProperty(a, 0, {get() { a.length = 0; return 1; }, enumerable: true,
          configurable: true}); return a; })(),
        new Proxy({}, {ownKeys: () => ['a', 'b'], getOwnPropertyDescriptor: () => ({value: 1, enumerable: true,
          configurable: true}), get: () => undefined}),
        (() => { let n = 0; return new Proxy({}, {ownKeys: () => (n++ & 1 ? ['x'] : ['y', 'z']),
          getOwnPropertyDescriptor: () => ({value: n, enumerable: true, configurable: true}), get: (t, k) => (n++ & 2 ? undefined : k)}); })(),
        new Proxy([], {get(t, k) { if (k === 'length') { return 1e9; } throw new Error('liar'); }}),
      ];
      const hostish = (e) => {
        let text = '';
        try { text = String(e) + ' ' + (e && e.stack); } catch (x) { text = ''; }
        return !(e instanceof Error) || /java\\.|org\\.graalvm|polyglot|HostException|Value\\./.test(text) ? text || typeof e : null;
      };
      """;

  /** Argument: the first allowed tool's name, quoted. */
  static final String JS_LYING_TOOL_ARGUMENTS = JS_LIARS + """
      const name = %s;
      const seen = [];
      for (const v of liars()) {
        try { tools[name]({v: v}); } catch (e) { const h = hostish(e); if (h !== null) { seen.push(h.slice(0, 120)); } }
      }
      return seen.length ? 'reachable: the guest caught ' + seen.join('; ') : 'blocked: each lying argument came back as a plain error';""";

  static final String JS_LYING_READ_TEXT = JS_LIARS + """
      const seen = [];
      for (const v of [...liars(), 'x'.repeat(1e6), {toString() { throw new Error('liar'); }}]) {
        try { readText(v); } catch (e) { const h = hostish(e); if (h !== null) { seen.push(h.slice(0, 120)); } }
      }
      return seen.length ? 'reachable: the guest caught ' + seen.join('; ') : 'blocked: each lying path came back as a plain error';""";

  static final String JS_LYING_RESULT_PROXY = """
      (() => { let n = 0; return new Proxy({}, {ownKeys: () => ['a', 'b'], getOwnPropertyDescriptor: () => ({value: 1,
        enumerable: true, configurable: true}), get: () => { if (n++ > 0) { throw new Error('liar'); } return 1; }}); })()""";

  static final String JS_LYING_RESULT_ARRAY = """
      (() => { const a = [1, 2, 3]; Object.defineProperty(a, 1, {get() { throw new Error('liar'); }, enumerable: true,
        configurable: true}); return a; })()""";

  // ---- guest code: Python

  /** Argument: the first allowed tool's name, quoted. */
  static final String PY_LYING_TOOL_ARGUMENTS = """
      name = %s
      liars = [
          type('L', (), {'__len__': lambda s: 3, '__getitem__': lambda s, i: 1 // 0})(),
          type('I', (), {'__iter__': lambda s: iter(int, 1)})(),
          type('D', (dict,), {'keys': lambda s: ['a', 'b'], '__getitem__': lambda s, k: 1 // 0})({'c': 1}),
          type('S', (str,), {'__index__': lambda s: 1, '__float__': lambda s: 1.0})('abc'),
          type('A' * 10**6, (), {})(),
      ]
      seen = []
      for v in liars:
          try:
              getattr(tools, name)(v=v)
          except BaseException as e:
              text = type(e).__module__ + '.' + type(e).__qualname__ + ' ' + str(e)
              if type(e).__module__ not in ('builtins', 'tools') or 'java.' in text or 'org.graalvm' in text:
                  seen.append(text[:120])
      return 'reachable: the guest caught ' + '; '.join(seen) if seen else 'blocked: each lying argument came back as a plain error'""";

  static final String PY_LYING_RESULT_SEQUENCE = """
      [type('I', (), {'__iter__': lambda s: iter(int, 1)})()]""";

  static final String PY_LYING_RESULT_DICT = """
      {'a': type('L', (), {'__len__': lambda s: 3, '__getitem__': lambda s, i: 1 // 0})()}""";
}
