package org.polyglotsandbox.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.script.Bindings;
import javax.script.ScriptEngine;
import javax.script.ScriptException;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.ResourceLimits;
import org.graalvm.polyglot.SandboxPolicy;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.openjdk.nashorn.api.scripting.NashornScriptEngineFactory;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * The named alternatives, each behind the tiny {@link Runner} adapter: one runner per trial,
 * one brand-new environment per task (no state survives from one task to the next in any design).
 * Unlike {@link Design}, a runner takes the program text on every call, so that a benchmark can hand it
 * a text it has never seen ({@link PeerTask.SourceMode#UNIQUE}).
 *
 * <p>Runners are safe to call from several threads at once ({@link PeersThroughputBenchmark}).
 */
public enum Peer {
  /**
   * The floor: a fresh context per task on one shared GraalVM {@link Engine}, {@link SandboxPolicy#CONSTRAINED},
   * output discarded, on the caller's thread. No sandboxing beyond the policy: no file system, thread,
   * watchdog, statement limit or result copy. Each task's text becomes a new {@link Source}; GraalVM's
   * source cache finds the code of an identical text again.
   */
  RAW_SHARED_ENGINE {
    @Override
    Runner open(Language language) {
      return raw(language, null);
    }
  },

  /**
   * {@link #RAW_SHARED_ENGINE} with GraalVM's statement limit set as the sandbox sets it by default
   * ({@link Limits#maxStatements()}): what that one layer costs, instrumenting every statement of fresh code.
   */
  RAW_STATEMENT_LIMIT {
    @Override
    Runner open(Language language) {
      return raw(language, ResourceLimits.newBuilder()
          .statementLimit(Limits.builder().build().maxStatements(), null).build());
    }
  },

  /**
   * {@link #RAW_STATEMENT_LIMIT} with each text's {@link Source} built {@code cached(false)}, so that the
   * engine keeps nothing of a finished task's code: what a hand-tuned embedder of raw contexts would do for
   * texts that run once, and what the sandbox does for a text's first run (its {@code SourceCache}). The
   * reference for where the sandbox's gain over {@link #RAW_STATEMENT_LIMIT} with new texts comes from.
   */
  RAW_STATEMENT_LIMIT_UNCACHED {
    @Override
    Runner open(Language language) {
      return raw(language, ResourceLimits.newBuilder()
          .statementLimit(Limits.builder().build().maxStatements(), null).build(), false);
    }
  },

  /**
   * {@link #RAW_STATEMENT_LIMIT} with each context made and initialised (its realm created by a first
   * evaluation, as the sandbox's warm pool does) on one thread of its own, two kept ready, and the task's
   * text evaluated on the caller's thread: what a context made on one thread and used on another costs
   * on its own, without the sandbox's layers.
   */
  RAW_PREPARED_ELSEWHERE {
    @Override
    Runner open(Language language) {
      return preparedElsewhere(language, ResourceLimits.newBuilder()
          .statementLimit(Limits.builder().build().maxStatements(), null).build());
    }
  },

  /**
   * LangChain4j's GraalVM code-execution engines, reproduced on GraalVM 25.0.3: a context with its own
   * engine per task, closed afterwards, nothing shared. This is what
   * {@code dev.langchain4j:langchain4j-code-execution-engine-graalvm-polyglot:1.0.0-beta5} configures in
   * {@code GraalVmJavaScriptExecutionEngine.execute} and {@code GraalVmPythonExecutionEngine.execute}
   * (read from its class files): {@code Context.newBuilder(id).sandbox(CONSTRAINED)} for JavaScript and
   * {@code sandbox(TRUSTED)} for Python, {@code allowHostAccess(HostAccess.UNTRUSTED)}, {@code out} and
   * {@code err} into one {@link ByteArrayOutputStream}, then
   * {@code String.valueOf(context.eval(id, code).as(Object.class))}. The artifact itself pins GraalVM
   * 24.1.1, which cannot use the optimizing runtime on JDK 25, so its class is not run here: the same
   * calls are made against the 25.0.3 polyglot API on the class path.
   */
  FRESH_ENGINE_CONTEXT {
    @Override
    Runner open(Language language) {
      SandboxPolicy policy = language == Language.JAVASCRIPT ? SandboxPolicy.CONSTRAINED : SandboxPolicy.TRUSTED;
      try (Context probe = newContext(language, policy, OutputStream.nullOutputStream())) {
        String name = probe.getEngine().getImplementationName();
        RuntimeCheck.require("LangChain4j-style fresh engine", name, !"Interpreted".equals(name));
      }
      return new Runner() {
        @Override
        public Object run(String code) {
          ByteArrayOutputStream output = new ByteArrayOutputStream();
          try (Context context = newContext(language, policy, output)) {
            return String.valueOf(context.eval(language.id(), code).as(Object.class));
          }
        }

        @Override
        public void close() {}
      };
    }

    private static Context newContext(Language language, SandboxPolicy policy, OutputStream output) {
      return Context.newBuilder(language.id())
          .sandbox(policy)
          .allowHostAccess(HostAccess.UNTRUSTED)
          .out(output)
          .err(output)
          .build();
    }
  },

  /**
   * Nashorn 15.7 (the standalone {@code org.openjdk.nashorn:nashorn-core}): one script engine with
   * {@code --language=es6 --no-java} and a class filter that admits no host class, fresh
   * {@link Bindings} (a new global) per task. Nashorn's own class cache keeps compiled code for a text
   * it has seen. Nashorn script engines are not thread-safe, so each calling thread gets its own.
   */
  NASHORN {
    @Override
    Runner open(Language language) {
      requireJavaScript(language);
      NashornScriptEngineFactory factory = new NashornScriptEngineFactory();
      ThreadLocal<ScriptEngine> engines = ThreadLocal.withInitial(() -> factory.getScriptEngine(
          new String[] {"--language=es6", "--no-java"}, Peer.class.getClassLoader(), className -> false));
      return new Runner() {
        @Override
        public Object run(String code) {
          ScriptEngine engine = engines.get();
          try {
            return engine.eval(code, engine.createBindings());
          } catch (ScriptException e) {
            throw new IllegalStateException("Nashorn failed: " + e.getMessage(), e);
          }
        }

        @Override
        public void close() {}
      };
    }
  },

  /**
   * Rhino 1.8.1 in interpreted mode ({@code setInterpretedMode(true)}), language version ES6: a fresh
   * {@code initSafeStandardObjects()} scope (no Java access) per task, {@code evaluateString} of the
   * text. Rhino keeps no compiled scripts between calls, so {@code SAME} and {@code UNIQUE} do the same
   * work. Interpreted rather than compiled mode: compiled mode generates and loads a new class for every
   * {@code evaluateString}, which made tasks A and B 2-10x slower in a trial run.
   */
  RHINO {
    @Override
    Runner open(Language language) {
      requireJavaScript(language);
      return new Runner() {
        @Override
        public Object run(String code) {
          try (org.mozilla.javascript.Context cx = org.mozilla.javascript.Context.enter()) {
            cx.setLanguageVersion(org.mozilla.javascript.Context.VERSION_ES6);
            cx.setInterpretedMode(true);
            org.mozilla.javascript.Scriptable scope = cx.initSafeStandardObjects();
            return cx.evaluateString(scope, code, "main.js", 1, null);
          }
        }

        @Override
        public void close() {}
      };
    }
  },

  /**
   * This project's sandbox without a pool, through its public API only:
   * {@code PolyglotSandbox.builder().policy(Policy.builder().allowLanguages(language).limits(...).build()).build()},
   * then {@code sandbox.run(language, code)} per task. The limits are the defaults except a wall time of
   * one minute instead of 10 s: on a loaded machine a first Python task C, still interpreted, took over
   * 10 s of wall time (1.8 s of CPU) and was stopped. The deadline is scheduled on every run either way.
   */
  SANDBOX {
    @Override
    Runner open(Language language) {
      return sandbox(PolyglotSandbox.builder().policy(policy(language)).build(), language);
    }
  },

  /**
   * The sandbox with a warm pool of two untouched contexts per language ({@code warmContexts(2)}),
   * otherwise as {@link #SANDBOX}. Each run takes a context no guest has touched and closes it; the pool
   * refills in the background. {@link Runner#awaitReady()} waits (outside the measurement) until the pool
   * is full again: the case of requests arriving slower than the pool refills, and no refill competing
   * with the measured run for the CPU (a context costs 2-4 ms to make, more than most tasks). Back to back
   * (the throughput benchmark) each run's thread makes the next context after its run, so most runs
   * still find one ready; the CPU per task is the same either way.
   */
  SANDBOX_POOLED {
    @Override
    Runner open(Language language) {
      return pooled(language, Duration.ZERO);
    }
  },

  /**
   * {@link #SANDBOX_POOLED} called from the sandbox's own {@link PolyglotSandbox#callerThreads()}: each
   * run executes on the client's thread, with no hand-off to a run thread, and that thread then makes
   * the pool's next context itself. Only a harness that makes its client threads with
   * {@link Runner#clientThreads()} measures this design as meant ({@link ThroughputRounds} does).
   */
  SANDBOX_CALLER_THREADS {
    @Override
    Runner open(Language language) {
      return pooled(language, Duration.ZERO, true);
    }
  };

  /** Builds this design's runner for one language; checks that GraalVM designs run optimized. */
  abstract Runner open(Language language);

  /** A shared {@link SandboxPolicy#CONSTRAINED} engine, output discarded, checked to run optimized. */
  static Engine rawEngine(Language language) {
    Engine engine = Engine.newBuilder(language.id())
        .sandbox(SandboxPolicy.CONSTRAINED)
        .out(OutputStream.nullOutputStream())
        .err(OutputStream.nullOutputStream())
        .build();
    try {
      String name = engine.getImplementationName();
      RuntimeCheck.require("raw Engine", name, !"Interpreted".equals(name));
    } catch (RuntimeException e) {
      engine.close();
      throw e;
    }
    return engine;
  }

  /** A fresh context per task on one shared engine; with {@code limits} if not null. */
  private static Runner raw(Language language, ResourceLimits limits) {
    return raw(language, limits, true);
  }

  /** As {@link #raw(Language, ResourceLimits)}, each text's source cached by the engine or not. */
  private static Runner raw(Language language, ResourceLimits limits, boolean cached) {
    Engine engine = rawEngine(language);
    return new Runner() {
      @Override
      public Object run(String code) {
        try (Context context = rawContext(engine, language, limits)) {
          // With cached, the same source as Source.create(id, code) (equal to it).
          Value value = context.eval(Source.newBuilder(language.id(), code, "Unnamed").cached(cached).buildLiteral());
          return value.fitsInLong() ? (Object) value.asLong() : value.toString();
        }
      }

      @Override
      public void close() {
        engine.close();
      }
    };
  }

  /** A raw context on {@code engine}: CONSTRAINED, output discarded, {@code limits} if not null. */
  static Context rawContext(Engine engine, Language language, ResourceLimits limits) {
    Context.Builder builder = Context.newBuilder(language.id())
        .engine(engine)
        .sandbox(SandboxPolicy.CONSTRAINED)
        .out(OutputStream.nullOutputStream())
        .err(OutputStream.nullOutputStream());
    if (limits != null) {
      builder.resourceLimits(limits);
    }
    return builder.build();
  }

  private static Runner preparedElsewhere(Language language, ResourceLimits limits) {
    Engine engine = rawEngine(language);
    java.util.concurrent.BlockingQueue<Context> ready = new java.util.concurrent.ArrayBlockingQueue<>(2);
    Thread maker = Thread.ofPlatform().daemon().name("raw-context-maker").start(() -> {
      try {
        while (true) {
          Context c = rawContext(engine, language, limits);
          c.eval(language.id(), "0");   // creates the realm here, as the warm pool's readText install does
          ready.put(c);
        }
      } catch (InterruptedException closed) {
        // the runner was closed
      } catch (RuntimeException e) {
        if (!Thread.currentThread().isInterrupted()) {
          throw e;
        }
      }
    });
    return new Runner() {
      @Override
      public Object run(String code) {
        Context context;
        try {
          context = ready.take();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
        try (context) {
          Value value = context.eval(Source.create(language.id(), code));
          return value.fitsInLong() ? (Object) value.asLong() : value.toString();
        }
      }

      @Override
      public void close() {
        maker.interrupt();
        try {
          maker.join(10_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        ready.forEach(Context::close);
        engine.close();
      }
    };
  }

  /** Runs one task's text in a brand-new environment; {@link #close()} releases the engine or sandbox. */
  interface Runner extends AutoCloseable {
    /** Runs {@code code} once and returns its value as the design hands it out (number or string). */
    Object run(String code);

    /** Waits, outside any measurement, until the design is ready for the next task (its pool refilled). */
    default void awaitReady() {}

    /** Where a harness makes its client threads for this design: plain platform threads, unless the design needs its own. */
    default ThreadFactory clientThreads() {
      return Thread.ofPlatform().factory();
    }

    @Override
    void close();
  }

  /** The policy of {@link #SANDBOX} (and of {@link #SANDBOX_POOLED}, so that the two differ only by the pool). */
  static Policy policy(Language language) {
    return Policy.builder().allowLanguages(language)
        .limits(Limits.builder().wallTime(Duration.ofMinutes(1)).build())
        .build();
  }

  /**
   * The runner of {@link #SANDBOX_POOLED}, built with {@code warmUp(warmUp)} ({@link Duration#ZERO}: the
   * design as benchmarked); {@link FirstTasksAfterBuild} measures what a warm-up changes.
   */
  static Runner pooled(Language language, Duration warmUp) {
    return pooled(language, warmUp, false);
  }

  /** As {@link #pooled(Language, Duration)}; with {@code callerThreads}, clients call from the sandbox's {@link PolyglotSandbox#callerThreads()}. */
  static Runner pooled(Language language, Duration warmUp, boolean callerThreads) {
    int poolSize = 2;
    PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy(language)).warmContexts(poolSize)
        .warmUp(warmUp).build();
    Runner runner = sandbox(sandbox, language);
    return new Runner() {
      @Override
      public Object run(String code) {
        return runner.run(code);
      }

      @Override
      public ThreadFactory clientThreads() {
        return callerThreads ? sandbox.callerThreads() : Thread.ofPlatform().factory();
      }

      @Override
      public void awaitReady() {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (sandbox.warmContexts(language) < poolSize) {
          if (System.nanoTime() > end) {
            throw new IllegalStateException("the warm pool did not refill within 60 s");
          }
          LockSupport.parkNanos(100_000);
        }
      }

      @Override
      public void close() {
        runner.close();
      }
    };
  }

  static Runner sandbox(PolyglotSandbox sandbox, Language language) {
    try {
      RuntimeCheck.require("PolyglotSandbox", sandbox.runtimeName(), sandbox.isOptimizingRuntime());
    } catch (RuntimeException e) {
      sandbox.close();
      throw e;
    }
    return new Runner() {
      @Override
      public Object run(String code) {
        ExecutionResult result = sandbox.run(language, code);
        if (!result.isOk()) {
          throw new IllegalStateException("sandboxed run failed: " + result);
        }
        return result.value();
      }

      @Override
      public void close() {
        sandbox.close();
      }
    };
  }

  private static void requireJavaScript(Language language) {
    if (language != Language.JAVASCRIPT) {
      throw new IllegalArgumentException("this peer runs JavaScript only, not " + language.id());
    }
  }
}
