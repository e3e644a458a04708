package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Python guest learns nothing about the JVM it shares from GraalPy's own modules and clocks: no host
 * class name through {@code __graalpython__}, one CPU, its own run's CPU time and no resident set size,
 * and a version string with no build date or host JDK. Each route is read from guest code in one run per
 * test. The host's zone and locale are checked in a JVM that has others ({@link GuestLocaleForkedTest}).
 */
@SuppressWarnings("unchecked")
class PythonHostFactsTest {
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.PYTHON).toBuilder()
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60)).build())
            .build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static ExecutionResult python(String code) {
    ExecutionResult r = sandbox.run(Language.PYTHON, code);
    assertThatRun(r).isOk().leaksNoHostDetail();
    return r;
  }

  @Test
  void graalpythonModule_namesNoHostClass_andCountsOneCpu() {
    ExecutionResult r = python("""
        import __graalpython__ as g, time
        def attempt(f):
            try:
                return repr(f())
            except Exception as e:
                return type(e).__name__
        # A host function of the sandbox's own, dug out of a closure.
        host = next(c.cell_contents for c in time.sleep.__closure__ if 'Foreign' in type(c.cell_contents).__name__)
        {'which': [g.which(len), g.which(attempt), g.which(1), g.which('s'), g.which(g), g.which(host)],
         'max_process_count': g.get_max_process_count(), 'rss': g.get_current_rss(),
         'java_assert': g.java_assert(), 'jdk': g.get_jdk_version() == g.get_graalvm_version(),
         'read_file': [attempt(lambda: g.read_file(1)), attempt(lambda: g.read_file('/no/such/file'))]}
        """);
    Map<String, Object> v = (Map<String, Object>) r.value();
    assertThat(v).containsEntry("which", java.util.List.of("builtin_function_or_method", "function", "int", "str",
            "module", "polyglot.ForeignExecutable"))
        .containsEntry("max_process_count", 1L).containsEntry("rss", 0L).containsEntry("java_assert", false)
        .containsEntry("jdk", true).containsEntry("read_file", java.util.List.of("TypeError", "PermissionError"))
        ;
  }

  @Test
  void cpuClocksAndRusage_showOnlyTheRunsOwnFigures() {
    ExecutionResult r = python("""
        import time, resource
        first = time.process_time()
        x = 0
        for i in range(200000):
            x += i
        self = resource.getrusage(resource.RUSAGE_SELF)
        thread = resource.getrusage(resource.RUSAGE_THREAD)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        {'first': first, 'process_ns': time.process_time_ns(), 'thread_ns': time.thread_time_ns(),
         'process': time.process_time(), 'thread': time.thread_time(),
         'self_utime': self.ru_utime, 'self_stime': self.ru_stime, 'thread_utime': thread.ru_utime,
         'maxrss': [self.ru_maxrss, thread.ru_maxrss, children.ru_maxrss], 'children': list(children)}
        """);
    Map<String, Object> v = (Map<String, Object>) r.value();
    double runCpu = r.usage().cpuTime().toNanos() / 1e9;
    // Never more than the run's own CPU time, which the sandbox measured on the guest's thread.
    for (String k : new String[] {"first", "process", "thread", "self_utime", "thread_utime"}) {
      assertThat(((Number) v.get(k)).doubleValue()).as(k).isBetween(0.0, runCpu);
    }
    for (String k : new String[] {"process_ns", "thread_ns"}) {
      assertThat(((Number) v.get(k)).longValue()).as(k).isBetween(0L, r.usage().cpuTime().toNanos());
    }
    assertThat(((Number) v.get("self_stime")).doubleValue()).isZero();
    assertThat((java.util.List<Object>) v.get("maxrss")).containsExactly(0L, 0L, 0L);
    assertThat((java.util.List<Object>) v.get("children")).allSatisfy(n -> assertThat(((Number) n).doubleValue()).isZero());
  }

  @Test
  void versionAndUtcNames_holdNoHostBuildFacts() {
    ExecutionResult r = python("""
        import sys, time, platform, datetime
        [sys.version, platform.python_build(), platform.python_implementation(),
         time.strftime('%Z %z', time.localtime(0)), time.localtime().tm_zone, time.gmtime().tm_zone,
         str(datetime.datetime.now().astimezone().tzinfo), time.strftime('%a %d %b %Y %H:%M:%S %p %j', time.gmtime(86400 * 40))]
        """);
    java.util.List<Object> v = (java.util.List<Object>) r.value();
    assertThat((String) v.get(0)).matches("3\\.12\\.8 \\(main, Jan  1 2000, 00:00:00\\)\n"
        + "\\[Graal, GraalVM CE, Java 25\\.0\\.3 \\([\\w-]+\\)\\]");
    assertThat(v.subList(1, v.size())).containsExactly(
        java.util.List.of("main", "Jan  1 2000"), "GraalVM", "UTC +0000", "UTC", "UTC", "UTC",
        "Tue 10 Feb 1970 00:00:00 AM 041");
  }
}
