package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Hostile guest values, as a property: for every hostile value {@link HostileValues} makes, at every
 * boundary it can cross (the run's result, a tool argument of an inline and of a handler-thread tool,
 * the whole argument object, a thrown error, printed output, {@code readText}'s path), the sandbox
 *
 * <ul>
 *   <li>never ends the run {@code INTERNAL_ERROR} (or anything but OK, GUEST_ERROR, OUTPUT_REJECTED,
 *       LIMIT_EXCEEDED), and an {@code OUTPUT_REJECTED} names the path where the value was refused;
 *   <li>shows the guest, and returns to the host, no host class name or host frame: in the result, the
 *       error, the guest frames, stdout and stderr, and in whatever a guest {@code catch} of a failed
 *       tool call or {@code readText} sees (the guest returns it);
 *   <li>hands a tool handler plain data only;
 *   <li>makes the host neither log a stack trace or an error nor print a host frame on stderr;
 *   <li>keeps serving: a trivial run after every few cases still answers.
 * </ul>
 *
 * <p>The fast share (a few hundred cases) runs by default and in CI; the slow share (tens of thousands,
 * about two hours on two cores) is tagged {@code fuzz}, outside the CI's slow suite, and runs on demand
 * with {@code bin/mvn -B test -pl src/library -DexcludedGroups= -Dgroups=fuzz -Dtest=HostileValuesPropertyTest}.
 * Every case derives from a seed, printed when the suite starts and with each failure; replay one
 * with {@code -Dsandbox.hostile.seed=SEED -Dsandbox.hostile.try=N}. {@code -Dsandbox.hostile.tries=N}
 * sets the number of cases of each share.
 */
@Tag("slow")
class HostileValuesPropertyTest {
  private static final long SEED = Long.getLong("sandbox.hostile.seed", new SplittableRandom().nextLong());
  private static final Integer ONLY_TRY = Integer.getInteger("sandbox.hostile.try");
  private static final Integer TRIES = Integer.getInteger("sandbox.hostile.tries");
  private static final int FAILURES_SHOWN = 8;
  private static final int SERVING_CHECK_EVERY = 20;

  /** Host detail a guest must never see: class names of host packages, Java frames, polyglot wrappers. */
  private static final Pattern HOST_DETAIL = Pattern.compile(
      "\\b(?:java\\.|javax\\.|jdk\\.internal|sun\\.|com\\.oracle\\.|org\\.graalvm\\.|org\\.polyglotsandbox\\.)"
          + "|\\bat [\\w.$]+\\([\\w$]+\\.java|HostException|ForeignException|PolyglotException|\\bpolyglot\\b"
          + "|\\bValue\\.[a-z]\\w*\\(|\\(language: ");

  private static final AtomicInteger handlerCalls = new AtomicInteger();
  private static final List<String> handlerProblems = new ArrayList<>();
  private static PolyglotSandbox sandbox;

  /** Where a hostile value meets the host. */
  enum Boundary { RESULT, TOOL_INLINE, TOOL_THREAD, TOOL_WHOLE, THROWN, PRINTED, READ_TEXT }

  @BeforeAll
  static void build() {
    System.out.println("HostileValuesPropertyTest: seed " + SEED + " (replay with -Dsandbox.hostile.seed=" + SEED + ")");
    Limits limits = Limits.builder().wallTime(Duration.ofSeconds(10)).maxCpuTime(Duration.ofSeconds(10))
        .maxStatements(3_000_000).maxResultNodes(5_000).maxResultStringLength(200_000).maxResultChars(2_000_000)
        .maxOutputBytes(64 << 10).maxAllocatedBytes(768L << 20).build();
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder().limits(limits)
            .allowTools("take", "slow").build())
        .tool(Tool.builder("take").inline().parameters("{\"type\": \"object\"}").handler(HostileValuesPropertyTest::handle)
            .build())
        .tool(Tool.builder("slow").parameters("{\"type\": \"object\"}").handler(HostileValuesPropertyTest::handle).build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static Object handle(Map<String, Object> args) {
    handlerCalls.incrementAndGet();
    String wrong = notPlain(args);
    if (wrong != null) {
      synchronized (handlerProblems) {
        handlerProblems.add(wrong);
      }
    }
    return "taken";
  }

  /** What in {@code o} is not plain data, or null. */
  private static String notPlain(Object o) {
    if (o == null || o instanceof Boolean || o instanceof Long || o instanceof Double || o instanceof String
        || o instanceof java.math.BigInteger) {
      return null;
    }
    if (o instanceof List<?> l) {
      for (Object e : l) {
        String w = notPlain(e);
        if (w != null) {
          return w;
        }
      }
      return null;
    }
    if (o instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        String w = e.getKey() instanceof String ? notPlain(e.getValue()) : "a key of " + e.getKey().getClass();
        if (w != null) {
          return w;
        }
      }
      return null;
    }
    return "a " + o.getClass().getName();
  }

  @Test
  void javascript_fastShare() {
    property(Language.JAVASCRIPT, TRIES != null ? TRIES : 200);
  }

  @Test
  void python_fastShare() {
    property(Language.PYTHON, TRIES != null ? TRIES : 30);
  }

  @Test
  @Tag("fuzz")
  void javascript_slowShare() {
    property(Language.JAVASCRIPT, TRIES != null ? TRIES : 20_000);
  }

  @Test
  @Tag("fuzz")
  void python_slowShare() {
    property(Language.PYTHON, TRIES != null ? TRIES : 5_000);
  }

  /** One generated case: where, and the program. */
  record Case(int index, Boundary boundary, String program) {}

  private void property(Language language, int tries) {
    List<String> failures = new ArrayList<>();
    java.util.Map<String, Integer> seen = new java.util.TreeMap<>();
    int failed = 0;
    try (HostOutput host = HostOutput.capture()) {
      for (int i = 0; i < tries; i++) {
        if (ONLY_TRY != null && i != ONLY_TRY) {
          continue;
        }
        Case c = generate(language, i);
        ExecutionResult r = sandbox.run(Script.of(language, c.program()).named("hostile" + i));
        seen.merge(c.boundary() + " " + r.outcome() + (r.isOk() && String.valueOf(r.value()).contains("|")
            ? " (caught)" : ""), 1, Integer::sum);
        if (ONLY_TRY != null) {
          System.out.println("program:\n" + c.program() + "\nresult: " + r);
        }
        List<String> problems = check(c, r);
        problems.addAll(host.problemsSinceLastCheck());
        synchronized (handlerProblems) {
          handlerProblems.forEach(p -> problems.add("a handler received " + p));
          handlerProblems.clear();
        }
        if (i % SERVING_CHECK_EVERY == SERVING_CHECK_EVERY - 1 || i == tries - 1) {
          ExecutionResult trivial = sandbox.run(language, "6 * 7");
          if (!trivial.isOk() || !Long.valueOf(42).equals(trivial.value())) {
            problems.add("the sandbox stopped serving: 6 * 7 gave " + trivial);
          }
        }
        if (!problems.isEmpty()) {
          failed++;
          if (failures.size() < FAILURES_SHOWN) {
            failures.add("try " + i + " (" + c.boundary() + ", replay: -Dsandbox.hostile.seed=" + SEED
                + " -Dsandbox.hostile.try=" + i + "):\n  " + String.join("\n  ", problems) + "\n  program:\n"
                + abbreviate(c.program(), 3000).indent(4));
          }
        }
      }
    }
    System.out.println("HostileValuesPropertyTest " + language.id() + ", " + tries + " cases: " + seen);
    assertThat(failures).as("%d of %d %s cases broke an invariant (seed %d)", failed, tries, language.id(), SEED)
        .isEmpty();
  }

  private static Case generate(Language language, int index) {
    SplittableRandom random = new SplittableRandom(SEED + index * 0x9E3779B97F4A7C15L);
    HostileValues values = new HostileValues(random, language);
    List<Boundary> boundaries = language == Language.JAVASCRIPT ? List.of(Boundary.values())
        : List.of(Boundary.RESULT, Boundary.TOOL_INLINE, Boundary.TOOL_THREAD, Boundary.TOOL_WHOLE, Boundary.THROWN,
            Boundary.PRINTED);
    Boundary b = boundaries.get(random.nextInt(boundaries.size()));
    return new Case(index, b, language == Language.JAVASCRIPT ? javascript(b, values) : python(b, values));
  }

  private static final String JS_DESCRIBE = """
      const __describe = (e) => {
        const parts = [];
        for (const f of [() => typeof e, () => Object.prototype.toString.call(e), () => String(e),
            () => e instanceof Error ? e.name + ': ' + e.message : '', () => e instanceof Error ? e.stack : '',
            () => typeof e === 'object' && e !== null ? typeof e.getClass : '']) {
          try { parts.push(String(f()).slice(0, 2000)); } catch (x) { parts.push('?'); }
        }
        return parts.join('|');
      };
      """;

  private static String javascript(Boundary b, HostileValues values) {
    String v = "(" + values.value() + ")"; // never a block
    return switch (b) {
      case RESULT -> v;
      case TOOL_INLINE -> JS_DESCRIBE + "(() => { try { tools.take({v: " + v + "}); return 'called'; } catch (e) {"
          + " return __describe(e); } })()";
      case TOOL_THREAD -> JS_DESCRIBE + "(() => { try { tools.slow({v: " + v + ", w: [" + v + "]}); return 'called'; }"
          + " catch (e) { return __describe(e); } })()";
      case TOOL_WHOLE -> JS_DESCRIBE + "(() => { try { tools.take(" + v + "); return 'called'; } catch (e) {"
          + " return __describe(e); } })()";
      case THROWN -> "throw " + values.jsThrown() + ";";
      case PRINTED -> "console.log(" + v + "); console.error([" + v + "]); 1";
      case READ_TEXT -> JS_DESCRIBE + "(() => { try { return readText(" + v + "); } catch (e) { return __describe(e); } })()";
    };
  }

  private static final String PY_DESCRIBE = """
      def __describe(e):
          parts = []
          for f in (lambda: type(e).__module__, lambda: type(e).__qualname__, lambda: str(e), lambda: repr(type(e))):
              try:
                  parts.append(str(f())[:2000])
              except BaseException:
                  parts.append('?')
          return '|'.join(parts)
      """;

  private static String python(Boundary b, HostileValues values) {
    String prelude = HostileValues.PYTHON_PRELUDE;
    return switch (b) {
      case RESULT -> prelude + values.value();
      case TOOL_INLINE -> prelude + PY_DESCRIBE + attempt("tools.take(v=" + values.value() + ")");
      case TOOL_THREAD -> prelude + PY_DESCRIBE + attempt("tools.slow(v=" + values.value() + ", w=[" + values.value() + "])");
      case TOOL_WHOLE -> prelude + PY_DESCRIBE + attempt("tools.take(" + values.value() + ")");
      case THROWN -> prelude + values.pyRaise();
      case PRINTED -> prelude + "print(" + values.value() + ")\nprint(" + values.value() + ", file=_sys.stderr)\n1";
      case READ_TEXT -> throw new IllegalArgumentException("Python has no readText");
    };
  }

  private static String attempt(String call) {
    return "try:\n    " + call + "\n    __r = 'called'\nexcept BaseException as e:\n    __r = __describe(e)\n__r\n";
  }

  /** The invariants every run must keep. */
  private static List<String> check(Case c, ExecutionResult r) {
    List<String> problems = new ArrayList<>();
    if (!List.of(Outcome.OK, Outcome.GUEST_ERROR, Outcome.OUTPUT_REJECTED, Outcome.LIMIT_EXCEEDED).contains(r.outcome())) {
      problems.add("outcome " + r.outcome() + ": " + r.errorMessage().orElse(""));
    }
    if (r.outcome() == Outcome.OUTPUT_REJECTED) {
      SandboxEvent.OutputRejected o = r.outputRejection().orElse(null);
      if (o == null || !o.path().startsWith("$") || !r.errorMessage().orElse("").contains(o.path() + ": ")) {
        problems.add("a rejection that names no path: " + r.errorMessage().orElse("") + " / " + o);
      }
    }
    List<String> texts = new ArrayList<>(List.of(r.errorMessage().orElse(""), r.stdout(), r.stderr(),
        String.join("\n", r.guestStackTrace())));
    if (r.value() != null) {
      texts.add(abbreviate(String.valueOf(r.value()), 1_000_000));
    }
    for (SandboxEvent e : r.events()) {
      texts.add(e.toString());
    }
    for (String t : texts) {
      var m = HOST_DETAIL.matcher(t);
      if (m.find()) {
        problems.add("host detail '" + m.group() + "' in: "
            + abbreviate(t.substring(Math.max(0, m.start() - 200)), 600));
      }
    }
    return problems;
  }

  private static String abbreviate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "... (" + (s.length() - max) + " more characters)";
  }
}
