package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;

/**
 * A run observer hears of each run on the calling thread, of each call of a tool's handler on the thread
 * that runs it, and of the run's end once, with its result or its failure; an observer that throws changes
 * nothing for the run.
 */
class RunObserverTest {
  private static PolyglotSandbox sandbox;
  private static final ThreadLocal<String> HANDLER_SAW = new ThreadLocal<>();
  private static volatile CountDownLatch held = new CountDownLatch(0);

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder().allowTools("echo", "inline", "hold")
            .build())
        .maxConcurrentRuns(1).maxWaitingRuns(0)
        .tool(Tool.builder("echo").handler(args -> String.valueOf(HANDLER_SAW.get())).build())
        .tool(Tool.builder("inline").inline().handler(args -> String.valueOf(HANDLER_SAW.get())).build())
        .tool(Tool.builder("hold").handler(args -> held.await(30, TimeUnit.SECONDS)).build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  /** Records what it hears; sets a thread-local on the handler's thread that the handler answers with. */
  private static final class Recorder implements RunObserver {
    final List<String> heard = new CopyOnWriteArrayList<>();
    final List<ExecutionResult> results = new CopyOnWriteArrayList<>();
    final List<Throwable> failures = new CopyOnWriteArrayList<>();

    @Override
    public Run runStarted(Script script) {
      heard.add("started " + script.language().id() + " on " + Thread.currentThread().getName());
      return new Run() {
        @Override
        public HandlerCall handlerStarted(Tool.Call call) {
          heard.add("handler " + call.tool());
          HANDLER_SAW.set("observed " + call.tool());
          return failure -> {
            HANDLER_SAW.remove();
            heard.add("handler ended " + call.tool() + (failure == null ? "" : " with " + failure));
          };
        }

        @Override
        public void ended(ExecutionResult result, Throwable failure) {
          if (result != null) {
            results.add(result);
          } else {
            failures.add(failure);
          }
        }
      };
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void observer_hearsTheRun_andEachHandlerCall_onTheHandlersThread(Language language) {
    Recorder recorder = new Recorder();
    sandbox.addRunObserver(recorder);
    try {
      ExecutionResult r = sandbox.run(language, language == Language.JAVASCRIPT
          ? "[tools.echo({}), tools.inline({})]" : "[tools.echo({}), tools.inline({})]");
      assertThat(r.value()).isEqualTo(List.of("observed echo", "observed inline"));
      assertThat(recorder.heard).containsExactly("started " + language.id() + " on " + Thread.currentThread().getName(),
          "handler echo", "handler ended echo", "handler inline", "handler ended inline");
      assertThat(recorder.results).containsExactly(r);
      assertThat(recorder.failures).isEmpty();
    } finally {
      assertThat(sandbox.removeRunObserver(recorder)).isTrue();
    }
    sandbox.run(language, "1");
    assertThat(recorder.results).hasSize(1);
  }

  @Test
  void observerThatThrows_changesNothingForTheRun() {
    RunObserver throwing = script -> new RunObserver.Run() {
      @Override
      public RunObserver.HandlerCall handlerStarted(Tool.Call call) {
        throw new IllegalStateException("observer broke");
      }

      @Override
      public void ended(ExecutionResult result, Throwable failure) {
        throw new Error("observer broke at the end");
      }
    };
    RunObserver throwingAtStart = script -> {
      throw new IllegalStateException("observer broke at the start");
    };
    Recorder recorder = new Recorder();
    sandbox.addRunObserver(throwing);
    sandbox.addRunObserver(throwingAtStart);
    sandbox.addRunObserver(recorder);
    try {
      ExecutionResult r = sandbox.run(Language.JAVASCRIPT, "tools.echo({})");
      assertThat(r.outcome()).isEqualTo(Outcome.OK);
      assertThat(r.value()).isEqualTo("observed echo");
      assertThat(recorder.results).containsExactly(r);
    } finally {
      sandbox.removeRunObserver(throwing);
      sandbox.removeRunObserver(throwingAtStart);
      sandbox.removeRunObserver(recorder);
    }
  }

  @Test
  void refusedRun_endsWithItsFailure_andAsyncRunWithItsResult() throws Exception {
    Recorder recorder = new Recorder();
    sandbox.addRunObserver(recorder);
    held = new CountDownLatch(1);
    try {
      CompletableFuture<ExecutionResult> holding = sandbox.runAsync(Language.JAVASCRIPT, "tools.hold({})");
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (sandbox.runningRuns() < 1 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThatThrownBy(() -> sandbox.run(Language.JAVASCRIPT, "1")).isInstanceOf(RejectedExecutionException.class);
      assertThat(recorder.failures).singleElement().isInstanceOf(RejectedExecutionException.class);
      held.countDown();
      ExecutionResult r = holding.get(30, TimeUnit.SECONDS);
      // Told before the future completed.
      assertThat(recorder.results).containsExactly(r);
    } finally {
      held.countDown();
      sandbox.removeRunObserver(recorder);
    }
  }

  @Test
  void nullObserver_isRefused() {
    assertThatThrownBy(() -> sandbox.addRunObserver(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("observer");
  }
}
