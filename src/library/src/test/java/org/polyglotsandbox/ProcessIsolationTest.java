package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.polyglotsandbox.PolyglotSandbox.Isolation;

/**
 * A sandbox with process isolation does what an in-process one does, with the embedder's code unchanged:
 * values, output, output listeners, tools run on the host, audit events, files in and out, and errors.
 */
@Tag("slow")
class ProcessIsolationTest {
  private static final List<AuditEvent> audited = new CopyOnWriteArrayList<>();
  private static final List<Tool.Call> calls = new CopyOnWriteArrayList<>();
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .mount(Mount.scratch("/out"))
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(30)).build())
        .allowTools("add", "refuse")
        .build();
    sandbox = PolyglotSandbox.builder().policy(policy)
        .isolation(Isolation.processBuilder().workers(1).spareWorkers(0).build())
        .tool(Tool.builder("add").parameters("""
            {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
             "required": ["a", "b"]}""")
            .handler((args, call) -> {
              calls.add(call);
              return (Long) args.get("a") + (Long) args.get("b");
            }).build())
        .tool(Tool.builder("refuse").handler(args -> {
          throw new ToolException("no such customer");
        }).build())
        .auditListener(audited::add)
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  @SuppressWarnings("unchecked")
  void valuesAndOutput_comeBackAsInProcess(Language language) {
    String code = language == Language.JAVASCRIPT
        ? "console.log('hi'); ({n: 6 * 7, big: 2n ** 70n, nan: NaN, list: [1.5, 'x', null, -Infinity]})"
        : "print('hi')\n{'n': 6 * 7, 'big': 2 ** 70, 'nan': float('nan'), 'list': [1.5, 'x', None, float('-inf')]}";
    ExecutionResult r = sandbox.run(language, code);
    assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.OK);
    assertThat(r.stdout()).isEqualTo("hi\n");
    @SuppressWarnings("unchecked")
    Map<String, Object> v = (Map<String, Object>) r.value();
    assertThat(v.get("n")).isEqualTo(42L);
    assertThat(v.get("big")).isEqualTo(java.math.BigInteger.TWO.pow(70));
    assertThat((Double) v.get("nan")).isNaN();
    assertThat((List<Object>) v.get("list")).containsExactly(1.5, "x", null, Double.NEGATIVE_INFINITY);
    assertThat(r.runId()).isNotBlank();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  @SuppressWarnings("unchecked")
  void tools_runOnTheHost_withTheScriptsAttributes(Language language) {
    String code = language == Language.JAVASCRIPT
        ? "let e; try { tools.refuse({}) } catch (x) { e = x.message } [tools.add({a: 2, b: 3}), e]"
        : "e = None\ntry:\n    tools.refuse({})\nexcept ToolError as x:\n    e = str(x)\n[tools.add({'a': 2, 'b': 3}), e]";
    ExecutionResult r = sandbox.run(Script.of(language, code).withAttribute("tenant", "acme").withLabel("t1"));
    assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.OK);
    assertThat((List<Object>) r.value()).containsExactly(5L, "no such customer");
    assertThat(calls).anySatisfy(c -> {
      assertThat(c.attribute("tenant")).isEqualTo("acme");
      assertThat(c.label()).isEqualTo("t1");
      assertThat(c.runId()).isEqualTo(r.runId());
    });
    assertThat(r.events()).filteredOn(e -> e instanceof SandboxEvent.ToolCall).hasSize(2);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void guestErrors_andOutputListeners_andAuditEvents_crossTheChannel(Language language) throws Exception {
    List<ExecutionResult.OutputChunk> chunks = new CopyOnWriteArrayList<>();
    String code = language == Language.JAVASCRIPT
        ? "console.log('one'); readText('/etc/passwd')"
        : "print('one')\nopen('/etc/passwd').read()";
    ExecutionResult r = sandbox.run(Script.of(language, code).withOutputListener(chunks::add)
        .withAuditedAttribute("tenant", "acme"));
    assertThat(r.outcome()).isEqualTo(Outcome.GUEST_ERROR);
    assertThat(r.errorMessage()).isPresent();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (chunks.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(chunks).extracting(ExecutionResult.OutputChunk::text).contains("one\n");
    assertThat(chunks).allSatisfy(c -> assertThat(c.runId()).isEqualTo(r.runId()));
    assertThat(r.deniedOperations()).extracting(SandboxEvent.DeniedOperation::target).contains("/etc/passwd");
    while (audited.stream().noneMatch(a -> a.runId().equals(r.runId())) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(audited).filteredOn(a -> a.runId().equals(r.runId()))
        .isNotEmpty().allSatisfy(a -> assertThat(a.attributes()).containsEntry("tenant", "acme"));
  }

  @Test
  void filesIn_andOutputFilesOut() {
    ExecutionResult r = sandbox.run(Script.of(Language.PYTHON,
            "with open('/out/b.txt', 'w') as f:\n    f.write(open('/in/a.txt').read().upper())\n'done'")
        .withFile("/in/a.txt", "hello")
        .withOutputFiles("/out/b.txt"));
    assertThat(r.outcome()).as(r.toString()).isEqualTo(Outcome.OK);
    assertThat(new String(r.outputFiles().get("/out/b.txt").bytes())).isEqualTo("HELLO");
  }

  /** The worker JVMs as the host sees them: namespaces of their own, the seccomp filter, no capabilities. */
  @Test
  void workers_runBehindTheOsWall() throws Exception {
    assertThat(sandbox.isolationInForce()).contains("process isolation").contains("seccomp filter");
    List<ProcessHandle> jvms = ProcessHandle.current().descendants()
        .filter(p -> p.info().command().orElse("").endsWith("/java")).toList();
    assertThat(jvms).isNotEmpty();
    for (ProcessHandle jvm : jvms) {
      String status = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(jvm.pid()), "status"));
      assertThat(status).contains("Seccomp:\t2").contains("NoNewPrivs:\t1").contains("CapEff:\t0000000000000000");
      for (String ns : List.of("net", "pid", "mnt", "user", "ipc", "uts")) {
        assertThat(java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc", Long.toString(jvm.pid()), "ns", ns)))
            .as(ns).isNotEqualTo(java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/ns", ns)));
      }
      String net = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(jvm.pid()), "net", "dev"));
      assertThat(net.lines().skip(2).map(l -> l.strip().split(":")[0]).toList()).containsExactly("lo");
    }
  }

  @Test
  void interruptingTheCallingThread_endsTheRunCancelled_asInProcess() throws Exception {
    java.util.concurrent.atomic.AtomicReference<Object> outcome = new java.util.concurrent.atomic.AtomicReference<>();
    Thread caller = new Thread(() -> {
      try {
        outcome.set(sandbox.run(Language.PYTHON, "import time\ntime.sleep(50)"));
      } catch (RuntimeException e) {
        outcome.set(e);
      }
    });
    caller.start();
    while (sandbox.runningRuns() == 0) {
      Thread.sleep(10);
    }
    caller.interrupt();
    caller.join(30_000);
    assertThat(outcome.get()).isInstanceOf(ExecutionResult.class);
    assertThat(((ExecutionResult) outcome.get()).outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(sandbox.run(Language.JAVASCRIPT, "6 * 7").value()).isEqualTo(42L);
  }

  @Test
  void limits_areTheWorkersEngineRooms() {
    ExecutionResult r = sandbox.run(Script.of(Language.JAVASCRIPT, "while (true) {}")
        .withLimits(Limits.builder().maxStatements(10_000).build()));
    assertThat(r.outcome()).isEqualTo(Outcome.LIMIT_EXCEEDED);
    assertThat(r.limit()).contains(Limit.STATEMENTS);
  }
}
