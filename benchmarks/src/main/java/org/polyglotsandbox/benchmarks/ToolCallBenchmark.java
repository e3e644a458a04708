package org.polyglotsandbox.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Tool;

/**
 * The guest-to-host tool round trip: {@code tools.add({a, b})} from guest code (arguments copied out,
 * validated against a JSON Schema, handler run on a handler thread or, for an inline tool, on the guest
 * thread, result parsed back in the guest), against the same handler called directly from Java in the
 * same run.
 *
 * <p>Each {@code roundTrip} invocation is one sandbox run whose guest loop makes {@value #CALLS} calls;
 * {@code guestLoop} is the same run and loop calling a guest-local function instead, so
 * {@code roundTrip - guestLoop} is the gateway's cost per call with the run's fixed cost (fresh context,
 * a few milliseconds, spread over {@value #CALLS} calls) taken out. Scores are per call.
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * benchmarks/run ToolCallBenchmark
 * }</pre>
 *
 * <p>Besides JMH's mean per call, each measured iteration of {@code roundTrip} prints the median and tail
 * of the time between consecutive handler calls ({@link Intervals}), one full round trip each.
 *
 * <p>{@code result} picks what the tool answers: {@code NUMBER} (the sum, which Python receives as a
 * plain {@code int}) or {@code OBJECT} ({@code {"sum": n}}, which JavaScript parses from JSON and Python
 * builds from a flat tape). JavaScript and Python run in the same JMH run, one fork per parameter set, so
 * their numbers compare. The run below is measured against at most 10 microseconds median from a warm
 * run. Each invocation makes a fresh context, and on 2 cores the Truffle compiler keeps compiling
 * GraalPy's import machinery for about a minute of them, so the warm-up is long:
 *
 * <pre>{@code
 * benchmarks/run 'ToolCallBenchmark.roundTrip' -wi 16 -w 2s -i 5 -r 2s
 * }</pre>
 *
 * <p>Target: at most 10 microseconds median per call from a warm run (optimizing runtime on, small
 * arguments); see docs/performance.md, "Tool calls".
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(1) // inherits the JIT flags benchmarks/run starts JMH with
@State(Scope.Benchmark)
public class ToolCallBenchmark {
  static final int CALLS = 20_000;

  private static final Tool.Handler ADD = args -> (Long) args.get("a") + (Long) args.get("b");
  private static final String PARAMETERS = """
      {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
       "required": ["a", "b"], "additionalProperties": false}""";

  @Param({"JAVASCRIPT", "PYTHON"})
  public Language language;

  /** Where the handler runs: a handler thread (the default) or the guest's own ({@code Tool.Builder.inline()}). */
  @Param({"HANDLER_THREAD", "INLINE"})
  public String placement;

  /** What the tool answers: the sum as a number, or {@code {"sum": n}} (JSON on the way back). */
  @Param({"NUMBER", "OBJECT"})
  public String result;

  private final Intervals intervals = new Intervals();
  private PolyglotSandbox sandbox;
  private String toolLoop;
  private String guestLoop;
  private final Map<String, Object> arguments = Map.of("a", 1L, "b", 2L);

  @Setup(Level.Trial)
  public void setUp() {
    boolean object = "OBJECT".equals(result);
    Tool.Builder builder = Tool.builder("add").parameters(PARAMETERS)
        .result(object ? "{\"type\": \"object\", \"properties\": {\"sum\": {\"type\": \"integer\"}}}"
            : "{\"type\": \"integer\"}")
        .maxCallsPerRun(CALLS).handler(args -> {
          intervals.call();
          Object sum = ADD.call(args);
          return object ? Map.of("sum", sum) : sum;
        });
    Tool add = "INLINE".equals(placement) ? builder.inline().build() : builder.build();
    Policy policy = Policy.computeOnly(language).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofMinutes(1)).build())
        .allowTools("add").build();
    sandbox = PolyglotSandbox.builder().policy(policy).tool(add).build();
    if (!sandbox.isOptimizingRuntime()) {
      throw new IllegalStateException("not on the optimizing runtime: " + sandbox.runtimeName());
    }
    toolLoop = loop("tools.add", object);
    guestLoop = loop("add", object);
    check(sandbox.run(language, toolLoop));
    check(sandbox.run(language, guestLoop));
  }

  private String loop(String callee, boolean object) {
    return language == Language.JAVASCRIPT
        ? "const add = (o) => " + (object ? "({sum: o.a + o.b})" : "o.a + o.b") + ";\nlet s = 0;\nfor (let i = 0; i < "
            + CALLS + "; i++) { s += " + callee + "({a: i, b: 1})" + (object ? ".sum" : "") + "; }\ns"
        : "def add(a, b):\n    return " + (object ? "{'sum': a + b}" : "a + b") + "\ns = 0\nfor i in range(" + CALLS
            + "):\n    s += " + callee + "(a=i, b=1)" + (object ? "['sum']" : "") + "\ns";
  }

  private static long check(ExecutionResult r) {
    long expected = (long) CALLS * (CALLS - 1) / 2 + CALLS;
    if (!r.isOk() || !Long.valueOf(expected).equals(r.value())) {
      throw new IllegalStateException("unexpected result: " + r);
    }
    return expected;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    sandbox.close();
  }

  /** Prints the per-call distribution the iteration's {@link #roundTrip} runs recorded. */
  @TearDown(Level.Iteration)
  public void printIntervals() {
    String summary = intervals.summaryAndClear();
    if (summary != null) {
      System.out.println("\n# " + language + " " + placement + " " + result + " per-call round trip: " + summary);
    }
  }

  /** {@value #CALLS} tool calls in one run. */
  @Benchmark
  @OperationsPerInvocation(CALLS)
  public ExecutionResult roundTrip() {
    intervals.startRun();
    return sandbox.run(language, toolLoop);
  }

  /** The same run with a guest-local function in place of the tool. */
  @Benchmark
  @OperationsPerInvocation(CALLS)
  public ExecutionResult guestLoop() {
    return sandbox.run(language, guestLoop);
  }

  /** The handler called from Java with the same (already copied) arguments: the floor. */
  @Benchmark
  public void directJava(Blackhole bh) throws Exception {
    bh.consume(ADD.call(arguments));
  }

  /**
   * The time between one handler call and the next within a run: one whole round trip each (guest loop,
   * gateway, handler, back), so that a median per call can be given, not only JMH's mean. Calls of one
   * run are sequential, and each hands over to the next through the gateway, so plain fields suffice.
   */
  static final class Intervals {
    private final long[] samples = new long[1 << 22];
    private int size;
    private long last;

    void startRun() {
      last = 0;
    }

    void call() {
      long now = System.nanoTime();
      if (last != 0 && size < samples.length) {
        samples[size++] = now - last;
      }
      last = now;
    }

    /** Median, p90, p99 and p99.9 in microseconds, or null if nothing was recorded; then forgets them. */
    String summaryAndClear() {
      if (size == 0) {
        return null;
      }
      long[] sorted = java.util.Arrays.copyOf(samples, size);
      java.util.Arrays.sort(sorted);
      size = 0;
      return String.format("p50 %.2f us, p90 %.2f us, p99 %.2f us, p99.9 %.2f us (%d calls)",
          at(sorted, 0.5), at(sorted, 0.9), at(sorted, 0.99), at(sorted, 0.999), sorted.length);
    }

    private static double at(long[] sorted, double quantile) {
      return sorted[(int) Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] / 1000.0;
    }
  }
}
