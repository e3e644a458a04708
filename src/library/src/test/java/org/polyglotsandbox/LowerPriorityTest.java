package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.GuestCode.of;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link PolyglotSandbox.Builder#lowerPriorityAfter}: a run that has used its CPU threshold continues at
 * nice 19, seen from inside the guest (an inline tool reads its own thread's nice value from
 * {@code /proc}); the next run gets a fresh thread at normal priority; a caller thread is never lowered,
 * nor is any thread without the option.
 */
class LowerPriorityTest {
  // Ten minutes of wall time: once lowered, a guest gets a sliver of a core while other processes keep the
  // machine busy, and the rest of its run (its loop's last round, its tool call, its result) must still end OK.
  private static final Policy POLICY = Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
      .limits(Limits.builder().wallTime(Duration.ofMinutes(10)).maxCpuTime(Duration.ofSeconds(30))
          .maxStatements(Long.MAX_VALUE).build())
      .allowTools("nice")
      .build();
  /**
   * The guest thread as its inline tool sees it: name, nice value, CPU time. A JVM thread's CPU time is
   * its whole life's, an upper bound of the run's.
   */
  private static final Tool NICE = Tool.builder("nice").inline().handler(args -> Map.of(
      "thread", Thread.currentThread().getName(),
      "nice", niceOfCurrentThread(),
      "cpuMillis", TimeUnit.NANOSECONDS.toMillis(ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime())))
      .build();

  private static PolyglotSandbox lowering;
  private static PolyglotSandbox plain;

  @BeforeAll
  static void build() {
    lowering = PolyglotSandbox.builder().policy(POLICY).tool(NICE).lowerPriorityAfter(Duration.ofMillis(20)).build();
    plain = PolyglotSandbox.builder().policy(POLICY).tool(NICE).build();
  }

  @AfterAll
  static void close() {
    lowering.close();
    plain.close();
  }

  /** The calling thread's nice value: field 19 of its stat line, counted after the command's parenthesis. */
  static int niceOfCurrentThread() {
    try {
      String stat = Files.readString(Path.of("/proc/thread-self/stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Integer.parseInt(fields[16]); // field 19 of the line; fields[0] here is field 3
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Spins until the guest's thread is lowered or has used {@code cpuMillis} of CPU; then what the tool saw. */
  private static String spinUntilLoweredOr(Language language, long cpuMillis) {
    return of(language,
        "let r = tools.nice(); let x = 0;\n"
            + "while (r.nice === 0 && r.cpuMillis < " + cpuMillis + ") {\n"
            + "  for (let i = 0; i < 100000; i++) x = (x + i) | 0;\n"
            + "  r = tools.nice();\n"
            + "}\n"
            + "r",
        "r = tools.nice()\nx = 0\n"
            + "while r['nice'] == 0 and r['cpuMillis'] < " + cpuMillis + ":\n"
            + "    for i in range(20000):\n"
            + "        x = (x + i) & 0xffff\n"
            + "    r = tools.nice()\n"
            + "r");
  }

  @Test
  void thisPlatformCanLowerPriorities() {
    // The build runs on Linux with JDK 25 and --enable-native-access=ALL-UNNAMED; everything below relies on it.
    assertThat(org.polyglotsandbox.internal.pool.RunThreads.whyPriorityCannotBeLowered()).isNull();
    assertThat(niceOfCurrentThread()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aRunPastItsThresholdContinuesAtTheLowestPriorityAndItsThreadIsNotReused(Language language) {
    ExecutionResult hog = lowering.run(language, spinUntilLoweredOr(language, 10_000));
    assertThat(hog.isOk()).as("%s", hog).isTrue();
    Map<?, ?> seen = (Map<?, ?>) hog.value();
    assertThat(((Number) seen.get("nice")).intValue()).as("%s", seen).isEqualTo(19);
    assertThat(hog.usage().cpuTime()).isGreaterThanOrEqualTo(Duration.ofMillis(20));

    ExecutionResult next = lowering.run(language, of(language, "tools.nice()", "tools.nice()"));
    Map<?, ?> after = (Map<?, ?>) next.value();
    assertThat(((Number) after.get("nice")).intValue()).as("%s", after).isZero();
    assertThat(after.get("thread")).isNotEqualTo(seen.get("thread"));
  }

  @Test
  void shortRunsKeepTheirPriorityAndTheirThreadsAreReused() throws InterruptedException {
    // A run's thread becomes idle a little after the caller has the result (it closes the context first),
    // so the next run may find it busy: a thread's name coming round again shows it was kept.
    java.util.Set<Object> threads = new java.util.HashSet<>();
    boolean reused = false;
    for (int i = 0; i < 20 && !reused; i++) {
      Map<?, ?> seen = (Map<?, ?>) lowering.run(Language.JAVASCRIPT, "tools.nice()").value();
      assertThat(((Number) seen.get("nice")).intValue()).isZero();
      reused = !threads.add(seen.get("thread"));
      Thread.sleep(50);
    }
    assertThat(reused).as("a run thread was used again: %s", threads).isTrue();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aRunOnACallerThreadIsNeverLowered(Language language) throws Exception {
    Map<?, ?> seen = onNewThread(lowering.callerThreads(),
        () -> (Map<?, ?>) lowering.run(language, spinUntilLoweredOr(language, 300)).value());
    assertThat((String) seen.get("thread")).startsWith("polyglot-sandbox-caller-");
    assertThat(((Number) seen.get("cpuMillis")).longValue()).isGreaterThanOrEqualTo(300);
    assertThat(((Number) seen.get("nice")).intValue()).isZero();
  }

  @Test
  void withoutTheOptionNoRunIsLowered() {
    // A run thread's CPU time is its life's, so a reused thread may start past 300 ms: spin 300 ms more.
    Map<?, ?> start = (Map<?, ?>) plain.run(Language.JAVASCRIPT, "tools.nice()").value();
    long until = ((Number) start.get("cpuMillis")).longValue() + 300;
    Map<?, ?> seen = (Map<?, ?>) plain.run(Language.JAVASCRIPT, spinUntilLoweredOr(Language.JAVASCRIPT, until)).value();
    assertThat(((Number) seen.get("cpuMillis")).longValue()).isGreaterThanOrEqualTo(until);
    assertThat(((Number) seen.get("nice")).intValue()).isZero();
  }

  @Test
  void theThresholdIsChecked() {
    PolyglotSandbox.Builder builder = PolyglotSandbox.builder();
    assertThatThrownBy(() -> builder.lowerPriorityAfter(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lowerPriorityAfter (PT0S) must be between 1 ms and 10 minutes");
    assertThatThrownBy(() -> builder.lowerPriorityAfter(Duration.ofMinutes(11)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT11M");
    assertThatThrownBy(() -> builder.lowerPriorityAfter(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("cpuTime");
  }

  private static <T> T onNewThread(java.util.concurrent.ThreadFactory threads, Callable<T> call) throws Exception {
    FutureTask<T> task = new FutureTask<>(call);
    Thread t = threads.newThread(task);
    t.start();
    return task.get(10, TimeUnit.MINUTES);
  }
}
