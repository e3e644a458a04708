package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.GuestCode.of;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link PolyglotSandbox#callerThreads()}: a run called on one of its threads runs the guest on that
 * thread, and everything a run thread guarantees still holds there: a fresh context per run, the caps,
 * the policy's stack; a nested run, another sandbox's run and an interrupted caller still go through a
 * run thread.
 */
class CallerThreadsTest {
  private static PolyglotSandbox sandbox;
  private static PolyglotSandbox other;

  @BeforeAll
  static void build() {
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(30)).maxStatements(Long.MAX_VALUE)
            .stackSize(Limits.Builder.MIN_STACK_SIZE).build())
        .allowTools("where", "nested", "nap")
        .build();
    sandbox = PolyglotSandbox.builder().policy(policy).warmContexts(1)
        .tool(Tool.builder("where").inline().handler(args -> Thread.currentThread().getName()).build())
        .tool(Tool.builder("nested").inline()
            .handler(args -> sandbox.run(Language.JAVASCRIPT, "tools.where()").value()).build())
        .tool(Tool.builder("nap").inline().timeout(Duration.ofMinutes(10)).handler(args -> {
          Thread.sleep(Long.MAX_VALUE);
          return null;
        }).build())
        .build();
    other = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT)).build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
    other.close();
  }

  /** Calls {@code call} on a new thread of {@code threads} and returns what it returned. */
  private static <T> T on(ThreadFactory threads, Callable<T> call) throws Exception {
    FutureTask<T> task = new FutureTask<>(call);
    threads.newThread(task).start();
    return task.get(60, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aRunCalledOnACallerThread_runsOnIt_andOnAnyOtherThreadDoesNot(Language language) throws Exception {
    String code = of(language, "[tools.where(), tools.where()]", "[tools.where(), tools.where()]");
    List<Object> onCaller = on(sandbox.callerThreads(), () -> List.of(Thread.currentThread().getName(),
        sandbox.run(language, code).value()));
    assertThat(onCaller.get(0)).asString().startsWith("polyglot-sandbox-caller-");
    assertThat(onCaller.get(1)).isEqualTo(List.of(onCaller.get(0), onCaller.get(0)));

    ExecutionResult elsewhere = sandbox.run(language, code);
    assertThatRun(elsewhere).isOk();
    assertThat((List<?>) elsewhere.value()).allSatisfy(name -> assertThat(name).asString()
        .startsWith("polyglot-sandbox-run-"));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void runsOnOneCallerThread_eachStartFromAFreshContext(Language language) throws Exception {
    String leak = of(language, "globalThis.leaked = (globalThis.leaked || 0) + 1; leaked",
        "import builtins\nbuiltins.leaked = getattr(builtins, 'leaked', 0) + 1\nbuiltins.leaked");
    List<Object> values = on(sandbox.callerThreads(), () -> List.of(sandbox.run(language, leak).value(),
        sandbox.run(language, leak).value(), sandbox.run(language, leak).value()));
    assertThat(values).containsExactly(1L, 1L, 1L);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void theCapsStopARunOnACallerThread_andLeaveTheThreadUsableAndUninterrupted(Language language) throws Exception {
    Script spin = Script.of(language, of(language, "while (true) {}", "while True:\n    pass"))
        .withLimits(Limits.builder().wallTime(Duration.ofSeconds(30)).maxCpuTime(Duration.ofMillis(300))
            .maxStatements(Long.MAX_VALUE).stackSize(Limits.Builder.MIN_STACK_SIZE).build());
    List<Object> seen = on(sandbox.callerThreads(), () -> {
      ExecutionResult r = sandbox.run(spin);
      boolean interrupted = Thread.currentThread().isInterrupted();
      return List.of(r, interrupted, sandbox.run(language, "6*7").value());
    });
    assertThatRun((ExecutionResult) seen.get(0)).wasStoppedBy(Limit.CPU_TIME);
    assertThat(seen.get(1)).as("interrupted after the run").isEqualTo(false);
    assertThat(seen.get(2)).isEqualTo(42L);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void theDeadlineInterruptsAToolHandlerOnACallerThread_andTheInterruptEndsWithTheRun(Language language)
      throws Exception {
    Script nap = Script.of(language, "tools.nap()").withLimits(Limits.builder().wallTime(Duration.ofMillis(300))
        .maxStatements(Long.MAX_VALUE).stackSize(Limits.Builder.MIN_STACK_SIZE).build());
    List<Object> seen = on(sandbox.callerThreads(), () -> {
      ExecutionResult r = sandbox.run(nap);
      return List.of(r, Thread.currentThread().isInterrupted(), sandbox.run(language, "6*7").value());
    });
    assertThatRun((ExecutionResult) seen.get(0)).wasStoppedBy(Limit.WALL_TIME);
    assertThat(seen.get(1)).as("interrupted after the run").isEqualTo(false);
    assertThat(seen.get(2)).isEqualTo(42L);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void unboundedRecursionOnACallerThread_endsOnThePolicysStack(Language language) throws Exception {
    String recurse = of(language, "function f(n) { return f(n + 1) + 1; } f(0)",
        "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1) + 1\nf(0)");
    ExecutionResult r = on(sandbox.callerThreads(), () -> sandbox.run(language, recurse));
    assertThatRun(r).wasStoppedBy(Limit.STACK);
  }

  @Test
  void aRunFromAToolHandlerInsideACallerThreadRun_goesToARunThread() throws Exception {
    List<Object> seen = on(sandbox.callerThreads(), () -> List.of(Thread.currentThread().getName(),
        sandbox.run(Language.JAVASCRIPT, "[tools.where(), tools.nested()]").value()));
    List<?> names = (List<?>) seen.get(1);
    assertThat(names.get(0)).isEqualTo(seen.get(0));
    assertThat(names.get(1)).asString().startsWith("polyglot-sandbox-run-");
  }

  @Test
  void anotherSandboxsCallerThread_getsARunThread() throws Exception {
    Object where = on(other.callerThreads(), () -> sandbox.run(Language.JAVASCRIPT, "tools.where()").value());
    assertThat(where).asString().startsWith("polyglot-sandbox-run-");
  }

  @Test
  void aCallerThreadInterruptedBeforeTheCall_getsACancelledRun_andStaysInterrupted() throws Exception {
    List<Object> seen = on(sandbox.callerThreads(), () -> {
      Thread.currentThread().interrupt();
      ExecutionResult r = sandbox.run(Language.JAVASCRIPT, "6*7");
      return List.of(r.outcome(), Thread.interrupted());
    });
    assertThat(seen).containsExactly(Outcome.CANCELLED, true);
  }

  @Test
  void theFactorysThreads_arePlatformThreadsThatAreNotDaemons() {
    Thread t = sandbox.callerThreads().newThread(() -> {});
    assertThat(t.isVirtual()).isFalse();
    assertThat(t.isDaemon()).isFalse();
    assertThat(t.getName()).startsWith("polyglot-sandbox-caller-");
  }
}
