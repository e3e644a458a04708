package org.polyglotsandbox.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.OutputStream;
import java.util.function.Supplier;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.PolyglotException;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Outcome;

/**
 * An internal error of the engine that is the host heap running out is the memory limit, not the sandbox's
 * INTERNAL_ERROR: with the heap full, a Python context being made failed with "IllegalArgumentException:
 * Self-suppression not permitted" (the JVM's preallocated OutOfMemoryError added to itself), which ended
 * runs INTERNAL_ERROR instead of making the context again once memory was freed. The engine shows an
 * internal error's causes only in its printed trace. Here a real internal error is made the same way the
 * engine meets one: a host stream under {@code console.log} throws that exception, caused by the heap
 * error or not.
 */
class ErrorClassifierHeapTest {
  @Test
  void anInternalErrorCausedByTheHeapRunningOut_isTheMemoryLimit() {
    PolyglotException e = internalErrorFrom(() -> new IllegalArgumentException("Self-suppression not permitted",
        new OutOfMemoryError("Java heap space")));

    assertThat(e.isInternalError()).isTrue();
    assertThat(e.getMessage()).doesNotContain("OutOfMemoryError"); // found in the trace, not the message
    ErrorClassifier.Verdict v = ErrorClassifier.classify(e);
    assertThat(v.outcome()).isEqualTo(Outcome.LIMIT_EXCEEDED);
    assertThat(v.limit()).isEqualTo(Limit.MEMORY);
    assertThat(v.message()).isEqualTo("the host heap ran out while the guest ran").doesNotContain("java.");
  }

  @Test
  void anInternalErrorWithoutTheHeapError_staysWhatItWas() {
    PolyglotException e = internalErrorFrom(() -> new IllegalArgumentException("Self-suppression not permitted",
        new IllegalStateException("java.lang.OutOfMemory")));

    assertThat(e.isInternalError()).isTrue();
    ErrorClassifier.Verdict v = ErrorClassifier.classify(e);
    assertThat(v.limit()).isNull();
    assertThat(v.outcome()).isNotEqualTo(Outcome.LIMIT_EXCEEDED);
  }

  /** The heap error deep in a long trace is still found: the search matches across the writer's chunks. */
  @Test
  void theHeapErrorIsFound_asTheDeepestOfManyCauses() {
    PolyglotException e = internalErrorFrom(() -> {
      Throwable t = new OutOfMemoryError("Java heap space");
      for (int i = 0; i < 50; i++) {
        t = new IllegalStateException("wrapped " + i + " java.lang.OutOfMemor", t);
      }
      return (RuntimeException) t;
    });

    assertThat(ErrorClassifier.classify(e).limit()).isEqualTo(Limit.MEMORY);
  }

  private static PolyglotException internalErrorFrom(Supplier<RuntimeException> thrown) {
    OutputStream failing = new OutputStream() {
      @Override
      public void write(int b) {
        throw thrown.get();
      }

      @Override
      public void write(byte[] b, int off, int len) {
        throw thrown.get();
      }
    };
    try (Context context = Context.newBuilder("js").out(failing).err(failing).build()) {
      return catchThrowableOfType(PolyglotException.class, () -> context.eval("js", "console.log('hello')"));
    }
  }
}
