package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.GuestCode.of;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Inline tools run their handler on the guest's own thread. The gateway's checks are the same; what
 * differs is how a slow handler is stopped: by interrupting the guest thread past the tool's timeout or
 * when the run is cancelled, after which the interrupt must not linger into guest code or later calls.
 */
class InlineToolTest {
  private static final List<String> handlerThreads = new CopyOnWriteArrayList<>();
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    Policy policy = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(30)).build())
        .allowTools("inc", "pooledInc", "nap", "fail", "leak")
        .build();
    sandbox = PolyglotSandbox.builder().policy(policy)
        .tool(Tool.builder("inc").inline()
            .parameters("{\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\"}}, \"required\": [\"n\"]}")
            .handler(args -> {
              handlerThreads.add(Thread.currentThread().getName());
              return (Long) args.get("n") + 1;
            }).build())
        .tool(Tool.builder("pooledInc")
            .parameters("{\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\"}}, \"required\": [\"n\"]}")
            .handler(args -> {
              handlerThreads.add(Thread.currentThread().getName());
              return (Long) args.get("n") + 1;
            }).build())
        .tool(Tool.builder("nap").inline().timeout(Duration.ofMillis(200)).handler(args -> {
          Thread.sleep(Long.MAX_VALUE);
          return null;
        }).build())
        .tool(Tool.builder("fail").inline().handler(args -> {
          throw new IllegalStateException("disk full at java.io.FileOutputStream");
        }).build())
        .tool(Tool.builder("leak").inline().handler(args -> Map.of("thread", Thread.currentThread())).build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void inlineHandler_runsOnTheGuestThread_andPooledOneDoesNot(Language language) {
    handlerThreads.clear();
    ExecutionResult r = sandbox.run(language, of(language,
        "[tools.inc({n: 1}), tools.pooledInc({n: 2})]",
        "[tools.inc(n=1), tools.pooledInc(n=2)]"));
    assertThatRun(r).hasValue(List.of(2L, 3L));
    assertThat(handlerThreads).hasSize(2);
    assertThat(handlerThreads.get(0)).startsWith("polyglot-sandbox-run-");
    assertThat(handlerThreads.get(1)).startsWith("polyglot-sandbox-tool-");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void inlineHandlerPastItsTimeout_isInterrupted_andLeavesNoInterruptBehind(Language language) {
    ExecutionResult r = sandbox.run(language, of(language, """
        let napped;
        try { tools.nap(); napped = 'answered'; } catch (e) { napped = e.name + '|' + e.code + '|' + e.message; }
        [napped, tools.pooledInc({n: 1}), tools.inc({n: 2}), tools.pooledInc({n: 3})]""", """
        try:
            tools.nap()
            napped = 'answered'
        except Exception as e:
            napped = type(e).__name__ + '|' + e.code + '|' + str(e)
        [napped, tools.pooledInc(n=1), tools.inc(n=2), tools.pooledInc(n=3)]"""));
    assertThatRun(r).hasValue(List.of("ToolError|timeout|tool 'nap' did not answer within 200 ms", 2L, 3L, 4L));
    assertThat(r.events()).filteredOn(SandboxEvent.ToolCall.class::isInstance)
        .map(e -> ((SandboxEvent.ToolCall) e).status())
        .containsExactly(SandboxEvent.ToolCall.Status.TIMED_OUT, SandboxEvent.ToolCall.Status.OK,
            SandboxEvent.ToolCall.Status.OK, SandboxEvent.ToolCall.Status.OK);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void wallDeadline_interruptsAnInlineHandler(Language language) throws InterruptedException {
    Duration deadline = Duration.ofSeconds(1);
    Policy tight = Policy.computeOnly(language).toBuilder()
        .limits(Limits.builder().wallTime(deadline).build()).allowTools("nap").build();
    CountDownLatch interrupted = new CountDownLatch(1);
    try (PolyglotSandbox s = PolyglotSandbox.builder().policy(tight)
        .tool(Tool.builder("nap").inline().timeout(Duration.ofMinutes(10)).handler(args -> {
          try {
            Thread.sleep(Long.MAX_VALUE);
          } catch (InterruptedException e) {
            interrupted.countDown();
            throw e;
          }
          return null;
        }).build())
        .build()) {
      ExecutionResult r = s.run(language, of(language, "tools.nap()", "tools.nap()"));
      assertThatRun(r).wasStoppedBy(Limit.WALL_TIME).leaksNoHostDetail();
      // Interrupted at the deadline, not left to the 5 s grace after which the sandbox abandons a guest that
      // ignores its stop: the guest's own time, which leaves out making the fresh context.
      assertThat(r.usage().wallTime()).isLessThan(deadline.plus(Duration.ofSeconds(5)));
      assertThat(interrupted.await(60, TimeUnit.SECONDS)).as("the handler saw the interrupt").isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void inlineHandlerFailuresAndHostObjects_crossTheGatewayAsPlainErrors(Language language) {
    ExecutionResult r = sandbox.run(language, GuestCode.toolAttempts(language, "",
        new String[] {"tools.fail()", "tools.fail()"}, new String[] {"tools.leak()", "tools.leak()"}));
    assertThatRun(r).leaksNoHostDetail().hasValue(List.of(
        "ToolError|failed|tool 'fail' failed: disk full at <host>",
        "ToolError|invalid_result|tool 'leak' returned a result that is not plain data"));
  }
}
