package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.LIMIT_EXCEED;
import static org.polyglotsandbox.Operation.OUTPUT_WRITE;
import static org.polyglotsandbox.PolicyReport.OVERSIZE_RESULT;
import static org.polyglotsandbox.internal.probe.ProbeBattery.quote;

import java.util.List;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Tool;

/**
 * Resource bombs: whole programs that run until a limit stops them (statements, CPU, memory, output,
 * stack, wall time, files, tool calls) or return a result the output boundary must refuse. Each runs
 * alone, with limits that keep its cap short ({@link RunKind}); it counts as blocked only when
 * its own limit stopped it.
 */
final class BombProbes {
  private BombProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    add(Language.JAVASCRIPT, b, out);
  }

  static void python(ProbeBattery b, List<Probe> out) {
    add(Language.PYTHON, b, out);
  }

  /** One bomb in both languages: its name's last part, the limit that must stop it (null: a refused result). */
  private record Bomb(String name, Limit limit, String javascript, String python) {}

  private static void add(Language language, ProbeBattery b, List<Probe> out) {
    boolean js = language == Language.JAVASCRIPT;
    String prefix = js ? "js.bomb." : "py.bomb.";
    for (Bomb bomb : BOMBS) {
      String code = js ? bomb.javascript() : bomb.python();
      // Without a writable mount no file can be created, so the file cap cannot be approached.
      if (code == null || bomb.limit() == Limit.FILES && b.fixtures().writableDirectory() == null) {
        continue;
      }
      out.add((bomb.limit() == null
          ? Probe.of(language, prefix + bomb.name(), OUTPUT_WRITE, OVERSIZE_RESULT).rejectedOutput()
          : Probe.of(language, prefix + bomb.name(), LIMIT_EXCEED, bomb.limit().id()).bomb(bomb.limit())).code(code));
    }
    if (!b.tools().isEmpty()) {
      Tool t = b.tools().get(0);
      String code = js ? JS_BOMB_TOOL_CALLS.formatted(quote(t.name()), t.maxCallsPerRun())
          : PY_BOMB_TOOL_CALLS.formatted(quote(t.name()), t.maxCallsPerRun() + 1);
      out.add(Probe.of(language, prefix + "tool-calls", LIMIT_EXCEED, Limit.TOOL_CALLS.id()).bomb(Limit.TOOL_CALLS)
          .code(code));
    }
  }

  // ---- guest code: JavaScript

  static final String JS_BOMB_STATEMENTS = """
      let n = 0; for (let i = 0; i < 1e12; i++) { n++; } 'reachable: finished'""";

  static final String JS_BOMB_CPU = """
      let n = 0; for (let i = 0; i < 1e15; i++) { n = (n * 31 + i) % 1000003; } 'reachable: finished'""";

  static final String JS_BOMB_MEMORY = """
      const keep = []; for (let i = 0; i < 1e6; i++) { keep.push(new Array(1e6).fill(i)); } 'reachable: finished'""";

  static final String JS_BOMB_OUTPUT = """
      const line = 'x'.repeat(1000); for (let i = 0; i < 1e7; i++) { console.log(line); } 'reachable: finished'""";

  static final String JS_BOMB_STACK = """
      function f(n) { return f(n + 1) + 1; } f(0); 'reachable: finished'""";

  static final String JS_BOMB_RESULT = """
      new Array(audit.bombResultNodes + 1).fill(0)""";

  /**
   * A few hundred bytes of shared references that {@code JSON.stringify} would walk as 2^40 nodes: a
   * Java builtin that polled no safepoint ran minutes past the cap before the sandbox's own stringify.
   */
  static final String JS_BOMB_JSON_EXPANSION = """
      let a = [1]; for (let i = 0; i < 40; i++) { a = [a, a]; } JSON.stringify(a); 'reachable: finished'""";

  /**
   * {@code padEnd} at the sandbox's bound on its length (4,194,304), again and again: each call is one Java
   * call that polls no safepoint, and the bound keeps it short enough for the cap to stop the run between two.
   */
  static final String JS_BOMB_PAD_AT_BOUND = """
      for (;;) { '\\u1234'.padEnd(4194304, '\\u1234'); } 'reachable: finished'""";

  /** {@code normalize} of a string at the sandbox's bound on its length (16,777,216), again and again. */
  static final String JS_BOMB_NORMALIZE_AT_BOUND = """
      const s = '\\u1E9B\\u0323'.repeat(2 ** 23); for (;;) { s.normalize('NFKD'); } 'reachable: finished'""";

  static final String JS_BOMB_WALL_TIME = """
      const end = Date.now() + 3600e3; while (Date.now() < end) {} 'reachable: finished'""";

  /** Arguments: the first allowed tool's name, quoted; its calls per run. */
  static final String JS_BOMB_TOOL_CALLS = """
      const name = %s;
      for (let i = 0; i <= %d; i++) { try { tools[name]({}); } catch (e) {} }
      'reachable: finished'""";

  // ---- guest code: Python

  static final String PY_BOMB_STATEMENTS = """
      n = 0
      for i in range(10**12):
          n += 1
      'reachable: finished'""";

  static final String PY_BOMB_CPU = """
      while True: pass""";

  static final String PY_BOMB_MEMORY = """
      keep = []
      for i in range(10**6):
          keep.append(bytearray(10**7))
      'reachable: finished'""";

  static final String PY_BOMB_OUTPUT = """
      line = 'x' * 1000
      for i in range(10**7):
          print(line)
      'reachable: finished'""";

  static final String PY_BOMB_STACK = """
      import sys
      sys.setrecursionlimit(10**9)
      def f(n):
          return f(n + 1) + 1
      f(0)
      'reachable: finished'""";

  static final String PY_BOMB_RESULT = """
      [0] * (audit['bombResultNodes'] + 1)""";

  /** {@code math.factorial} at the sandbox's bound on its argument (100,000), again and again. */
  static final String PY_BOMB_FACTORIAL_AT_BOUND = """
      import math
      while True:
          math.factorial(100000)
      'reachable: finished'""";

  /** {@code str()} of an int at the sandbox's bound on int-to-str digits (100,000), again and again. */
  static final String PY_BOMB_INT_STR_AT_BOUND = """
      import sys
      sys.set_int_max_str_digits(100000)
      x = 10**99999
      while True:
          str(x)
      'reachable: finished'""";

  static final String PY_BOMB_WALL_TIME = """
      import time
      time.sleep(10**6)
      'reachable: finished'""";

  static final String PY_BOMB_FILES = """
      import os
      base = audit['writableDir'] + '/bomb-' + audit['nonce'] + '-'
      for i in range(10**7):
          os.mkdir(base + str(i))
      'reachable: finished'""";

  /** Arguments: the first allowed tool's name, quoted; one more than its calls per run. */
  static final String PY_BOMB_TOOL_CALLS = """
      call = getattr(tools, %s)
      for i in range(%d):
          try:
              call({})
          except Exception:
              pass
      'reachable: finished'""";

  /** The bombs, in the order they run, each beside its other language's (JavaScript has no file API). */
  private static final List<Bomb> BOMBS = List.of(
      new Bomb("statements", Limit.STATEMENTS, JS_BOMB_STATEMENTS, PY_BOMB_STATEMENTS),
      new Bomb("cpu", Limit.CPU_TIME, JS_BOMB_CPU, PY_BOMB_CPU),
      new Bomb("memory", Limit.MEMORY, JS_BOMB_MEMORY, PY_BOMB_MEMORY),
      new Bomb("output", Limit.OUTPUT, JS_BOMB_OUTPUT, PY_BOMB_OUTPUT),
      new Bomb("stack", Limit.STACK, JS_BOMB_STACK, PY_BOMB_STACK),
      new Bomb("result", null, JS_BOMB_RESULT, PY_BOMB_RESULT),
      new Bomb("wall-time", Limit.WALL_TIME, JS_BOMB_WALL_TIME, PY_BOMB_WALL_TIME),
      new Bomb("files", Limit.FILES, null, PY_BOMB_FILES),
      new Bomb("json-expansion", Limit.CPU_TIME, JS_BOMB_JSON_EXPANSION, null),
      new Bomb("pad-at-bound", Limit.CPU_TIME, JS_BOMB_PAD_AT_BOUND, null),
      new Bomb("normalize-at-bound", Limit.CPU_TIME, JS_BOMB_NORMALIZE_AT_BOUND, null),
      new Bomb("factorial-at-bound", Limit.CPU_TIME, null, PY_BOMB_FACTORIAL_AT_BOUND),
      new Bomb("int-str-at-bound", Limit.CPU_TIME, null, PY_BOMB_INT_STR_AT_BOUND));
}
