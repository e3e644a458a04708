package org.polyglotsandbox.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.ResourceLimits;
import org.graalvm.polyglot.SandboxPolicy;
import org.graalvm.polyglot.Source;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.polyglotsandbox.Language;

/**
 * Why task C (the sum of {@code (i*i) % 7} for {@code i < 1e6}) takes about 17 ms in a fresh GraalJS
 * context on a shared engine: does compiled code survive from one context to the next, and what in the
 * text, the {@link Source} or the engine changes the time? Each {@link Variant} is one experiment on a
 * raw {@link SandboxPolicy#CONSTRAINED} engine (no sandbox); each {@link Kernel} is the loop body.
 * {@link Kernel#INT_REMAINDER} is the same loop with {@code (i * 3) % 7}, whose values stay in the int
 * range, to separate the cost of the loop and the context from the cost of a floating-point remainder.
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * benchmarks/run FreshContextCompileBenchmark -rf json -rff benchmarks/target/fresh-context.json
 * }</pre>
 *
 * <p>24 trials of 20 x 1 s warm-up and 5 x 2 s measurement, about 15 minutes. The findings are in
 * docs/performance.md, section "Why task C is slow in a fresh context".
 *
 * <p>{@link #main} prints what the Truffle compiler compiles over many fresh contexts, or runs all
 * variants round-robin in one JVM (fairer than separate forks on a shared machine):
 *
 * <pre>{@code
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.FreshContextCompileBenchmark benchmarks/run trace
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.FreshContextCompileBenchmark benchmarks/run interleaved 60 40
 * }</pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 20, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 2, timeUnit = TimeUnit.SECONDS)
@Fork(1)
@State(Scope.Benchmark)
public class FreshContextCompileBenchmark {

  /** The loop's body expression. */
  public enum Kernel {
    /** Task C: {@code i*i} exceeds the int range from i = 46341, so the remainder is a {@code double %}. */
    DOUBLE_REMAINDER("(i * i) % 7", PeerTask.sumOfSquaresMod7(1_000_000)),
    /** The same loop with int values throughout. */
    INT_REMAINDER("(i * 3) % 7", 2_999_997);

    final String expression;
    final long expected;

    Kernel(String expression, long expected) {
      this.expression = expression;
      this.expected = expected;
    }

    /** Task C's text with this body: top-level {@code let}, last expression {@code s}. */
    String topLevelLet() {
      return "let s = 0; for (let i = 0; i < 1e6; i++) { s += " + expression + "; } s;";
    }

    String topLevelVar() {
      return "var s = 0; for (var i = 0; i < 1e6; i++) { s += " + expression + "; } s;";
    }

    /** The text inside a block: its completion value is still {@code s}, and the lets are block-scoped. */
    String block() {
      return "{" + topLevelLet() + "\n}";
    }

    /** The loop in a function called at once, returning {@code s}. */
    String function() {
      return "(function () { let s = 0; for (let i = 0; i < 1e6; i++) { s += " + expression
          + "; } return s; })();";
    }
  }

  /** One experiment: an engine configuration, a text and how it is evaluated. */
  public enum Variant {
    /** Task C's text; one {@link Source} object for every fresh context. */
    LET_ONE_SOURCE,
    /** Task C's text; a new {@link Source} of the same text and name per context (what the sandbox does). */
    LET_SOURCE_PER_RUN,
    /** As {@link #LET_SOURCE_PER_RUN}, with {@code Source.Builder.cached(false)}: no code sharing at all. */
    LET_UNCACHED_SOURCE,
    /** Task C's text under a new name per run ({@code main-<n>.js}): the name is part of the cache key. */
    LET_NAME_PER_RUN,
    /** Task C's text plus a comment never used before: nothing to share. */
    LET_UNIQUE_TEXT,
    /** The text with {@code var} instead of {@code let}: {@code s} and {@code i} are global-object properties. */
    VAR,
    /** The text wrapped in a block {@code { ... }}. */
    BLOCK,
    /** The loop inside a function expression called at once. */
    FUNCTION,
    /** {@link #FUNCTION}'s text evaluated again and again in one context: no context per run. */
    FUNCTION_ONE_CONTEXT,
    /** As {@link #LET_SOURCE_PER_RUN}, with the sandbox's statement limit (100 million, a new ResourceLimits per context). */
    LET_STATEMENT_LIMIT,
    /** As {@link #LET_SOURCE_PER_RUN}, on an engine with {@code engine.Mode=latency} (allowed under CONSTRAINED). */
    LET_LATENCY_MODE,
    /** As {@link #LET_UNIQUE_TEXT}, on an engine with {@code engine.Mode=latency}. */
    LET_UNIQUE_TEXT_LATENCY_MODE;

    boolean latencyMode() {
      return this == LET_LATENCY_MODE || this == LET_UNIQUE_TEXT_LATENCY_MODE;
    }
  }

  @Param
  public Variant variant;

  @Param
  public Kernel kernel;

  private Engine engine;
  private String text;
  private Source oneSource;
  private Context oneContext;
  private long runs;

  @Setup(Level.Trial)
  public void setUp() {
    Engine.Builder builder = Engine.newBuilder("js")
        .sandbox(SandboxPolicy.CONSTRAINED)
        .out(OutputStream.nullOutputStream())
        .err(OutputStream.nullOutputStream());
    if (variant.latencyMode()) {
      builder.option("engine.Mode", "latency");
    }
    engine = builder.build();
    RuntimeCheck.require("raw Engine", engine.getImplementationName(),
        !"Interpreted".equals(engine.getImplementationName()));
    text = switch (variant) {
      case VAR -> kernel.topLevelVar();
      case BLOCK -> kernel.block();
      case FUNCTION, FUNCTION_ONE_CONTEXT -> kernel.function();
      default -> kernel.topLevelLet();
    };
    oneSource = Source.newBuilder("js", text, "main.js").buildLiteral();
    if (variant == Variant.FUNCTION_ONE_CONTEXT) {
      oneContext = newContext(null);
    }
    Object first = run();
    System.out.println("# " + variant + " " + kernel + " = " + first + " (checked); text: " + text);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (oneContext != null) {
      oneContext.close();
    }
    engine.close();
  }

  /** One evaluation of the kernel as the variant says, its answer checked. */
  @Benchmark
  public Object run() {
    long n = ++runs;
    Source source = switch (variant) {
      case LET_ONE_SOURCE, FUNCTION_ONE_CONTEXT -> oneSource;
      case LET_UNCACHED_SOURCE -> Source.newBuilder("js", text, "main.js").cached(false).buildLiteral();
      case LET_NAME_PER_RUN -> Source.newBuilder("js", text, "main-" + n + ".js").buildLiteral();
      case LET_UNIQUE_TEXT, LET_UNIQUE_TEXT_LATENCY_MODE ->
          Source.newBuilder("js", text + "\n// run " + n + "\n", "main.js").buildLiteral();
      default -> Source.newBuilder("js", text, "main.js").buildLiteral();
    };
    Object value;
    if (oneContext != null) {
      value = oneContext.eval(source).asLong();
    } else {
      ResourceLimits limits = variant == Variant.LET_STATEMENT_LIMIT
          ? ResourceLimits.newBuilder().statementLimit(100_000_000L, null).build()
          : null;
      try (Context context = newContext(limits)) {
        value = context.eval(source).asLong();
      }
    }
    return Answers.require(variant, kernel, value, kernel.expected);
  }

  private Context newContext(ResourceLimits limits) {
    return Peer.rawContext(engine, Language.JAVASCRIPT, limits);
  }

  /**
   * Two diagnostics that JMH cannot give. {@code trace [contexts]} (the default) prints the Truffle
   * compilations over {@code contexts} (300) fresh contexts evaluating task C's text on one shared engine,
   * then over 20 fresh contexts with a unique text each; it needs a TRUSTED engine, since
   * {@code engine.TraceCompilation} is refused under CONSTRAINED. {@code interleaved [seconds] [rounds]}
   * sets up every variant and kernel in one JVM and runs them round-robin, one evaluation each per round,
   * for {@code seconds} (60) of warm-up and then {@code rounds} (40) measured rounds, and prints each one's
   * median and p90: on a shared machine, load then falls on all variants alike, which separate JMH forks
   * minutes apart cannot promise.
   */
  public static void main(String[] args) throws IOException {
    String mode = args.length > 0 ? args[0] : "trace";
    if (mode.equals("interleaved")) {
      interleaved(args.length > 1 ? Integer.parseInt(args[1]) : 60, args.length > 2 ? Integer.parseInt(args[2]) : 40);
      return;
    }
    int contexts = args.length > 1 ? Integer.parseInt(args[1]) : 300;
    String task = Kernel.DOUBLE_REMAINDER.topLevelLet();
    Path log = Files.createTempFile("truffle-compilations", ".log");
    log.toFile().deleteOnExit();
    try (Engine engine = Engine.newBuilder("js")
        .out(OutputStream.nullOutputStream())
        .err(OutputStream.nullOutputStream())
        .option("engine.TraceCompilation", "true")
        .option("log.file", log.toString())
        .build()) {
      System.out.println("runtime: " + engine.getImplementationName());
      report("same text", engine, contexts, n -> task, log);
      report("unique text", engine, 20, n -> task + "\n// run " + n + "\n", log);
    }
  }

  private static void interleaved(int warmUpSeconds, int rounds) {
    List<FreshContextCompileBenchmark> all = new ArrayList<>();
    for (Kernel k : Kernel.values()) {
      for (Variant v : Variant.values()) {
        FreshContextCompileBenchmark b = new FreshContextCompileBenchmark();
        b.kernel = k;
        b.variant = v;
        b.setUp();
        all.add(b);
      }
    }
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmUpSeconds);
    int warmUpRounds = 0;
    while (System.nanoTime() < end) {
      all.forEach(FreshContextCompileBenchmark::run);
      warmUpRounds++;
    }
    long[][] nanos = new long[all.size()][rounds];
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < all.size(); i++) {
        long start = System.nanoTime();
        all.get(i).run();
        nanos[i][r] = System.nanoTime() - start;
      }
    }
    System.out.printf("%d warm-up rounds in %d s, then %d measured rounds; ms per evaluation%n", warmUpRounds,
        warmUpSeconds, rounds);
    System.out.printf("%-17s %-29s %8s %8s %8s%n", "kernel", "variant", "median", "p90", "min");
    for (int i = 0; i < all.size(); i++) {
      long[] t = nanos[i].clone();
      Arrays.sort(t);
      System.out.printf("%-17s %-29s %8.2f %8.2f %8.2f%n", all.get(i).kernel, all.get(i).variant, t[t.length / 2] / 1e6,
          t[(int) Math.ceil(t.length * 0.9) - 1] / 1e6, t[0] / 1e6);
    }
    all.forEach(FreshContextCompileBenchmark::tearDown);
  }

  private static void report(String what, Engine engine, int contexts, LongFunction<String> text,
      Path log) throws IOException {
    long linesBefore = Files.readAllLines(log).size();
    long[] millis = new long[contexts];
    for (int n = 0; n < contexts; n++) {
      long start = System.nanoTime();
      try (Context context = Context.newBuilder("js").engine(engine).out(OutputStream.nullOutputStream())
          .err(OutputStream.nullOutputStream()).build()) {
        long v = context.eval(Source.newBuilder("js", text.apply(n), "main.js").buildLiteral()).asLong();
        Answers.require("raw engine", "C", v, Kernel.DOUBLE_REMAINDER.expected);
      }
      millis[n] = (System.nanoTime() - start) / 1_000_000;
    }
    List<String> lines = Files.readAllLines(log);
    List<String> done = lines.subList((int) linesBefore, lines.size()).stream()
        .filter(l -> l.contains("opt done") || l.contains("opt failed") || l.contains("opt deopt")
            || l.contains("opt inval"))
        .toList();
    System.out.printf("%s: %d fresh contexts, %d compilation events; first 5 runs %s ms, last 5 %s ms%n", what,
        contexts, done.size(), Arrays.toString(Arrays.copyOf(millis, Math.min(5, contexts))),
        Arrays.toString(Arrays.copyOfRange(millis, Math.max(0, contexts - 5), contexts)));
    done.forEach(l -> System.out.println("  " + (l.length() > 160 ? l.substring(0, 160) : l)));
  }
}
