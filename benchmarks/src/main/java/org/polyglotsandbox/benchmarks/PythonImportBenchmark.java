package org.polyglotsandbox.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * Importing a real pure-Python package from a read-only mount: the first run of a sandbox against a
 * later run of the same sandbox (the target: the later run's import costs at most 10% of the first's,
 * if the engine reuses the package's compiled code).
 *
 * <p>The package is pyparsing 3.0.9 (10,451 lines) as Debian's {@code python3-pyparsing} installs it
 * ({@code apt-get install python3-pyparsing}); {@code -p packageDir=...} points elsewhere. Each
 * invocation is one run whose score is the import's own time as the guest measures it
 * ({@code time.perf_counter()} around {@code import pyparsing}), so the run's set-up is left out.
 * {@code firstRun} builds a new sandbox before each invocation (not timed) and imports once in it;
 * {@code laterRun} imports in a sandbox that has already imported the package in two earlier runs. Both
 * live in one JVM, so GraalPy's own Java code is equally warm for both. {@code pooledAhead} runs the
 * same program in a sandbox built with {@code warmContexts(1)}, {@code pythonPath("/pkgs")} and
 * {@code pythonImports("pyparsing")}, after its pooled context has imported the package (set-up, not
 * timed): the run compares the mount with the host and finds the module loaded.
 *
 * <p>The score is the caller's time for the whole run ({@code sandbox.run}); the import's own time as
 * the guest measured it is printed beside it.
 *
 * <p>Run from the repository root:
 *
 * <pre>{@code
 * benchmarks/run PythonImportBenchmark
 * }</pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 4)
@Fork(1) // inherits the JIT flags benchmarks/run starts JMH with
public class PythonImportBenchmark {
  private static final String IMPORT = """
      import sys, time
      sys.path.insert(0, '/pkgs')
      t = time.perf_counter()
      import pyparsing
      (time.perf_counter() - t) * 1000
      """;

  /** The directory of the package, mounted read-only at {@code /pkgs/pyparsing}. */
  @State(Scope.Benchmark)
  public static class Package {
    @Param("/usr/lib/python3/dist-packages/pyparsing")
    public String packageDir;

    PolyglotSandbox newSandbox() {
      return builder().build();
    }

    PolyglotSandbox.Builder builder() {
      Path dir = Path.of(packageDir);
      if (!Files.isDirectory(dir)) {
        throw new IllegalStateException(packageDir + " is not a directory: install python3-pyparsing or pass"
            + " -p packageDir=<a pyparsing package directory>");
      }
      Policy policy = Policy.builder().allowLanguages(Language.PYTHON)
          .mount(Mount.readOnly(dir, "/pkgs/pyparsing"))
          .limits(Limits.builder().wallTime(Duration.ofMinutes(5)).maxCpuTime(Duration.ofMinutes(5))
              .maxFiles(10_000).maxFileBytes(256L << 20).build())
          .build();
      return PolyglotSandbox.builder().policy(policy);
    }
  }

  /** A sandbox made fresh before every invocation: its first run imports the package. */
  @State(Scope.Thread)
  public static class Fresh {
    PolyglotSandbox sandbox;

    @Setup(Level.Invocation)
    public void setUp(Package p) {
      sandbox = p.newSandbox();
    }

    @TearDown(Level.Invocation)
    public void tearDown() {
      sandbox.close();
    }
  }

  /** One sandbox for the trial that has imported the package twice before anything is measured. */
  @State(Scope.Thread)
  public static class Used {
    PolyglotSandbox sandbox;

    @Setup(Level.Trial)
    public void setUp(Package p) {
      sandbox = p.newSandbox();
      importTime(sandbox);
      importTime(sandbox);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      sandbox.close();
    }
  }

  /** A sandbox whose pooled Python context imports the package before the run; it waits for one before each. */
  @State(Scope.Thread)
  public static class Ahead {
    PolyglotSandbox sandbox;

    @Setup(Level.Trial)
    public void setUp(Package p) {
      sandbox = p.builder().warmContexts(1).pythonPath("/pkgs").pythonImports("pyparsing").build();
    }

    @Setup(Level.Invocation)
    public void awaitPooledContext() throws InterruptedException {
      PythonImportsBenchmark.awaitPooledPython(sandbox, Duration.ofMinutes(5));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      sandbox.close();
    }
  }

  static double importTime(PolyglotSandbox sandbox) {
    ExecutionResult r = sandbox.run(Language.PYTHON, IMPORT);
    if (!r.isOk() || !(r.value() instanceof Number ms)) {
      throw new IllegalStateException("the import failed: " + r);
    }
    System.out.printf("%n# import took %.0f ms in the guest; run wall %s, guest CPU %s, set-up %s, queue %s%n",
        ms.doubleValue(), r.usage().wallTime(), r.usage().cpuTime(), r.usage().setupTime(), r.usage().queueTime());
    return ms.doubleValue();
  }

  /** The import in the first run of a new sandbox. */
  @Benchmark
  public double firstRun(Fresh fresh) {
    return importTime(fresh.sandbox);
  }

  /** The same run in a sandbox whose pooled context imported the package while it waited. */
  @Benchmark
  public double pooledAhead(Ahead ahead) {
    return importTime(ahead.sandbox);
  }

  /** The import in a run of a sandbox whose earlier runs imported it already. */
  @Benchmark
  public double laterRun(Used used) {
    return importTime(used.sandbox);
  }
}
