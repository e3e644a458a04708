package org.polyglotsandbox;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Entry point for {@link HostileOutputForkedTest}, run in a forked JVM with a 256 MiB heap and without
 * Java assertions (Truffle's interop assertions materialise every string they check, which would
 * hide what the output boundary does): results that would need far more than the heap to copy, one
 * line each ({@code HOSTILE name outcome limit reason path | message | allocated}), then {@code HEALTHY} if ordinary programs
 * still run.
 */
public final class HostileOutputMain {
  static final Limits LIMITS = Limits.builder()
      .wallTime(Duration.ofSeconds(30))
      .maxAllocatedBytes(128L << 20)
      .build();

  /** name -> program; the name's suffix says the language. Default result caps. */
  static Map<String, String> programs() {
    Map<String, String> p = new LinkedHashMap<>();
    // 2^29 characters for a few MiB: a rope of concatenations. Copying it needs 512 MiB or more.
    String rope = "let s = 'x'.repeat(1 << 20); for (let i = 0; i < 9; i++) s = s + s; ";
    p.put("rope.js", rope + "s");
    p.put("rope-in-object.js", rope + "({ok: 1, nested: {s}})");
    p.put("rope-as-key.js", rope + "({[s]: 1})");
    // One 1 MiB string, referenced 1000 times: 1 GiB of characters if each reference were copied.
    p.put("repeated.js", "const s = 'y'.repeat(1 << 20); Array(1000).fill(s)");
    p.put("repeated.py", "s = 'y' * (1 << 20)\n[s] * 1000");
    p.put("repeated-repr.py", "class R:\n    def __repr__(self):\n        return 'r' * (1 << 20)\n[R()] * 1000");
    p.put("big-number.py", "n = 1 << (1 << 26)\n[n] * 100");
    p.put("big-number.js", "const n = 1n << (1n << 26n); Array(100).fill(n)");
    p.put("string-500mb.js", "'x'.repeat(500000000)");
    p.put("string-500mb.py", "'x' * 500000000");
    return p;
  }

  private HostileOutputMain() {}

  public static void main(String[] args) {
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON).limits(LIMITS).build();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).build()) {
      for (Map.Entry<String, String> program : programs().entrySet()) {
        Language language = Language.forFileName(program.getKey()).orElseThrow();
        ExecutionResult r = sandbox.run(language, program.getValue());
        System.out.println("HOSTILE " + program.getKey() + " " + r.outcome() + " " + r.limit().map(Limit::id).orElse("-")
            + " " + r.outputRejection().map(o -> o.reason().name()).orElse("-")
            + " " + r.outputRejection().map(o -> o.path()).orElse("-")
            + " | " + r.errorMessage().orElse("") + " | allocated " + (r.usage().allocatedBytes() >> 20) + " MiB");
        System.out.flush();
      }
      ExecutionResult js = sandbox.run(Language.JAVASCRIPT, "6*7");
      ExecutionResult py = sandbox.run(Language.PYTHON, "6*7");
      System.out.println("HEALTHY " + js.value() + " " + py.value());
    }
  }
}
