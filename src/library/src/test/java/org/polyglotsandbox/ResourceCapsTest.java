package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CPU, memory, stack and file-system caps: each trips cleanly, names itself, shows in usage, and the
 * next run on the same sandbox works. Margins: CPU and memory are checked every 10 ms; a run must end
 * within its cap plus 3 s of wall time (slack for 2 busy cores), and memory overshoot must stay under
 * 512 MiB past the cap (a fast allocator gains at most a few hundred MiB between two checks).
 */
@Tag("slow")
class ResourceCapsTest {
  private static final Duration CPU = Duration.ofSeconds(1);
  private static final long MEMORY = 256L << 20; // GraalPy allocates ~70 MiB just to open a file the first time
  private static PolyglotSandbox sandbox;
  private static PolyglotSandbox cpuCapped;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder().policy(Policy.builder()
            .allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
            .mount(Mount.scratch("/scratch"))
            .limits(Limits.builder()
                .maxStatements(Long.MAX_VALUE)
                .wallTime(Duration.ofSeconds(60))
                .maxCpuTime(Duration.ofSeconds(30))
                .maxAllocatedBytes(MEMORY)
                .maxFileBytes(1L << 20)
                .maxFiles(50)
                .build())
            .build())
        .build();
    cpuCapped = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
            // Only the CPU cap is meant to act: until the JIT compiles the busy loop, the interpreter can
            // allocate a gigabyte in the first second of CPU on a loaded machine (seen in CI).
            .limits(Limits.builder().maxStatements(Long.MAX_VALUE).wallTime(Duration.ofSeconds(60)).maxCpuTime(CPU)
                .maxAllocatedBytes(Long.MAX_VALUE).build())
            .build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
    cpuCapped.close();
  }

  private static void assertNextRunWorks(Language language) {
    assertThatRun(sandbox.run(language, "6*7")).as("the next run").hasValue(42L);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void busyLoop_isStoppedByCpuTime(Language language) {
    ExecutionResult r = cpuCapped.run(language, GuestCode.of(language,
        "let x = 0; for (;;) { x = (x + 1) | 0; }", "x = 0\nwhile True:\n    x = (x + 1) % 1000"));
    assertThatRun(r).wasStoppedBy(Limit.CPU_TIME).leaksNoHostDetail();
    // The wall deadline is far later, so the verdict itself shows the CPU cap acted first; wall time is
    // not asserted (on a loaded machine a guest gets a fraction of a core).
    assertThat(r.usage().cpuTime()).isGreaterThanOrEqualTo(CPU);
    assertThatRun(cpuCapped.run(language, "6*7")).as("the next run").hasValue(42L);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void allocationBomb_isStoppedByMemory(Language language) {
    ExecutionResult r = sandbox.run(language, GuestCode.of(language,
        "let keep = []; for (;;) { keep.push(new Array(100000).fill(1.5)); }",
        "keep = []\nwhile True:\n    keep.append(bytearray(1000000))"));
    assertThatRun(r).wasStoppedBy(Limit.MEMORY);
    assertThat(r.usage().allocatedBytes()).isGreaterThan(MEMORY).isLessThan(MEMORY + (512L << 20));
    assertNextRunWorks(language);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void uncaughtDeepRecursion_isStoppedByStack_caughtOneIsTheGuestsBusiness(Language language) {
    ExecutionResult uncaught = sandbox.run(language, GuestCode.of(language,
        "function f(n) { return f(n + 1) + 1; } f(0)",
        "import sys\nsys.setrecursionlimit(10**7)\ndef f(n): return f(n + 1) + 1\nf(0)"));
    assertThatRun(uncaught).wasStoppedBy(Limit.STACK).leaksNoHostDetail();

    ExecutionResult caught = sandbox.run(language, GuestCode.of(language,
        "function f(n) { return f(n + 1) + 1; } try { f(0) } catch (e) { 'recovered' }",
        "def f(n): return f(n + 1) + 1\ntry:\n    f(0)\nexcept RecursionError:\n    r = 'recovered'\nr"));
    assertThatRun(caught).hasValue("recovered");
  }

  @Test
  void fillingTheFileSystem_isStoppedByFileBytes() {
    ExecutionResult r = sandbox.run(Language.PYTHON, String.join("\n",
        "with open('/scratch/big', 'wb') as f:",
        "    while True:",
        "        f.write(b'x' * 65536)"));
    assertThatRun(r).wasStoppedBy(Limit.FILES);
    assertThat(r.usage().fileBytes()).isLessThanOrEqualTo(1L << 20);
    assertNextRunWorks(Language.PYTHON);
  }

  @Test
  void creatingManyFiles_isStoppedByFileCount() {
    ExecutionResult r = sandbox.run(Language.PYTHON, String.join("\n",
        "import os",
        "for i in range(10000):",
        "    open('/scratch/f%d' % i, 'w').close()"));
    assertThatRun(r).wasStoppedBy(Limit.FILES);
    assertThat(r.usage().files()).isLessThanOrEqualTo(50);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void usage_reportsCpuAllocationAndFiles(Language language) {
    ExecutionResult r = sandbox.run(language, GuestCode.of(language,
        "let s = 0; for (let i = 0; i < 1e6; i++) s += i; s",
        "with open('/scratch/a.txt', 'w') as f:\n    f.write('x' * 5000)\nsum(range(10**5))"));
    assertThatRun(r).isOk();
    assertThat(r.usage().cpuTime()).isPositive();
    assertThat(r.usage().allocatedBytes()).isPositive();
    assertThat(r.usage().files()).isEqualTo(language == Language.PYTHON ? 2 : 1); // /scratch (+ a.txt)
    if (language == Language.PYTHON) {
      assertThat(r.usage().fileBytes()).isGreaterThanOrEqualTo(5000);
    }
  }
}
