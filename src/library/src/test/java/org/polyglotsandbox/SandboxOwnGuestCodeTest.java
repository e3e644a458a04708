package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sandbox's own guest-side code (the file API, the timers, the async settling) hands the guest only
 * fresh guest values and keeps working whatever the guest did to the language's prototypes and
 * intrinsics first. Each program below prepares its attack, then uses the sandbox's functions.
 */
class SandboxOwnGuestCodeTest {
  @TempDir static Path host;
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() throws IOException {
    Files.createDirectories(host.resolve("data"));
    Files.writeString(host.resolve("data/note.txt"), "hello");
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
            .mount(Mount.readOnly(host.resolve("data"), "/data"))
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60)).build())
            .build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  /** Getters on Object.prototype for every name the file API's answers ever had: none is called. */
  private static final String CAPTURE_EVERY_MEMBER = """
      const seen = [];
      for (const name of ['text', 'error', 'code', 'message', 'value', 'then', 'length', '0', '1']) {
        Object.defineProperty(Object.prototype, name, { __proto__: null, configurable: true,
          get() { seen.push(name + ':' + Object.prototype.toString.call(this)); return undefined; },
          set(v) { seen.push('set ' + name); } });
      }
      """;

  @Test
  void readText_handsTheGuestOnlyGuestValues_whenObjectPrototypeHasGetters() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, CAPTURE_EVERY_MEMBER + """
        const text = readText('/data/note.txt');
        let denied, missing;
        try { readText('/etc/passwd'); } catch (e) { denied = e; }
        try { readText('/data/none.txt'); } catch (e) { missing = e; }
        const out = [text, String(denied), Object.getOwnPropertyDescriptor(denied, 'code').value,
          denied instanceof Error, String(missing), Object.getOwnPropertyDescriptor(missing, 'code').value];
        for (const name of ['text', 'error', 'code', 'message', 'value', 'then', 'length', '0', '1']) {
          delete Object.prototype[name];
        }
        [out, seen]
        """);
    assertThatRun(r).isOk().leaksNoHostDetail();
    assertThat(r.value()).isEqualTo(List.of(
        List.of("hello", "Error: EACCES: permission denied, open '/etc/passwd'", "EACCES", true,
            "Error: ENOENT: no such file or directory, open '/data/none.txt'", "ENOENT"),
        List.of()));
  }

  @Test
  void readText_keepsItsErrors_whenTheGuestReplacedErrorAndDefineProperty() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, """
        globalThis.Error = function () { return {fake: true}; };
        Object.defineProperty = () => { throw new TypeError('replaced'); };
        String.prototype.endsWith = () => { throw new TypeError('replaced'); };
        let caught;
        try { readText('/etc/shadow'); } catch (e) { caught = e; }
        [readText('/data/note.txt'), Object.prototype.toString.call(caught), caught.message, caught.code]
        """);
    assertThatRun(r).isOk().leaksNoHostDetail();
    assertThat(r.value()).isEqualTo(List.of("hello", "[object Error]",
        "EACCES: permission denied, open '/etc/shadow'", "EACCES"));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "Math.max = () => 'soon'; Math.ceil = () => 'soon';",
      "Map.prototype.values = function () { return ['not', 'a', 'timer'][Symbol.iterator](); };"
          + " Map.prototype.get = () => ({at: 'now'}); Map.prototype.set = () => { throw new Error('no'); };",
      "const it = Object.getPrototypeOf([].values()); it.next = () => ({done: false, value: 'x'});"
          + " Object.getPrototypeOf(new Map().values()).next = () => ({done: false, value: {at: 'x'}});",
      "globalThis.Number = () => 'one'; Reflect.apply = () => 'applied'; Date.now = () => 'now';",
      "for (const k of ['at', 'order', 'every', 'id', 'fn', 'args', 'settled', 'rejected']) {"
          + " Object.defineProperty(Object.prototype, k, {get() { return 'x'; }, set(v) {}, configurable: true}); }"})
  void timers_keepWorking_whenTheGuestReplacedTheIntrinsicsTheyOnceCalled(String attack) {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, """
        const order = [];
        setTimeout(() => order.push('soon'), 1.5);
        setTimeout(() => order.push('late'), 30);
        const id = setTimeout(() => order.push('cleared'), 5);
        ATTACK
        clearTimeout(id);
        new Promise((resolve) => setTimeout(() => resolve(order.concat(['done'])), 60))
        """.replace("ATTACK", attack));
    assertThatRun(r).isOk().leaksNoHostDetail();
    assertThat(r.value()).isEqualTo(List.of("soon", "late", "done"));
  }

  @Test
  void timers_takeFractionalDelays() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, """
        new Promise((resolve) => setTimeout(() => resolve('fired'), 2.5))
        """);
    assertThatRun(r).isOk();
    assertThat(r.value()).isEqualTo("fired");
  }

  @Test
  void python_resultAndOutput_areCopied_whenTheGuestReplacedTheBuiltins() {
    ExecutionResult r = sandbox.run(Language.PYTHON, """
        import builtins
        result = {'rows': [1, 2.5, 'three', None, True], 'note': 'kept'}
        print('printed')
        for name in ('type', 'isinstance', 'len', 'getattr', 'hasattr', 'iter', 'next', 'repr', 'str',
                     'callable', 'id', 'list', 'dict', 'float', 'int', 'bool'):
            setattr(builtins, name, lambda *a, **k: 'replaced')
        result
        """);
    assertThatRun(r).isOk().leaksNoHostDetail();
    assertThat(r.value()).isEqualTo(java.util.Map.of("rows", java.util.Arrays.asList(1L, 2.5, "three", null, true),
        "note", "kept"));
    assertThat(r.stdout()).isEqualTo("printed\n");
  }
}
