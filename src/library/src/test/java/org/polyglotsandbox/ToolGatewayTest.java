package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.GuestCode.of;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tools attacked from guest code in both languages: only allowed tools answer, arguments reach
 * handlers as validated plain data, results reach the guest as fresh guest values, and no host
 * exception, host object or host class name crosses the gateway.
 */
class ToolGatewayTest {
  private static final String ADD_PARAMETERS = """
      {"type": "object",
       "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "maximum": 1000}},
       "required": ["a", "b"], "additionalProperties": false}""";
  private static final String ANY_OBJECT = "{\"type\": \"object\"}";

  private static final List<Map<String, Object>> received = new CopyOnWriteArrayList<>();
  private static final AtomicInteger hiddenCalls = new AtomicInteger();
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(30)).build())
        .allowTools("add", "echo", "give", "kv.get", "fail", "refuse", "sleep", "leak", "liar", "cheap")
        .build();
    sandbox = PolyglotSandbox.builder().policy(policy)
        .tool(Tool.builder("add").parameters(ADD_PARAMETERS).result("{\"type\": \"integer\"}")
            .handler(args -> {
              received.add(args);
              return (Long) args.get("a") + (Long) args.get("b");
            }).build())
        .tool(Tool.builder("echo").parameters(ANY_OBJECT).maxArgumentBytes(4096).handler(args -> {
          received.add(args);
          return args;
        }).build())
        .tool(Tool.builder("give").parameters(ANY_OBJECT).handler(args -> args.get("v")).build())
        .tool(Tool.builder("kv.get").parameters("{\"type\": \"object\", \"properties\": {\"key\": {\"type\": \"string\"}}}")
            .handler(args -> "value of " + args.get("key")).build())
        .tool(Tool.builder("fail").handler(args -> {
          throw new IllegalStateException("disk full at java.io.FileOutputStream");
        }).build())
        .tool(Tool.builder("refuse").handler(args -> {
          throw new ToolException("no such customer");
        }).build())
        .tool(Tool.builder("sleep").timeout(Duration.ofMillis(300)).handler(args -> {
          Thread.sleep(Long.MAX_VALUE);
          return null;
        }).build())
        .tool(Tool.builder("leak").handler(args -> Map.of("thread", Thread.currentThread())).build())
        .tool(Tool.builder("liar").result("{\"type\": \"string\"}").handler(args -> 42).build())
        .tool(Tool.builder("cheap").maxCallsPerRun(50).handler(args -> 1).build())
        .tool(Tool.builder("hidden").handler(args -> hiddenCalls.incrementAndGet()).build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @BeforeEach
  void reset() {
    received.clear();
  }

  private static ExecutionResult run(Language language, String javascript, String python) {
    return sandbox.run(language, of(language, javascript, python));
  }

  /** Runs {@link GuestCode#toolAttempts} on the shared sandbox. */
  private static ExecutionResult attempts(Language language, String pythonPrelude, String[]... probes) {
    return sandbox.run(language, GuestCode.toolAttempts(language, pythonPrelude, probes));
  }

  @SuppressWarnings("unchecked")
  private static List<String> answers(ExecutionResult r) {
    assertThatRun(r).isOk().leaksNoHostDetail();
    return (List<String>) r.value();
  }

  private static List<SandboxEvent.ToolCall> toolCalls(ExecutionResult r) {
    return r.events().stream().filter(SandboxEvent.ToolCall.class::isInstance)
        .map(SandboxEvent.ToolCall.class::cast).toList();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void allowedTool_answersWithAFreshGuestValue(Language language) {
    ExecutionResult r = run(language,
        "const x = tools.add({a: 2, b: 3}); [x, typeof x]",
        "x = tools.add(a=2, b=3)\ny = tools.add({'a': 4, 'b': 5})\n[x, y, type(x).__name__]");
    assertThatRun(r).hasValue(language == Language.JAVASCRIPT ? List.of(5L, "number") : List.of(5L, 9L, "int"));
    assertThat(received.get(0)).isEqualTo(Map.of("a", 2L, "b", 3L));
    assertThat(toolCalls(r)).first().satisfies(c -> {
      assertThat(c.tool()).isEqualTo("add");
      assertThat(c.status()).isEqualTo(SandboxEvent.ToolCall.Status.OK);
      assertThat(c.argumentBytes()).isEqualTo("{\"a\":2,\"b\":3}".length());
      assertThat(c.layer()).isEqualTo(Layer.TOOL_GATEWAY);
    });
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void allResultKinds_reachTheGuestAsItsOwnValues(Language language) {
    // Python gets numbers, booleans and None as themselves and text tagged, not JSON: text that looks like
    // the tags or like JSON must still arrive as the same text.
    ExecutionResult r = run(language, """
        const vs = [7, -2.5, true, null, 'text', '', 'S', 'R[1]', 'E{"code": "x"}', [1, 'a', null], {k: {n: 1}},
          2 ** 60];
        vs.map((v) => { const x = tools.give({v}); return [x === null ? 'null' : Array.isArray(x) ? 'array' : typeof x,
          JSON.stringify(x)]; })""", """
        vs = [7, -2.5, True, None, 'text', '', 'S', 'R[1]', 'E{"code": "x"}', [1, 'a', None], {'k': {'n': 1}},
              10 ** 30]
        out = []
        for v in vs:
            x = tools.give(v=v)
            out.append([type(x).__name__, x == v and type(x) is type(v), x is None])
        out""");
    if (language == Language.JAVASCRIPT) {
      assertThatRun(r).hasValue(List.of(List.of("number", "7"), List.of("number", "-2.5"), List.of("boolean", "true"),
          List.of("null", "null"), List.of("string", "\"text\""), List.of("string", "\"\""),
          List.of("string", "\"S\""), List.of("string", "\"R[1]\""), List.of("string", "\"E{\\\"code\\\": \\\"x\\\"}\""),
          List.of("array", "[1,\"a\",null]"), List.of("object", "{\"k\":{\"n\":1}}"),
          List.of("number", "1152921504606847000")));
    } else {
      assertThatRun(r).hasValue(List.of(List.of("int", true, false), List.of("float", true, false),
          List.of("bool", true, false), List.of("NoneType", true, true), List.of("str", true, false),
          List.of("str", true, false), List.of("str", true, false), List.of("str", true, false),
          List.of("str", true, false), List.of("list", true, false), List.of("dict", true, false),
          List.of("int", true, false)));
    }
  }

  @Test
  void pythonStructuredAnswers_smallAndLarge_arriveAsEqualValuesOfTheSameTypesAndOrder() {
    // Small answers cross as a flat tape the wrapper builds, larger ones (over 256 tokens) as JSON text for
    // _json's scanner: both must give the guest what the handler returned, with the same types (repr tells
    // 1 from 1.0 and True, and -0.0 from 0.0) and the same key order, and a fresh value on every call.
    ExecutionResult r = sandbox.run(Language.PYTHON, """
        cases = [
            {'a': [1, 2.5, 'x', None, True, False, {'b': [], 'c': {}}], 'big': 10 ** 30, 'top': 2 ** 63,
             'low': -(2 ** 63), 'u': 'é\\u2028\\\\"\\n\\x00', 'z': -0.0, 'f': 1e300, 'k': {'': ''}},
            [[[]]], {}, [], [None], {'x': None}, [10 ** 20, -10 ** 20, 0.1],
            list(range(300)),
            {'k' + str(i): {'v': i, 's': str(i), 'f': i / 4} for i in range(100)},
        ]
        out = []
        for v in cases:
            x = tools.give(v=v)
            same = x == v and repr(x) == repr(v) and type(x) is type(v)
            if same and isinstance(v, dict):
                same = list(x) == list(v)
            x2 = tools.give(v=v)
            out.append([same, x2 == v and x2 is not x])
        out""");
    assertThatRun(r).isOk();
    assertThat(r.value()).isEqualTo(java.util.Collections.nCopies(9, List.of(true, true)));
  }

  @Test
  void pythonTapeDugOutOfTheWrapper_isGuestDataWithNoHostDetail() {
    // The wrapper's closure is introspectable: a guest can call raw itself and hold the tape of a structured
    // answer (or raw). Whatever it does with either, what it sees names nothing of the host. Found here: a write
    // the tape refused showed GraalPy's message with Truffle's proxy class in it, and str(raw) showed the
    // gateway's lambda class (before the tape existed).
    ExecutionResult r = sandbox.run(Language.PYTHON, """
        tape = raw = None
        for cell in type(tools).__call__.__closure__:
            try:
                x = cell.cell_contents('give', {'v': [1, 2]})
            except Exception:
                continue
            if 'oreign' in type(x).__name__ and x is not None:
                tape, raw = x, cell.cell_contents
        seen = [tape[0], tape[1], tape[2], len(tape)]
        def attempt(f):
            try:
                return 'ok: ' + str(f())
            except Exception as e:
                return type(e).__name__ + ': ' + str(e)
        def write():
            tape[0] = 'x'
        def delete():
            del tape[0]
        def write_far():
            tape[99] = 1
        def delete_far():
            del tape[99]
        for f in (write, delete, write_far, delete_far, lambda: tape[99], lambda: tape.append(1), lambda: repr(tape), lambda: str(tape),
                  lambda: tape.foo, lambda: dir(tape), lambda: list(tape), lambda: tape + [3], lambda: repr(raw),
                  lambda: str(raw), lambda: raw[0], lambda: raw.foo, lambda: setattr(raw, 'x', 1), lambda: len(raw),
                  lambda: raw(), lambda: raw(1, 2, 3), lambda: dir(raw), lambda: hash(raw), lambda: raw == raw):
            seen.append(attempt(f))
        seen""");
    assertThatRun(r).isOk().leaksNoHostDetail();
    @SuppressWarnings("unchecked")
    List<Object> value = (List<Object>) r.value();
    assertThat(value.subList(0, 4)).containsExactly("[ii]", 1L, 2L, 3L);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void dottedNames_areReachableNestedAndByFullName(Language language) {
    ExecutionResult r = run(language,
        "[tools.kv.get({key: 'a'}), tools['kv.get']({key: 'b'})]",
        "[tools.kv.get(key='a'), getattr(tools, 'kv.get')({'key': 'b'})]");
    assertThatRun(r).hasValue(List.of("value of a", "value of b"));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void toolOutsideAllowlist_isInvisibleAndDenied(Language language) {
    ExecutionResult r = attempts(language, "",
        new String[] {"tools.hidden({})", "tools.hidden()"},
        new String[] {"tools.no.such.tool()", "tools.no.such.tool()"});
    assertThat(answers(r)).containsExactly(
        "ToolError|denied|tool 'hidden' is not available in this sandbox",
        "ToolError|denied|tool 'no.such.tool' is not available in this sandbox");
    assertThatRun(r).recordedDenial(Operation.TOOL_CALL, "hidden").recordedDenial(Operation.TOOL_CALL, "no.such.tool");
    assertThat(r.deniedOperations()).filteredOn(d -> d.operation() == Operation.TOOL_CALL)
        .allSatisfy(d -> assertThat(d.layer()).isEqualTo(Layer.TOOL_GATEWAY));
    assertThat(hiddenCalls).hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void withoutAllowedTools_thereIsNoToolsObject(Language language) {
    try (PolyglotSandbox plain = PolyglotSandbox.builder().policy(Policy.computeOnly(language))
        .tool(Tool.builder("secret").handler(args -> "s3cret").build()).build()) {
      ExecutionResult r = plain.run(language, of(language, "typeof tools", "'tools' in globals()"));
      assertThatRun(r).hasValue(language == Language.JAVASCRIPT ? "undefined" : false);
      assertThat(plain.tools()).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void hugeToolName_isDeniedWithoutBeingCopiedOrShown(Language language) {
    ExecutionResult r = attempts(language, "",
        new String[] {"tools['x'.repeat(5000000)]()", "getattr(tools, 'x' * 5000000)()"},
        new String[] {"tools['h'.repeat(65)]()", "getattr(tools, 'h' * 65)()"});
    assertThat(answers(r)).containsExactly(
        "ToolError|denied|a tool name of 5000000 characters is not available in this sandbox",
        "ToolError|denied|a tool name of 65 characters is not available in this sandbox");
    assertThatRun(r).recordedDenial(Operation.TOOL_CALL, "(a name of 5000000 characters)");
    assertThat(r.deniedOperations()).allSatisfy(d -> assertThat(d.target()).hasSizeLessThan(100));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void invalidArguments_failNamingThePath_andTheHandlerDoesNotRun(Language language) {
    ExecutionResult r = attempts(language, "",
        new String[] {"tools.add({a: 'two', b: 3})", "tools.add(a='two', b=3)"},
        new String[] {"tools.add({a: 1, b: 2000, c: 1})", "tools.add(a=1, b=2000, c=1)"},
        new String[] {"tools.add(5)", "tools.add(5)"},
        new String[] {"tools.add({a: 1}, {b: 2})", "tools.add({'a': 1}, b=2)"});
    List<String> answers = answers(r);
    assertThat(answers.get(0)).startsWith("ToolError|invalid_arguments|tool 'add': invalid arguments: $.a: ");
    assertThat(answers.get(1)).startsWith("ToolError|invalid_arguments|").contains("$.b").contains("c");
    assertThat(answers.get(2)).startsWith("TypeError|");
    assertThat(answers.get(3)).startsWith(of(language, "ToolError|invalid_arguments|", "TypeError|"));
    assertThat(received).isEmpty();
    assertThat(toolCalls(r)).extracting(SandboxEvent.ToolCall::status)
        .containsOnly(SandboxEvent.ToolCall.Status.INVALID_ARGUMENTS);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aFailedCall_isCaughtByTheGlobalToolError_asTheDescriptionsSay(Language language) {
    ExecutionResult r = run(language, """
        const caught = [];
        try { tools.refuse(); } catch (e) {
          if (e instanceof ToolError) { caught.push(e.name, e.code, e.message, e instanceof Error); }
        }
        caught
        """, """
        import types
        caught = []
        try:
            tools.refuse()
        except ToolError as e:
            caught += [type(e).__name__, e.code, str(e), isinstance(e, RuntimeError)]
        module = types.ModuleType('elsewhere')
        exec('def call(t):\\n    try:\\n        t.refuse()\\n    except ToolError as e:\\n        return e.code\\n', vars(module))
        caught.append(module.call(tools))
        caught
        """);
    assertThatRun(r).isOk().leaksNoHostDetail();
    List<Object> expected = new java.util.ArrayList<>(List.of("ToolError", "failed", "no such customer", true));
    if (language == Language.PYTHON) {
      expected.add("failed");
    }
    assertThat(r.value()).isEqualTo(expected);
  }

  @Test
  void javascriptTools_keepWorking_whenTheGuestReplacedTheIntrinsicsTheWrapperOnceCalled() {
    ExecutionResult r = run(Language.JAVASCRIPT, """
        Object.defineProperty(Object.prototype, 'code', {set(v) {}, get() { return 'forged'; }, configurable: true});
        String.prototype.slice = () => '{"forged": true}';
        Map.prototype.get = () => 'forged';
        Set.prototype.has = () => false;
        Reflect.get = () => 'forged';
        Array.isArray = () => true;
        Object.defineProperty = () => { throw new Error('replaced'); };
        let code;
        try { tools.refuse(); } catch (e) { code = Reflect.getOwnPropertyDescriptor(e, 'code').value; }
        [tools.add({a: 2, b: 3}), code, typeof tools.then]
        """, "");
    assertThatRun(r).isOk().leaksNoHostDetail();
    assertThat(r.value()).isEqualTo(List.of(5L, "failed", "undefined"));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void handlerExceptions_reachTheGuestAsTheirMessageOnly(Language language) {
    ExecutionResult r = attempts(language, "",
        new String[] {"tools.fail()", "tools.fail()"},
        new String[] {"tools.refuse()", "tools.refuse()"});
    assertThat(answers(r)).containsExactly(
        "ToolError|failed|tool 'fail' failed: disk full at <host>",
        "ToolError|failed|no such customer");
    ExecutionResult uncaught = run(language,
        "try { tools.refuse(); } catch (e) { if (e instanceof Error && e.name === 'ToolError') { tools.fail(); } }",
        "try:\n    tools.refuse()\nexcept RuntimeError as e:\n    if type(e).__name__ == 'ToolError':\n"
            + "        tools.fail()");
    assertThatRun(uncaught).hasOutcome(Outcome.GUEST_ERROR).leaksNoHostDetail();
    assertThat(uncaught.errorMessage()).hasValueSatisfying(m -> assertThat(m).contains("ToolError").contains("disk full"));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void toolThatSleepsForever_timesOutAndTheRunGoesOn(Language language) {
    long start = System.nanoTime();
    ExecutionResult r = attempts(language, "", new String[] {"tools.sleep()", "tools.sleep()"},
        new String[] {"tools.add({a: 1, b: 1})", "tools.add(a=1, b=1)"});
    assertThat(answers(r)).containsExactly("ToolError|timeout|tool 'sleep' did not answer within 300 ms", "2");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
    assertThat(toolCalls(r)).extracting(SandboxEvent.ToolCall::status)
        .containsExactly(SandboxEvent.ToolCall.Status.TIMED_OUT, SandboxEvent.ToolCall.Status.OK);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void loopCallingACheapToolForever_endsWithToolCallsLimit(Language language) {
    ExecutionResult r = run(language,
        "for (;;) { try { tools.cheap(); } catch (e) { } }",
        "while True:\n    try:\n        tools.cheap()\n    except Exception:\n        pass");
    assertThatRun(r).wasStoppedBy(Limit.TOOL_CALLS);
    assertThat(r.errorMessage()).hasValue("limit exceeded: tool 'cheap' called more than 50 times");
    assertThat(toolCalls(r)).hasSizeGreaterThanOrEqualTo(51);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void hostObjectsAndInvalidResults_neverReachTheGuest(Language language) {
    ExecutionResult r = attempts(language, "",
        new String[] {"tools.leak()", "tools.leak()"},
        new String[] {"tools.liar()", "tools.liar()"});
    assertThat(answers(r)).containsExactly(
        "ToolError|invalid_result|tool 'leak' returned a result that is not plain data",
        "ToolError|invalid_result|tool 'liar' returned an invalid result: $: Value is [integer] but should be [string]");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void classWalks_onToolsAndResults_findOnlyGuestObjects(Language language) {
    ExecutionResult r = run(language, """
        const r = tools.echo({a: [1]});
        const probes = [typeof tools.constructor, typeof tools.echo.constructor, typeof tools.__proto__,
          Object.getPrototypeOf(r) === Object.prototype, Array.isArray(r.a), typeof r.getClass,
          Object.getPrototypeOf(tools.echo) === Function.prototype];
        let walk;
        try { walk = tools.getClass().getName(); } catch (e) { walk = e.name + ': ' + e.message; }
        probes.concat([walk])""", """
        r = tools.echo(a=[1])
        walk = []
        try:
            tools.getClass()
        except Exception as e:
            walk.append(type(e).__name__ + ': ' + str(e))
        t = type(tools)
        [type(r).__name__, type(r['a']).__name__, t.__name__, repr(tools), repr(tools.kv.get),
         hasattr(r, 'getClass'), hasattr(tools, '__class__') and tools.__class__ is t, walk[0]]""");
    assertThatRun(r).isOk().leaksNoHostDetail();
    String denial = "ToolError: tool 'getClass' is not available in this sandbox";
    assertThat(r.value()).isEqualTo(language == Language.JAVASCRIPT
        ? List.of("undefined", "undefined", "undefined", true, true, "undefined", true, denial)
        : List.of("dict", "list", "Tools", "<tools>", "<tool 'kv.get'>", false, true, denial));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void functionsHostValuesCyclesAndHugeValues_areRefusedAsArguments(Language language) {
    ExecutionResult r = attempts(language, """
        def cyclic():
            o = {}
            o['self'] = o
            return o
        def deep(n):
            o = {}
            for _ in range(n):
                o = {'o': o}
            return o""",
        new String[] {"tools.echo({f: () => 1})", "tools.echo(f=lambda: 1)"},
        new String[] {"tools.echo({f: Math.max})", "tools.echo(f=len)"},
        new String[] {"tools.echo({t: tools.echo})", "tools.echo(t=tools.echo)"},
        new String[] {"(() => { const o = {}; o.self = o; return tools.echo({o}); })()", "tools.echo(o=cyclic())"},
        new String[] {"tools.echo({d: new Date(0)})", "tools.echo(d=object())"},
        new String[] {"tools.echo({n: NaN})", "tools.echo(n=float('nan'))"},
        new String[] {"tools.echo({s: 'x'.repeat(5000)})", "tools.echo(s='x' * 5000)"},
        new String[] {"tools.echo({a: Array.from({length: 20000}, () => 0)})", "tools.echo(a=[0] * 20000)"},
        new String[] {"(() => { let o = {}; for (let i = 0; i < 100; i++) o = {o}; return tools.echo(o); })()",
            "tools.echo(deep(100))"},
        new String[] {"tools.echo({a: { [Symbol.iterator]: function* () { for (;;) yield 1; } } })",
            "tools.echo(a=__import__('itertools').count())"});
    List<String> answers = answers(r);
    String[] expected = {"functions", "functions", "functions", "a cycle", "", "NaN", "longer than 4096",
        "more than 10000 values", "deeper than 32 levels", ""};
    for (int i = 0; i < expected.length; i++) {
      assertThat(answers.get(i)).as("probe %s", i)
          .startsWith("ToolError|invalid_arguments|tool 'echo': ").contains(expected[i]);
    }
    assertThat(received).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void toolsObjectAsArgument_isPlainDataOrRefused(Language language) {
    ExecutionResult r = attempts(language, "", new String[] {"tools.echo({t: tools})", "tools.echo(t=tools)"});
    // JavaScript sees an object with no own keys; Python a callable. Neither carries anything of the host.
    assertThat(answers(r)).containsExactly(of(language, "{\"t\":{}}",
        "ToolError|invalid_arguments|tool 'echo': arguments may not hold functions"));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void changingGetterOrIterator_isReadOnceBeforeValidation(Language language) {
    ExecutionResult r = run(language, """
        let n = 0;
        const args = { get a() { n++; return n === 1 ? 1 : 'evil'; }, b: 2 };
        let reads = 0;
        const sneaky = new Proxy({}, {
          ownKeys: () => ['mode'],
          getOwnPropertyDescriptor: () => ({ value: 'x', enumerable: true, configurable: true }),
          get: (t, k) => (k === 'mode' ? (reads++ === 0 ? 'read' : 'write') : undefined),
        });
        [tools.add(args), n, tools.echo({p: sneaky}).p.mode, reads]""", """
        class Flip:
            def __init__(self):
                self.n = 0
            def __iter__(self):
                self.n += 1
                return iter(['read'] if self.n == 1 else ['write'])
        f = Flip()
        [tools.echo(p=f)['p'], f.n]""");
    assertThatRun(r).hasValue(language == Language.JAVASCRIPT ? List.of(3L, 1L, "read", 1L) : List.of(List.of("read"), 1L));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void protoAndConstructorKeys_arePlainData(Language language) {
    ExecutionResult r = run(language, """
        const r = tools.echo(JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}'));
        [({}).polluted === undefined, Object.getPrototypeOf(r) === Object.prototype,
         Object.keys(r).join(','), r.constructor.prototype.x]""", """
        r = tools.echo({'__proto__': {'polluted': True}, '__class__': 'str', 'constructor': 1})
        [type(r).__name__, sorted(r.keys()), hasattr({}, 'polluted')]""");
    assertThatRun(r).hasValue(language == Language.JAVASCRIPT
        ? List.of(true, true, "__proto__,constructor", 1L)
        : List.of("dict", List.of("__class__", "__proto__", "constructor"), false));
    assertThat(received.get(0)).containsKey("__proto__").containsKey("constructor");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void rawGatewayDugOutOfTheWrapper_checksEverythingItself(Language language) {
    // JavaScript keeps the raw function in a closure nothing can reach; Python closures are introspectable.
    if (language == Language.JAVASCRIPT) {
      return;
    }
    ExecutionResult r = sandbox.run(language, """
        cells = [c.cell_contents for c in type(tools).__call__.__closure__]
        raw = [c for c in cells if 'foreign' in type(c).__name__.lower()][0]
        out = [raw('hidden', {})[:1], raw(1, 2)[:1], raw('add', 5)[:1], raw('add', {'a': 1, 'b': 2}, 3)[:1],
               raw('add', {'a': 1, 'b': 2}), hasattr(raw, 'getClass')]
        out""");
    // A plain number comes back as itself (see allResultKinds_reachTheGuestAsItsOwnValues), not as text.
    assertThatRun(r).hasValue(List.of("E", "E", "E", "E", 3L, false)).leaksNoHostDetail()
        .recordedDenial(Operation.TOOL_CALL, "hidden");
    assertThat(hiddenCalls).hasValue(0);
  }
}
