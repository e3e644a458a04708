package org.polyglotsandbox;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Entry point for {@link BombBatteryTest}, run in a forked JVM with a small heap: every resource bomb in
 * both languages, one line each ({@code BOMB name outcome limit wallMillis cpuMillis allocatedBytes
 * messageLength message @uptimeMillis}), then {@code HEALTHY} if ordinary programs still run.
 */
public final class BombBatteryMain {
  static final Limits LIMITS = Limits.builder()
      .maxStatements(Long.MAX_VALUE)
      .wallTime(Duration.ofSeconds(10))
      .maxCpuTime(Duration.ofSeconds(2))
      .maxAllocatedBytes(128L << 20)
      .maxOutputBytes(64 << 10)
      .maxFileBytes(1L << 20)
      .build();

  /** name -> program; the name's suffix says the language. */
  static Map<String, String> bombs() {
    Map<String, String> b = new LinkedHashMap<>();
    b.put("loop.js", "while (true) {}");
    b.put("loop.py", "while True:\n    pass");
    b.put("catch-loop.js", "for (;;) { try { while (true) {} } catch (e) { } finally { while (true) {} } }");
    b.put("catch-loop.py", "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n"
        + "        pass\n    finally:\n        while True:\n            pass");
    b.put("alloc.js", "let keep = []; for (;;) keep.push(new Array(1e5).fill(0.5));");
    b.put("alloc.py", "keep = []\nwhile True:\n    keep.append(bytearray(10**6))");
    b.put("double-string.js", "let s = 'x'; for (;;) s = s.repeat(2);");
    b.put("double-string.py", "s = 'x'\nwhile True:\n    s += s");
    b.put("double-array.js", "let a = [0]; for (;;) a = a.concat(a);");
    b.put("double-array.py", "a = [0]\nwhile True:\n    a = a + a");
    b.put("huge-alloc.js", "new Array(2 ** 31 - 1).fill(0).length");
    b.put("huge-alloc.py", "len(bytearray(2**31 - 64))");
    b.put("regex.js", "/(a+)+$/.test('a'.repeat(40) + '!')");
    b.put("regex.py", "import re\nre.match(r'(a+)+$', 'a' * 40 + '!') is None");
    b.put("output-flood.js", "for (;;) console.log('flood '.repeat(100));");
    b.put("output-flood.py", "while True:\n    print('flood ' * 100)");
    b.put("huge-message.js", "throw new Error('x'.repeat(1e8));");
    b.put("huge-message.py", "raise Exception('x' * 10**8)");
    b.put("recursion.js", "function f(n) { return f(n + 1) + 1; } f(0)");
    b.put("recursion.py", "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1) + 1\nf(0)");
    // Overflowing the stack again and again: each overflow unwinds the whole stack, which no cancellation
    // can cut short, so this is the bomb that goes furthest past the CPU cap.
    b.put("catch-recursion.js", "function f(n) { return f(n + 1) + 1; } for (;;) { try { f(0); } catch (e) { } }");
    b.put("catch-recursion.py", "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1) + 1\n"
        + "while True:\n    try:\n        f(0)\n    except RecursionError:\n        pass");
    b.put("microtasks.js", "Promise.resolve().then(function f() { Promise.resolve().then(f); }); 'returned'");
    b.put("atomics-wait.js", "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)");
    b.put("bigint-pow.js", "(10n ** (10n ** 9n)).toString().length");
    b.put("pow.py", "len(str(pow(10, 10**9)))");
    b.put("sleep.py", "import time\ntime.sleep(3600)");
    b.put("fill-files.py", "with open('/scratch/f', 'wb') as f:\n    while True:\n        f.write(b'x' * 65536)");
    return b;
  }

  private BombBatteryMain() {}

  public static void main(String[] args) {
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
        .mount(Mount.scratch("/scratch")).limits(LIMITS).build();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).build()) {
      for (Map.Entry<String, String> bomb : bombs().entrySet()) {
        Language language = Language.forFileName(bomb.getKey()).orElseThrow();
        ExecutionResult r = sandbox.run(language, bomb.getValue());
        System.out.println("BOMB " + bomb.getKey() + " " + r.outcome() + " " + r.limit().map(Limit::id).orElse("-")
            + " " + r.usage().wallTime().toMillis() + " " + r.usage().cpuTime().toMillis() + " "
            + r.usage().allocatedBytes() + " "
            + r.errorMessage().map(String::length).orElse(0) + " "
            + r.errorMessage().map(m -> m.substring(0, Math.min(80, m.length())).replaceAll("\\s", "_")).orElse("-")
            + " @" + ManagementFactory.getRuntimeMXBean().getUptime()); // to read beside a GC log
        System.out.flush();
      }
      ExecutionResult js = sandbox.run(Language.JAVASCRIPT, "6*7");
      ExecutionResult py = sandbox.run(Language.PYTHON, "6*7");
      System.gc();
      Runtime rt = Runtime.getRuntime();
      System.out.println("HEALTHY " + js.value() + " " + py.value() + " heapUsedMiB="
          + ((rt.totalMemory() - rt.freeMemory()) >> 20) + " heapMaxMiB=" + (rt.maxMemory() >> 20));
    }
  }
}
