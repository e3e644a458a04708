package org.polyglotsandbox.internal.pool;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;

/**
 * Bounds how many runs execute at once and how many wait for a turn. Past both bounds a run is refused
 * at once; there is no unbounded queue. Waiting runs start in arrival order as running ones finish.
 *
 * <p>While {@code admitsMore} says no (the host heap is over budget), a run waits even for a free slot,
 * unless none is running at all, until {@link #wake()} is called or a running one finishes. While
 * {@code admitsAlone} says no (a run stopped for memory still holds its context), a run waits even when
 * none is running: a finished run gives its turn back when its result is out, before its context is
 * closed, and the next one must not fill the heap beside what the stopped one has not yet given back.
 */
public final class Admission {
  private final int maxRunning;
  private final int maxWaiting;
  private final BooleanSupplier admitsMore;
  private final BooleanSupplier admitsAlone;
  private final ArrayDeque<CompletableFuture<Void>> waiting = new ArrayDeque<>();
  private int running;
  private boolean closed;

  public Admission(int maxRunning, int maxWaiting) {
    this(maxRunning, maxWaiting, () -> true, () -> true);
  }

  /**
   * @param admitsMore whether a run may start beside running ones (asked under this admission's lock)
   * @param admitsAlone whether a run may start when none is running (asked under this admission's lock);
   *     it must turn true again by itself, with a call of {@link #wake()}
   */
  public Admission(int maxRunning, int maxWaiting, BooleanSupplier admitsMore, BooleanSupplier admitsAlone) {
    if (maxRunning < 1) {
      throw new IllegalArgumentException("maxConcurrentRuns (" + maxRunning + ") must be at least 1");
    }
    if (maxWaiting < 0) {
      throw new IllegalArgumentException("maxWaitingRuns (" + maxWaiting + ") must not be negative");
    }
    this.maxRunning = maxRunning;
    this.maxWaiting = maxWaiting;
    this.admitsMore = admitsMore;
    this.admitsAlone = admitsAlone;
  }

  /**
   * A turn: complete at once if a slot is free, otherwise completed when one frees up. Every turn
   * completed normally must be given back with {@link #release()}; a caller that gives up waiting
   * cancels it or completes it exceptionally, which frees its place in the queue.
   *
   * @throws RejectedExecutionException if {@code maxConcurrentRuns} runs are running and
   *     {@code maxWaitingRuns} are already waiting
   * @throws IllegalStateException if closed
   */
  public synchronized CompletableFuture<Void> acquire() {
    if (closed) {
      throw new IllegalStateException("sandbox is closed");
    }
    if (waiting.isEmpty() && mayStartOne()) {
      running++;
      return CompletableFuture.completedFuture(null);
    }
    if (waiting.size() >= maxWaiting) {
      throw new RejectedExecutionException("sandbox is busy: " + running + " runs are running and "
          + waiting.size() + " waiting (maxConcurrentRuns " + maxRunning + ", maxWaitingRuns " + maxWaiting
          + "); try again later");
    }
    CompletableFuture<Void> turn = new CompletableFuture<>();
    waiting.add(turn);
    turn.whenComplete((v, e) -> {
      if (e != null) {
        // Its caller gave up waiting (cancelled, or past its start timeout): the place is free for another.
        synchronized (this) {
          waiting.remove(turn);
        }
      }
    });
    return turn;
  }

  private boolean mayStartOne() {
    return running < maxRunning && (running == 0 ? admitsAlone.getAsBoolean() : admitsMore.getAsBoolean());
  }

  /** Gives a turn back; the longest-waiting run, if any, gets it (or waits on while the heap is over budget). */
  public void release() {
    synchronized (this) {
      running--;
    }
    wake();
  }

  /** Starts waiting runs while slots are free and new runs are admitted; call when the heap recovers. */
  public void wake() {
    while (true) {
      CompletableFuture<Void> next;
      synchronized (this) {
        if (!mayStartOne()) {
          return;
        }
        next = waiting.poll();
        while (next != null && next.isDone()) {
          // Its caller gave up waiting (cancelled): skip it.
          next = waiting.poll();
        }
        if (next == null) {
          return;
        }
        running++;
      }
      // Completed outside the lock: the run starts from here.
      if (!next.complete(null)) {
        synchronized (this) {
          running--;
        }
      }
    }
  }

  /** Refuses new runs and fails every waiting one with {@code IllegalStateException}. */
  public void close() {
    List<CompletableFuture<Void>> dropped;
    synchronized (this) {
      closed = true;
      dropped = new ArrayList<>(waiting);
      waiting.clear();
    }
    dropped.forEach(f -> f.completeExceptionally(new IllegalStateException("sandbox is closed")));
  }

  /** Runs running now. */
  public synchronized int running() {
    return running;
  }

  /** Runs waiting for a turn now. */
  public synchronized int waiting() {
    return waiting.size();
  }
}
