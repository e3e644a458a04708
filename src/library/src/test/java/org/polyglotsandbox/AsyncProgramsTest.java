package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.GuestCode.of;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.polyglotsandbox.SandboxEvent.OutputRejected.Reason;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Async programs: a JavaScript program whose value is a Promise gives its settled value (top-level
 * {@code await} runs the program as an async function's body); Python's asyncio runs on the loop the
 * sandbox provides, with no socket or thread. Never-settling and flooding programs end on a limit or
 * at once with a clear error, never as a hang or a host problem.
 */
class AsyncProgramsTest {
  /**
   * Long enough for GraalPy to import asyncio on a loaded machine (a cold import takes seconds of wall
   * time), so that the wall-time tests are stopped while the guest waits, not while it imports.
   */
  private static final Duration DEADLINE = Duration.ofSeconds(25);
  private static final Duration MARGIN = Duration.ofSeconds(10);
  private static volatile CountDownLatch entered = new CountDownLatch(1);
  private static PolyglotSandbox sandbox;
  private static PolyglotSandbox deadlined;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder().policy(policy(Duration.ofSeconds(60), 50_000_000)).tools(tools()).build();
    deadlined = PolyglotSandbox.builder().policy(policy(DEADLINE, 50_000_000)).tools(tools()).build();
  }

  private static Policy policy(Duration wallTime, long statements) {
    return Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(wallTime).maxStatements(statements).build())
        .allowTools("kv.get", "entered")
        .build();
  }

  private static List<Tool> tools() {
    return List.of(
        Tool.builder("kv.get").maxCallsPerRun(1000)
            .parameters("{\"type\": \"object\", \"properties\": {\"key\": {\"type\": \"string\"}}, \"required\": [\"key\"]}")
            .handler(args -> Map.of("value", ((String) args.get("key")).toUpperCase(java.util.Locale.ROOT)))
            .build(),
        Tool.builder("entered").inline().handler(args -> {
          entered.countDown();
          return null;
        }).build());
  }

  @AfterAll
  static void close() {
    sandbox.close();
    deadlined.close();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void asyncProgramAwaitingATool_returnsTheSettledValue(Language language) {
    ExecutionResult r = sandbox.run(language, of(language,
        "(async () => { const r = await tools.kv.get({key: 'a'}); return r; })()", """
        import asyncio
        async def main():
            await asyncio.sleep(0)
            return tools.kv.get(key='a')
        asyncio.run(main())"""));
    assertThatRun(r).hasValue(Map.of("value", "A"));
  }

  @Test
  void topLevelAwait_runsAsTheBodyOfAnAsyncFunction_andReturnsItsValue() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, """
        const a = await tools.kv.get({key: 'a'});
        const b = await Promise.resolve(tools.kv.get({key: 'b'}));
        return a.value + b.value;""");
    assertThatRun(r).hasValue("AB");
    // A program that parses as a script keeps its last expression's value.
    assertThatRun(sandbox.run(Language.JAVASCRIPT, "const x = 6; x * 7")).hasValue(42L);
  }

  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
      # program (\\n is a line break)                                      | its value as JSON
      const x = await Promise.resolve(40);\\nx + 2                          | 42
      await null; 42                                                        | 42
      await null\\n42                                                        | 42
      const a = await tools.kv.get({key: 'a'})\\na.value                     | "A"
      let x = await 1\\nx\\n+ 1                                                | 2
      const g = async (n) => n * 2;\\nconst v = await g\\n(21)\\nv              | 42
      await 1;\\n'a;b}' + "c"                                                | "a;b}c"
      await 1;\\n`v${ {a: 1}.a }`                                            | "v1"
      await 1;\\n/a;b}/.test('a;b}')                                          | true
      await 1;\\n2 // two                                                    | 2
      await 1; // a ; comment }\\n3                                          | 3
      await 1; /* ; } */ 4;                                                 | 4
      const f = async () => { return 1; };\\nawait f()                      | 1
      if (await true) return 'early';\\n'late'                               | "early"
      await 1;\\nreturn 5                                                     | 5
      const y = await 1;                                                    | null
      await 1; function f() { return 2; }                                   | null
      for (const i of [1]) { await i; }                                     | null
      const o = await Promise.resolve({n: 3}); ({...o, m: o.n + 1})         | {"n":3,"m":4}
      """)
  void topLevelAwait_returnsTheLastExpressionAsAReplWould_orWhatItReturns(String program, String json) {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, program.replace("\\n", "\n"));
    assertThatRun(r).hasOutcome(Outcome.OK);
    assertThat(json(r.value())).isEqualTo(json);
  }

  @Test
  void topLevelAwait_ofAProgramEndingInADeclaration_runsItOnce() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, "console.log('once'); await null; const z = 1;");
    assertThatRun(r).hasValue(null);
    assertThat(r.stdout()).isEqualTo("once\n");
  }

  private static String json(Object value) {
    if (value instanceof Map<?, ?> map) {
      StringBuilder b = new StringBuilder("{");
      map.forEach((k, v) -> b.append(b.length() > 1 ? "," : "").append('"').append(k).append("\":").append(json(v)));
      return b.append('}').toString();
    }
    return value instanceof String s ? '"' + s + '"' : String.valueOf(value);
  }

  @Test
  void syntaxErrorInAnAsyncProgram_isTheScriptsSyntaxError_withItsLine() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, "await null;\nconst = 3;");
    assertThatRun(r).hasOutcome(Outcome.SYNTAX_ERROR).leaksNoHostDetail();
    assertThat(r.errorMessage()).get().asString().contains(":2");
  }

  @Test
  void syntaxErrorRaisedByGuestEval_doesNotRunTheProgramTwice() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, "console.log('ran'); eval('await 1');");
    assertThatRun(r).hasOutcome(Outcome.SYNTAX_ERROR);
    assertThat(r.stdout()).isEqualTo("ran\n");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void rejection_isAGuestError_withItsMessageAndFrames(Language language) {
    ExecutionResult r = sandbox.run(language, of(language, """
        async function fetchAll() {
          await null;
          throw new TypeError('no such customer: ada');
        }
        fetchAll()""", """
        import asyncio
        async def fetch_all():
            await asyncio.sleep(0)
            raise TypeError('no such customer: ada')
        asyncio.run(fetch_all())"""));
    assertThatRun(r).hasOutcome(Outcome.GUEST_ERROR).leaksNoHostDetail();
    assertThat(r.errorMessage()).get().asString().contains("TypeError").contains("no such customer: ada");
    // GraalJS keeps the async function's frame; GraalPy's traceback ends where asyncio.run re-raised it.
    assertThat(r.guestStackTrace()).anySatisfy(f -> assertThat(f)
        .contains(language == Language.JAVASCRIPT ? "fetchAll" : "main.py:5"));
  }

  @Test
  void rejectionWithANonError_isAGuestError() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, "Promise.reject('plain text')");
    assertThatRun(r).hasOutcome(Outcome.GUEST_ERROR).leaksNoHostDetail();
    assertThat(r.errorMessage()).get().asString().contains("plain text");
  }

  @Test
  void thenable_isSettledLikeAPromise() {
    assertThatRun(sandbox.run(Language.JAVASCRIPT,
        "({ then(resolve) { Promise.resolve().then(() => resolve({ ok: true })); } })"))
        .hasValue(Map.of("ok", true));
  }

  @Test
  void pythonProgramWhoseValueIsACoroutine_runsIt_likeAsyncioRun() {
    ExecutionResult r = sandbox.run(Language.PYTHON, """
        import asyncio
        async def main():
            await asyncio.sleep(0)
            return tools.kv.get(key='c')['value']
        main()""");
    assertThatRun(r).hasValue("C");
    ExecutionResult raised = sandbox.run(Language.PYTHON, """
        async def main():
            raise KeyError('no such key: zed')
        main()""");
    assertThatRun(raised).hasOutcome(Outcome.GUEST_ERROR).leaksNoHostDetail();
    assertThat(raised.errorMessage()).get().asString().contains("no such key: zed");
    // The sandbox's own reading never asks what the guest patched.
    assertThatRun(sandbox.run(Language.PYTHON, """
        import builtins
        builtins.__import__ = lambda *a, **k: 'patched'
        {'ran': [True]}""")).hasValue(Map.of("ran", List.of(true)));
    // Only exactly a coroutine is run: an object that claims to be one is copied as what it is.
    assertThatRun(sandbox.run(Language.PYTHON, """
        import types
        class Fake:
            __class__ = types.CoroutineType
            def __repr__(self):
                return 'fake'
        Fake()""")).hasValue("fake");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void promiseOrCoroutineNestedInTheResult_isRejected_namingWhere(Language language) {
    ExecutionResult r = sandbox.run(language, of(language,
        "({done: 1, later: (async () => 2)()})", """
        async def later():
            return 2
        {'done': 1, 'later': later()}"""));
    assertThatRun(r).wasRejected(Reason.UNSETTLED, "$.later");
    assertThat(r.errorMessage()).get().asString().contains("never awaited");
    // In a tool's arguments too: a Promise is refused, never passed on as an empty object.
    ExecutionResult args = sandbox.run(Language.JAVASCRIPT, """
        try { tools.kv.get({key: Promise.resolve('a')}); 'called' } catch (e) { e.message }""");
    assertThatRun(args).isOk();
    assertThat((String) args.value()).contains("never awaited");
  }

  @Test
  void pythonAwaitsAToolThroughToThread_andRunInExecutor_withoutAThread() {
    ExecutionResult r = sandbox.run(Language.PYTHON, """
        import asyncio
        async def main():
            a = await asyncio.to_thread(tools.kv.get, key='a')
            b = await asyncio.get_running_loop().run_in_executor(None, lambda: tools.kv.get(key='b'))
            many = await asyncio.gather(*(asyncio.to_thread(tools.kv.get, key='k' + str(i)) for i in range(100)))
            return [a['value'], b['value'], len(many), many[99]['value']]
        asyncio.run(main())""");
    assertThatRun(r).hasValue(List.of("A", "B", 100L, "K99"));
    assertThat(r.events()).noneMatch(e -> e instanceof SandboxEvent.DeniedOperation);
    ExecutionResult own = sandbox.run(Language.PYTHON, """
        import asyncio, concurrent.futures
        async def main():
            return await asyncio.get_running_loop().run_in_executor(concurrent.futures.ThreadPoolExecutor(), print)
        asyncio.run(main())""");
    assertThatRun(own).hasOutcome(Outcome.GUEST_ERROR).leaksNoHostDetail();
    assertThat(own.errorMessage()).get().asString().contains("needs threads");
    ExecutionResult failing = sandbox.run(Language.PYTHON, """
        import asyncio
        async def main():
            try:
                await asyncio.to_thread(tools.kv.get, nokey=1)
            except Exception as e:
                return type(e).__name__
        asyncio.run(main())""");
    assertThatRun(failing).isOk().leaksNoHostDetail();
  }

  @Test
  void timers_runWhileTheProgramAwaits_inDueOrder_afterTheJobsTheyQueue() {
    ExecutionResult slept = sandbox.run(Language.JAVASCRIPT, """
        const t = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 50));
        return Date.now() - t >= 50 ? 'slept' : 'too soon';""");
    assertThatRun(slept).hasValue("slept");
    ExecutionResult order = sandbox.run(Language.JAVASCRIPT, """
        const seen = [];
        await new Promise((resolve) => {
          let left = 2; // the late timer and the interval's third tick
          const done = () => { if (--left === 0) { resolve(); } };
          setTimeout(() => { seen.push('late'); done(); }, 30);
          setTimeout((x) => { seen.push(x); Promise.resolve().then(() => seen.push('job of early')); }, 0, 'early');
          const never = setTimeout(() => seen.push('cleared'), 10);
          clearTimeout(never);
          let n = 0;
          const every = setInterval(() => { seen.push('tick ' + ++n); if (n === 3) { clearInterval(every); done(); } }, 1);
          Promise.resolve().then(() => seen.push('job'));
        });
        return seen;""");
    assertThatRun(order).isOk();
    @SuppressWarnings("unchecked")
    List<Object> seen = (List<Object>) order.value();
    // Jobs before timers, a timer's jobs before the next timer; the interval's ticks and the late timer
    // interleave as the machine's clock has it.
    assertThat(seen).startsWith("job", "early", "job of early").contains("late")
        .containsSubsequence("tick 1", "tick 2", "tick 3").doesNotContain("cleared", "tick 4").hasSize(7);
  }

  @Test
  void timers_areRefusedCodeStringsAndFloods_andAThrowingCallbackIsAGuestError() {
    ExecutionResult code = sandbox.run(Language.JAVASCRIPT, "try { setTimeout('globalThis.x = 1', 0); 'ran' } catch (e) { String(e) }");
    assertThatRun(code).hasValue("TypeError: setTimeout: the callback must be a function (code strings are not run)");
    ExecutionResult flood = sandbox.run(Language.JAVASCRIPT, """
        let made = 0;
        try { for (;;) { setTimeout(() => {}, 1e6); made++; } } catch (e) { [made, e.name] }""");
    assertThatRun(flood).hasValue(List.of((long) 10_000, "RangeError"));
    ExecutionResult thrown = sandbox.run(Language.JAVASCRIPT, """
        await new Promise(() => setTimeout(() => { throw new RangeError('timer failed'); }, 1));""");
    assertThatRun(thrown).hasOutcome(Outcome.GUEST_ERROR).leaksNoHostDetail();
    assertThat(thrown.errorMessage()).get().asString().contains("RangeError").contains("timer failed");
    // Once the program's value is ready, pending timers are dropped with the context.
    ExecutionResult ready = sandbox.run(Language.JAVASCRIPT, "setTimeout(() => console.log('late'), 0); 42");
    assertThatRun(ready).hasValue(42L);
    assertThat(ready.stdout()).isEmpty();
  }

  @Test
  void aTimerLeftByOneRun_neverFiresInTheNext() {
    entered = new CountDownLatch(1);
    assertThatRun(sandbox.run(Language.JAVASCRIPT, "setTimeout(() => tools.entered(), 0); setInterval(() => tools.entered(), 1); 1"))
        .hasValue(1L);
    assertThatRun(sandbox.run(Language.JAVASCRIPT, "await new Promise((r) => setTimeout(r, 100)); return 2;")).hasValue(2L);
    assertThat(entered.getCount()).as("the first run's timers never ran").isEqualTo(1);
  }

  @Test
  void aTimerFarAway_orAnEndlessInterval_isStoppedByTheWallTime() {
    Duration wall = Duration.ofSeconds(2);
    try (PolyglotSandbox quick = PolyglotSandbox.builder().policy(policy(wall, Long.MAX_VALUE)).tools(tools()).build()) {
      ExecutionResult far = quick.run(Language.JAVASCRIPT, "await new Promise((r) => setTimeout(r, 3600000));");
      assertThatRun(far).wasStoppedBy(Limit.WALL_TIME).leaksNoHostDetail();
      assertThat(far.usage().wallTime()).isLessThan(wall.plus(MARGIN));
      assertThat(far.usage().cpuTime()).isLessThan(wall); // it waited, it did not spin
      ExecutionResult endless = quick.run(Language.JAVASCRIPT, "new Promise(() => setInterval(() => {}, 1))");
      assertThatRun(endless).hasOutcome(Outcome.LIMIT_EXCEEDED).leaksNoHostDetail();
      assertThat(quick.run(Language.JAVASCRIPT, "6 * 7").value()).isEqualTo(42L);
    }
  }

  @Test
  void lyingThenables_areTheGuestsOwnErrorsOrData_neverTheSandboxs() {
    ExecutionResult getterThrows = sandbox.run(Language.JAVASCRIPT, "({ get then() { throw new Error('no then'); } })");
    assertThatRun(getterThrows).hasOutcome(Outcome.GUEST_ERROR).leaksNoHostDetail();
    assertThat(getterThrows.errorMessage()).get().asString().contains("no then");
    // A Proxy whose then answers differently on each read breaks an interop invariant if the host reads it.
    ExecutionResult shifting = sandbox.run(Language.JAVASCRIPT, """
        (() => { let n = 0; return new Proxy([1, 2, 3], {get(t, k) { return n++ % 2 ? Object.create(null) : t[k]; }}); })()""");
    assertThat(shifting.outcome()).isIn(Outcome.OK, Outcome.OUTPUT_REJECTED);
    assertThatRun(shifting).leaksNoHostDetail();
    // Like a Promise resolved with it: the first callback wins, and a throw after settling is ignored.
    assertThatRun(sandbox.run(Language.JAVASCRIPT,
        "({ then(ok, no) { ok(1); no(new Error('late')); ok(2); throw new Error('after'); } })")).hasValue(1L);
    ExecutionResult throwsFirst = sandbox.run(Language.JAVASCRIPT, "({ then(ok) { throw new RangeError('before'); } })");
    assertThatRun(throwsFirst).hasOutcome(Outcome.GUEST_ERROR);
    assertThat(throwsFirst.errorMessage()).get().asString().contains("RangeError").contains("before");
    // What a thenable is handed to settle with is guest code: nothing about it names the host.
    ExecutionResult inspected = sandbox.run(Language.JAVASCRIPT, """
        ({ then(ok, no) { ok([String(ok), String(no), Object.getOwnPropertyNames(ok).join(), typeof ok.getClass].join('|')); } })""");
    assertThatRun(inspected).isOk().leaksNoHostDetail();
    assertThat((String) inspected.value()).doesNotContain("polyglotsandbox").doesNotContain("Proxy");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void promiseThatNothingWillSettle_endsAtOnce_withAClearError(Language language) {
    ExecutionResult r = sandbox.run(language, of(language, "new Promise(() => {})", """
        import asyncio
        async def main():
            await asyncio.get_running_loop().create_future()
        asyncio.run(main())"""));
    assertThatRun(r).hasOutcome(Outcome.GUEST_ERROR).leaksNoHostDetail();
    assertThat(r.errorMessage()).get().asString().containsAnyOf("never settled", "nothing left to run");
    assertThat(r.events()).noneMatch(e -> e instanceof SandboxEvent.LimitExceeded);
  }

  @Tag("slow")
  @ParameterizedTest
  @EnumSource(Language.class)
  void promiseAwaitingAnEndlessMicrotaskFlood_isStoppedByALimit(Language language) {
    ExecutionResult r = deadlined.run(language, of(language, """
        function spin() { return Promise.resolve().then(spin); }
        spin()""", """
        import asyncio
        async def spin():
            while True:
                await asyncio.sleep(0)
        asyncio.run(spin())"""));
    assertThatRun(r).hasOutcome(Outcome.LIMIT_EXCEEDED).leaksNoHostDetail();
    // Each job allocates: the allocation cap often ends the flood before the statement or time limit.
    assertThat(r.limit().orElseThrow()).isIn(Limit.WALL_TIME, Limit.STATEMENTS, Limit.MEMORY, Limit.CPU_TIME);
    assertThat(r.usage().wallTime()).isLessThan(DEADLINE.plus(MARGIN));
  }

  @Tag("slow")
  @Test
  void aMillionMicrotasks_completeOrAreCappedByTheExistingLimits() {
    String chain = "let p = Promise.resolve(0); for (let i = 0; i < N; i++) p = p.then(x => x + 1); p";
    assertThatRun(sandbox.run(Language.JAVASCRIPT, chain.replace("N", "1e5"))).hasValue(100_000L);
    // A million chained jobs allocate close to the default 1 GiB allocation cap (0.9 to 1.1 GB here,
    // depending on what the JIT compiled): they complete, or that cap stops them, never the host.
    ExecutionResult million = sandbox.run(Language.JAVASCRIPT, chain.replace("N", "1e6"));
    if (million.isOk()) {
      assertThatRun(million).hasValue(1_000_000L);
    } else {
      assertThatRun(million).wasStoppedBy(Limit.MEMORY).leaksNoHostDetail();
    }
    assertThatRun(sandbox.run(Language.JAVASCRIPT, "6 * 7")).hasValue(42L);
    try (PolyglotSandbox tight = PolyglotSandbox.builder().policy(policy(Duration.ofSeconds(60), 100_000))
            .tools(tools()).build();
        PolyglotSandbox tightPython = PolyglotSandbox.builder().policy(policy(Duration.ofSeconds(120), 5_000_000))
            .tools(tools()).build()) {
      assertThatRun(tight.run(Language.JAVASCRIPT, chain.replace("N", "1e6"))).wasStoppedBy(Limit.STATEMENTS).leaksNoHostDetail();
      // Each awaited sleep(0) runs dozens of statements and allocates: one of the caps stops the loop (the
      // statement or allocation cap, mostly; the CPU cap when the loop runs slowly: seen once in CI, 30 s of CPU).
      ExecutionResult python = tightPython.run(Language.PYTHON, """
          import asyncio
          async def main():
              for _ in range(1000000):
                  await asyncio.sleep(0)
          asyncio.run(main())""");
      assertThatRun(python).hasOutcome(Outcome.LIMIT_EXCEEDED).leaksNoHostDetail();
      assertThat(python.limit().orElseThrow()).isIn(Limit.STATEMENTS, Limit.MEMORY, Limit.CPU_TIME);
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void gatherOfAHundredToolCalls_returnsEveryAnswerInOrder(Language language) {
    ExecutionResult r = sandbox.run(language, of(language, """
        Promise.all(Array.from({length: 100}, async (_, i) => (await tools.kv.get({key: 'k' + i})).value))""", """
        import asyncio
        async def get(i):
            await asyncio.sleep(0)
            return tools.kv.get(key='k' + str(i))['value']
        async def main():
            return await asyncio.gather(*(get(i) for i in range(100)))
        asyncio.run(main())"""));
    assertThatRun(r).isOk();
    List<?> values = (List<?>) r.value();
    assertThat(values).hasSize(100);
    assertThat(List.of(values.get(0), values.get(1), values.get(99))).containsExactly("K0", "K1", "K99");
  }

  @Tag("slow")
  @Test
  void asyncioSleep_sleeps_andIsStoppedByTheWallTime() {
    assertThatRun(sandbox.run(Language.PYTHON, """
        import asyncio, time
        t = time.monotonic()
        asyncio.run(asyncio.sleep(0.2))
        time.monotonic() - t >= 0.2""")).hasValue(true);
    ExecutionResult r = deadlined.run(Language.PYTHON, """
        import asyncio
        asyncio.run(asyncio.sleep(3600))""");
    assertThatRun(r).wasStoppedBy(Limit.WALL_TIME).leaksNoHostDetail();
    assertThat(r.usage().wallTime()).isLessThan(DEADLINE.plus(MARGIN));
  }

  @Test
  void asyncio_needsNoSocketOrThread_andRecordsNoDenial() {
    ExecutionResult r = sandbox.run(Language.PYTHON, """
        import asyncio
        async def double(x):
            await asyncio.sleep(0.01)
            return 2 * x
        async def main():
            async with asyncio.TaskGroup() as g:
                t = g.create_task(double(4))
            first = await asyncio.wait_for(double(1), timeout=5)
            return [first, t.result(), *await asyncio.gather(double(2), double(3))]
        asyncio.run(main())""");
    assertThatRun(r).hasValue(List.of(2L, 8L, 4L, 6L));
    assertThat(r.events()).noneMatch(e -> e instanceof SandboxEvent.DeniedOperation);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void cancellingARunAwaitingForever_endsItCancelled(Language language) throws Exception {
    String code = of(language, """
        tools.entered();
        function spin() { return Promise.resolve().then(spin); }
        spin()""", """
        import asyncio
        async def main():
            tools.entered()
            await asyncio.sleep(3600)
        asyncio.run(main())""");
    entered = new CountDownLatch(1);
    CompletableFuture<ExecutionResult> future = sandbox.runAsync(Script.of(language, code));
    assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();
    assertThat(future.cancel(true)).isTrue();
    assertThatThrownBy(future::get).isInstanceOf(CancellationException.class);

    entered = new CountDownLatch(1);
    PolyglotSandbox closing = PolyglotSandbox.builder().policy(policy(Duration.ofSeconds(60), Long.MAX_VALUE))
        .tools(tools()).build();
    CompletableFuture<ExecutionResult> running = closing.runAsync(Script.of(language, code));
    assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();
    closing.close();
    assertThatRun(running.get(60, TimeUnit.SECONDS)).hasOutcome(Outcome.CANCELLED).leaksNoHostDetail();
  }
}
