package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Values that answer differently each time the host reads them. As a result they
 * end the run {@code OUTPUT_REJECTED} (or OK, if what was read is consistent), never
 * {@code INTERNAL_ERROR}; as tool arguments the guest sees a {@code ToolError} or its own error, never a
 * host exception, and the handler never runs on a half-read value.
 */
class LyingGuestValuesTest {
  private static final List<Object> received = new CopyOnWriteArrayList<>();
  private static PolyglotSandbox sandbox;

  /** A name, the language, and a guest expression that makes the lying value. */
  record Liar(String name, Language language, String make) {
    @Override
    public String toString() {
      return language.id() + ": " + name;
    }
  }

  static List<Liar> liars() {
    return List.of(
        new Liar("array whose index getter empties it", Language.JAVASCRIPT,
            "(() => { const a = [1, 2, 3]; Object.defineProperty(a, 0, {get() { a.length = 0; return 1; },"
                + " enumerable: true, configurable: true}); return a; })()"),
        new Liar("array whose index getter grows it without end", Language.JAVASCRIPT,
            "(() => { const a = [1, 2, 3]; Object.defineProperty(a, 0, {get() { a.push(a.length); return 1; },"
                + " enumerable: true, configurable: true}); return a; })()"),
        new Liar("proxy listing a key it cannot produce", Language.JAVASCRIPT,
            "new Proxy({}, {ownKeys: () => ['a', 'b'], getOwnPropertyDescriptor: (t, k) => ({value: 1,"
                + " enumerable: true, configurable: true}), has: () => false, get: () => undefined})"),
        new Liar("proxy whose traps throw", Language.JAVASCRIPT,
            "new Proxy({}, {ownKeys: () => { throw new Error('no keys for you'); }})"),
        new Liar("proxy answering differently every time", Language.JAVASCRIPT,
            "(() => { let n = 0; return new Proxy({}, {ownKeys: () => (n++ % 2 ? ['x'] : ['y', 'z']),"
                + " getOwnPropertyDescriptor: () => ({value: n, enumerable: true, configurable: true}),"
                + " get: (t, k) => (n++ % 3 ? undefined : k)}); })()"),
        new Liar("__len__ says 3, __getitem__ raises", Language.PYTHON,
            "type('L', (), {'__len__': lambda s: 3, '__getitem__': lambda s, i: 1 // 0})()"),
        new Liar("__iter__ that never ends", Language.PYTHON,
            "type('I', (), {'__iter__': lambda s: iter(int, 1)})()"),
        new Liar("keys() and __getitem__ disagree", Language.PYTHON,
            "type('D', (dict,), {'keys': lambda s: ['a', 'b'], '__getitem__': lambda s, k: 1 // 0,"
                + " '__iter__': lambda s: iter(['q'])})({'c': 1})"),
        new Liar("__len__ lies low", Language.PYTHON,
            "type('L', (list,), {'__len__': lambda s: 1})([1, 2, 3])"),
        new Liar("__len__ lies high", Language.PYTHON,
            "type('L', (list,), {'__len__': lambda s: 10**6})([1, 2, 3])"));
  }

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder().allowTools("take").build())
        .tool(Tool.builder("take").inline().parameters("{\"type\": \"object\"}").handler(args -> {
          received.add(args);
          return "taken";
        }).build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @ParameterizedTest
  @MethodSource("liars")
  void asAResult_aLyingValueIsRejectedOrReadConsistently_neverAnInternalError(Liar liar) {
    ExecutionResult r = sandbox.run(liar.language(), liar.make());

    assertThat(r.outcome()).as("%s", r).isIn(Outcome.OK, Outcome.OUTPUT_REJECTED, Outcome.LIMIT_EXCEEDED);
    assertThat(r.errorMessage().orElse("")).doesNotContainIgnoringCase("java.").doesNotContain("org.graalvm")
        .doesNotContain("polyglotsandbox").doesNotContain("Exception");
  }

  @ParameterizedTest
  @MethodSource("liars")
  void asAToolArgument_theGuestSeesAGuestError_neverAHostException(Liar liar) {
    String call = liar.language() == Language.JAVASCRIPT
        ? "try { tools.take({v: " + liar.make() + "}); 'called' } catch (e) {"
            + " (e.constructor ? e.constructor.name : typeof e) + '|' + e.message }"
        : "try:\n    tools.take(v=" + liar.make() + ")\n    r = 'called'\nexcept BaseException as e:\n"
            + "    r = type(e).__name__ + '|' + str(e)\nr";
    int before = received.size();
    ExecutionResult r = sandbox.run(liar.language(), call);

    assertThat(r.outcome()).as("%s", r).isIn(Outcome.OK, Outcome.LIMIT_EXCEEDED);
    String seen = String.valueOf(r.value());
    // No host exception's text: class names, polyglot API methods, or the engine's "(language: ...)" notes.
    assertThat(seen).as("what the guest caught").doesNotContain("java.").doesNotContain("org.graalvm")
        .doesNotContain("polyglotsandbox").doesNotContain("Value.").doesNotContain("HostException")
        .doesNotContain("ForeignException").doesNotContain("(language:");
    if (!"called".equals(seen) && r.outcome() == Outcome.OK) {
      // Refused by the gateway (naming where the value changed), or the guest's own error from its own trap.
      assertThat(seen).matches("ToolError\\|tool 'take': arguments changed while they were read \\(at \\$\\.v.*\\)"
          + "|ToolError\\|tool 'take': arguments hold more than 10000 values"
          + "|Error\\|no keys for you|ZeroDivisionError\\|.*");
      assertThat(received).as("the handler never ran on a half-read value").hasSize(before);
    }
  }
}
