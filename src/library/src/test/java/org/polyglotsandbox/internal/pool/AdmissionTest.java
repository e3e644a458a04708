package org.polyglotsandbox.internal.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class AdmissionTest {
  @Test
  void runsUpToTheBound_thenQueues_thenRefuses() {
    Admission admission = new Admission(2, 1);
    assertThat(admission.acquire()).isDone();
    assertThat(admission.acquire()).isDone();
    CompletableFuture<Void> third = admission.acquire();
    assertThat(third).isNotDone();
    assertThat(admission.waiting()).isEqualTo(1);
    assertThatThrownBy(admission::acquire)
        .isInstanceOf(RejectedExecutionException.class)
        .hasMessage("sandbox is busy: 2 runs are running and 1 waiting (maxConcurrentRuns 2, maxWaitingRuns 1);"
            + " try again later");

    admission.release();
    assertThat(third).isDone();
    assertThat(admission.running()).isEqualTo(2);
    assertThat(admission.waiting()).isZero();
    admission.release();
    admission.release();
    assertThat(admission.running()).isZero();
  }

  @Test
  void waitingRunsStartInArrivalOrder_andCancelledOnesAreSkipped() {
    Admission admission = new Admission(1, 3);
    admission.acquire();
    CompletableFuture<Void> first = admission.acquire();
    CompletableFuture<Void> second = admission.acquire();
    CompletableFuture<Void> third = admission.acquire();
    second.cancel(false);
    assertThat(admission.waiting()).isEqualTo(2);

    admission.release();
    assertThat(first).isDone();
    assertThat(third).isNotDone();
    admission.release();
    assertThat(third).isDone();
    assertThat(admission.running()).isEqualTo(1);
  }

  @Test
  void close_failsWaitingRuns_andRefusesNewOnes() {
    Admission admission = new Admission(1, 2);
    admission.acquire();
    CompletableFuture<Void> waiting = admission.acquire();
    admission.close();
    assertThatThrownBy(waiting::get).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(admission::acquire).isInstanceOf(IllegalStateException.class).hasMessage("sandbox is closed");
  }

  @Test
  void whileTheHeapIsOverBudget_newRunsWaitBesideRunningOnes_andStartWhenItRecovers() {
    AtomicBoolean admits = new AtomicBoolean(true);
    Admission admission = new Admission(4, 4, admits::get, () -> true);
    assertThat(admission.acquire()).isDone();
    admits.set(false);
    CompletableFuture<Void> second = admission.acquire();
    CompletableFuture<Void> third = admission.acquire();
    assertThat(second).isNotDone(); // three slots free, but the heap is over budget
    assertThat(admission.waiting()).isEqualTo(2);

    admission.wake(); // still over budget: nothing starts
    assertThat(second).isNotDone();

    admits.set(true);
    admission.wake();
    assertThat(second).isDone();
    assertThat(third).isDone();
    assertThat(admission.running()).isEqualTo(3);
  }

  @Test
  void whileTheHeapIsOverBudget_aRunStillStartsWhenNoneIsRunning() {
    AtomicBoolean admits = new AtomicBoolean(false);
    Admission admission = new Admission(4, 4, admits::get, () -> true);
    assertThat(admission.acquire()).isDone(); // nothing to wait for: holding it would never end
    CompletableFuture<Void> second = admission.acquire();
    assertThat(second).isNotDone();

    admission.release();
    assertThat(second).isDone();
    assertThat(admission.running()).isEqualTo(1);
  }

  @Test
  void whileAStoppedRunStillHoldsItsContext_evenARunAloneWaits_untilWoken() {
    // A finished run gives its turn back when its result is out, before its context is closed: the next
    // run must not start beside a bomb's memory that is not yet given back.
    AtomicBoolean alone = new AtomicBoolean(false);
    Admission admission = new Admission(4, 4, () -> false, alone::get);
    CompletableFuture<Void> first = admission.acquire();
    assertThat(first).isNotDone();
    assertThat(admission.running()).isZero();
    admission.wake(); // still held: nothing starts
    assertThat(first).isNotDone();

    alone.set(true);
    admission.wake();
    assertThat(first).isDone();
    CompletableFuture<Void> second = admission.acquire();
    assertThat(second).as("beside a running one, the heap's verdict applies").isNotDone();
    admission.release();
    assertThat(second).isDone();
  }

  @Test
  void zeroWaiting_refusesEveryRunThatCannotStart() {
    Admission admission = new Admission(1, 0);
    admission.acquire();
    assertThatThrownBy(admission::acquire).isInstanceOf(RejectedExecutionException.class);
  }

  @Test
  void badBounds_areRefused() {
    assertThatThrownBy(() -> new Admission(0, 1)).hasMessage("maxConcurrentRuns (0) must be at least 1");
    assertThatThrownBy(() -> new Admission(1, -1)).hasMessage("maxWaitingRuns (-1) must not be negative");
  }

  @Test
  void aTurnGivenUpPastItsStartTimeout_freesItsPlace_andIsSkipped() {
    Admission admission = new Admission(1, 1);
    admission.acquire();
    CompletableFuture<Void> late = admission.acquire();
    assertThatThrownBy(admission::acquire).isInstanceOf(RejectedExecutionException.class);

    late.completeExceptionally(new RejectedExecutionException("waited its whole start timeout"));
    assertThat(admission.waiting()).isZero();
    CompletableFuture<Void> next = admission.acquire();

    admission.release();
    assertThat(next).isDone();
    assertThat(admission.running()).isEqualTo(1);
  }
}
