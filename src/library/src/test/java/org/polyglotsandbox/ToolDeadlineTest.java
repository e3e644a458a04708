package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.GuestCode.of;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The run's own limits hold while guest code is inside the tool gateway: a handler that blocks past
 * the deadline, and argument getters or iterators that never end. Each run waits out a deadline.
 */
@Tag("slow")
class ToolDeadlineTest {
  private static final Duration WALL_TIME = Duration.ofSeconds(8);
  private static final AtomicInteger calls = new AtomicInteger();
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
            .limits(Limits.builder().wallTime(WALL_TIME).build())
            .allowTools("block", "echo").build())
        .tool(Tool.builder("block").timeout(Duration.ofHours(1)).handler(args -> {
          Thread.sleep(Long.MAX_VALUE);
          return null;
        }).build())
        .tool(Tool.builder("echo").parameters("{\"type\": \"object\"}").handler(args -> {
          calls.incrementAndGet();
          return args;
        }).build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void toolBlockingPastTheDeadline_doesNotHoldTheRun(Language language) {
    long start = System.nanoTime();
    ExecutionResult r = sandbox.run(language, "tools.block()");
    assertThatRun(r).wasStoppedBy(Limit.WALL_TIME);
    // The deadline counts from the guest's first statement: were a fresh Python context made on a busy
    // machine to eat into it, the guest would sometimes never reach its tool call.
    Duration beforeTheGuest = r.usage().queueTime().plus(r.usage().setupTime());
    assertThat(Duration.ofNanos(System.nanoTime() - start).minus(beforeTheGuest)).isLessThan(WALL_TIME.plusSeconds(3));
    assertThat(r.usage().wallTime()).isBetween(WALL_TIME, WALL_TIME.plusSeconds(3));
    assertThat(r.events()).filteredOn(SandboxEvent.ToolCall.class::isInstance).singleElement()
        .satisfies(e -> assertThat(((SandboxEvent.ToolCall) e).status()).isEqualTo(SandboxEvent.ToolCall.Status.CANCELLED));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void argumentGetterThatLoopsForever_isStoppedByTheGuestsOwnLimits(Language language) {
    ExecutionResult r = sandbox.run(language, of(language,
        "tools.echo({ get a() { for (;;) {} } })",
        "def forever():\n    while True:\n        x = 1\n    yield x\n"
            + "class Spin:\n    def __iter__(self):\n        return forever()\n"
            + "tools.echo(a=Spin())"));
    assertThatRun(r).hasOutcome(Outcome.LIMIT_EXCEEDED);
    assertThat(r.limit().orElseThrow()).isIn(Limit.STATEMENTS, Limit.WALL_TIME);
    assertThat(calls).hasValue(0);
  }
}
