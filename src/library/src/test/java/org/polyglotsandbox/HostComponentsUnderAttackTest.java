package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Host code that runs on a guest's behalf (the tool gateway and its schema check,
 * the result schema check, the file system behind Python's {@code os} and JavaScript's
 * {@code readText}, the output capture, the audit listener) never lets an exception reach the guest
 * or end the run {@code INTERNAL_ERROR}, and never makes the host print a stack trace. Attacked from
 * guest code in both languages.
 */
class HostComponentsUnderAttackTest {
  /** A pattern whose matcher recurses once per character: a long string overflows the stack. */
  private static final String DEEP_PATTERN = "{\"type\": \"object\", \"properties\": {\"s\": {\"type\": \"string\","
      + " \"pattern\": \"^(a|b)*$\"}}}";
  private static final AtomicInteger listenerCalls = new AtomicInteger();
  private static PolyglotSandbox sandbox;
  private HostOutput host;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        // A generous clock: on a loaded machine a Python context can take seconds to make.
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder().mount(Mount.scratch("/scratch"))
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(30)).build())
            .allowTools("match").build())
        .tool(Tool.builder("match").inline().parameters(DEEP_PATTERN).handler(args -> "matched").build())
        .auditListener(event -> {
          listenerCalls.incrementAndGet();
          throw new StackOverflowError("the embedder's listener is broken");
        })
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private ExecutionResult run(Script script) {
    try (HostOutput capture = HostOutput.capture()) {
      ExecutionResult r = sandbox.run(script);
      List<String> problems = capture.problemsSinceLastCheck();
      // The broken listener is the embedder's: it is logged (once, with its trace), never the guest's problem.
      problems.removeIf(p -> p.contains("the sandbox audit listener"));
      assertThat(problems).as("what the host logged or printed for %s", r).isEmpty();
      assertThat(r.outcome()).as("%s", r).isNotEqualTo(Outcome.INTERNAL_ERROR);
      SandboxAssertions.assertThatRun(r).leaksNoHostDetail();
      return r;
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aToolArgumentThatOverflowsTheSchemasMatcher_isInvalidArguments(Language language) {
    String call = language == Language.JAVASCRIPT
        ? "try { tools.match({s: 'ab'.repeat(200000)}); 'called' } catch (e) { e.name + '|' + e.code + '|' + e.message }"
        : "try:\n    tools.match(s='ab' * 200000)\n    r = 'called'\nexcept Exception as e:\n"
            + "    r = type(e).__name__ + '|' + e.code + '|' + str(e)\nr";

    ExecutionResult r = run(Script.of(language, call));

    assertThat(r.value()).as("%s", r).asString().startsWith("ToolError|invalid_arguments|");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aResultThatOverflowsTheResultSchemasMatcher_isRejected(Language language) {
    String value = language == Language.JAVASCRIPT ? "({s: 'ab'.repeat(200000)})" : "{'s': 'ab' * 200000}";

    ExecutionResult r = run(Script.of(language, value).withResultSchema(DEEP_PATTERN));

    assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.OUTPUT_REJECTED);
    assertThat(r.errorMessage().orElse("")).contains("$: ");
  }

  @Test
  void readText_aHugePathIsRefusedInTheGuest_andOddPathsAreGuestErrors() {
    ExecutionResult r = run(Script.of(Language.JAVASCRIPT, """
        const out = [];
        for (const p of ['/x'.repeat(5e6), '/scratch/\\u0000nul', '', '.', '/scratch/' + 'n'.repeat(300), '//', '/..',
            '/scratch/../../etc', 'relative/../../x', '\\ud800', '/proc/self/environ']) {
          try { out.push('read ' + readText(p).length); } catch (e) { out.push(e.name + ' ' + e.code); }
        }
        out.join(',')"""));

    assertThat(r.value()).as("%s", r).asString().startsWith("Error ENAMETOOLONG,")
        .doesNotContain("undefined");
  }

  @Test
  void python_fileOperationsWithHostileArguments_areGuestErrors() {
    ExecutionResult r = run(Script.of(Language.PYTHON, """
        import os
        out = []
        def attempt(f):
            try:
                out.append('ok ' + repr(f())[:40])
            except BaseException as e:
                out.append(type(e).__name__)
        f = open('/scratch/a', 'w+b')
        f.write(b'0123456789')
        attempt(lambda: f.seek(-5))
        attempt(lambda: f.seek(2**70))
        attempt(lambda: f.truncate(-1))
        attempt(lambda: f.truncate(2**62))
        attempt(lambda: os.lseek(f.fileno(), -1, 0))
        attempt(lambda: os.pread(f.fileno(), 10, -3))
        attempt(lambda: os.pwrite(f.fileno(), b'y', -3))
        attempt(lambda: os.ftruncate(f.fileno(), -2))
        attempt(lambda: os.read(f.fileno(), -1))
        attempt(lambda: os.read(f.fileno(), 2**40))
        f.close()
        for p in ['/scratch/' + 'n' * 100000, '/scratch/\\x00', '', '/scratch/' + 'd/' * 5000, '\\udcff', b'/scratch/\\xff',
                  '/scratch/a/b', '/scratch/../../../etc/passwd', '/dev/fd/0', '/proc/self/mem']:
            attempt(lambda: open(p, 'rb').read())
            attempt(lambda: os.stat(p))
            attempt(lambda: os.listdir(p))
            attempt(lambda: os.mkdir(p))
            attempt(lambda: os.utime(p, (2**70, -2**70)))
            attempt(lambda: os.chmod(p, 0o7777))
            attempt(lambda: os.symlink('/etc/passwd', p))
            attempt(lambda: os.link('/scratch/a', p))
            attempt(lambda: os.truncate(p, -1))
            attempt(lambda: os.open(p, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_DIRECTORY | os.O_APPEND, 0o7777))
        attempt(lambda: os.chdir('/scratch/' + 'z' * 100000))
        attempt(lambda: os.scandir('/'))
        attempt(lambda: os.statvfs('/scratch'))
        ' '.join(out)"""));

    assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.OK);
  }

  @Test
  void python_renameOntoADirectoryThatIsNotEmpty_endsTheRunAsTheGuestsOSError() {
    // GraalPy 25.0.3 fails inside its own os.rename here instead of raising OSError: the run ends, but as
    // the guest's error (its frames, the errno text), never INTERNAL_ERROR with a host stack trace.
    ExecutionResult r = run(Script.of(Language.PYTHON, """
        import os
        os.makedirs('/scratch/full/x')
        open('/scratch/a', 'w').close()
        try:
            os.rename('/scratch/a', '/scratch/full')
        except OSError as e:
            r = 'OSError'
        r"""));

    assertThat(r.outcome()).as("%s", r).isIn(Outcome.OK, Outcome.GUEST_ERROR);
    if (r.outcome() == Outcome.GUEST_ERROR) {
      assertThat(r.errorMessage()).hasValue("OSError: Is a directory");
      assertThat(r.guestStackTrace()).isNotEmpty();
    }
  }

  @Test
  void python_aWriteFarPastTheEndOfAFile_isTheFilesLimit_notAHostFailure() {
    ExecutionResult r = run(Script.of(Language.PYTHON, """
        f = open('/scratch/far', 'wb')
        f.seek(2**62)
        f.write(b'x')
        f.close()
        'written'"""));

    assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.LIMIT_EXCEEDED);
    assertThat(r.limit()).contains(org.polyglotsandbox.Limit.FILES);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aBrokenAuditListener_andAFloodOfOutput_endTheRunOnTheOutputLimit(Language language) {
    int before = listenerCalls.get();
    String flood = language == Language.JAVASCRIPT
        ? "try { readText('/etc/passwd'); } catch (e) {} const l = '\\u001b]0;x\\u0007'.repeat(1000);"
            + " for (let i = 0; i < 1e6; i++) { console.log(l); console.error(l); } 1"
        : "try:\n    open('/etc/passwd')\nexcept OSError:\n    pass\nimport sys\nl = '\\x1b]0;x\\x07' * 1000\n"
            + "for i in range(10**6):\n    print(l)\n    sys.stderr.write(l)\n1";

    ExecutionResult r = run(Script.of(language, flood));

    assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.LIMIT_EXCEEDED);
    assertThat(listenerCalls.get()).as("the listener was called, and threw").isGreaterThan(before);
  }
}
