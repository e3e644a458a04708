package org.polyglotsandbox.benchmarks;

import java.io.OutputStream;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.SandboxPolicy;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;

/**
 * The ways of running one guest program that the benchmarks compare, each behind the tiny {@link Runner}
 * adapter. Every runner is built once per trial and runs the same program on each call.
 */
public enum Design {
  /**
   * The floor: a raw GraalVM context on one shared {@link Engine}, with {@link SandboxPolicy#CONSTRAINED}
   * and the output streams discarded; created, evaluated and closed on the caller's thread per call.
   * No file system, thread, watchdog, statement limit or result copy.
   */
  RAW_SHARED_ENGINE {
    @Override
    Runner open(Language language, String code) {
      Engine engine = Peer.rawEngine(language);
      Source source = Source.create(language.id(), code);
      return new Runner() {
        @Override
        public Object run() {
          try (Context context = Context.newBuilder(language.id())
              .engine(engine)
              .sandbox(SandboxPolicy.CONSTRAINED)
              .out(OutputStream.nullOutputStream())
              .err(OutputStream.nullOutputStream())
              .build()) {
            Value value = context.eval(source);
            return value.asLong();
          }
        }

        @Override
        public void close() {
          engine.close();
        }
      };
    }
  },

  /**
   * {@link PolyglotSandbox#run(Script)} on a sandbox built once with {@link Policy#computeOnly} and the
   * default limits: a fresh context, in-memory file system and run thread per call, under the watchdog
   * and statement limit, with the value copied out.
   */
  SANDBOX {
    @Override
    Runner open(Language language, String code) {
      PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(language)).build();
      try {
        RuntimeCheck.require("PolyglotSandbox", sandbox.runtimeName(), sandbox.isOptimizingRuntime());
      } catch (RuntimeException e) {
        sandbox.close();
        throw e;
      }
      Script script = Script.of(language, code);
      return new Runner() {
        @Override
        public Object run() {
          ExecutionResult result = sandbox.run(script);
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
  };

  /** Builds this design's runner for one program; checks that the runtime is the optimizing one. */
  abstract Runner open(Language language, String code);

  /** Runs one program; {@link #close()} releases the engine or sandbox. */
  interface Runner extends AutoCloseable {
    /** Runs the program once and returns its value as a Java object. */
    Object run();

    @Override
    void close();
  }
}
