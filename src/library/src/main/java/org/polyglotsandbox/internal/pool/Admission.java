package org.polyglotsandbox.internal.pool;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * Bounds how many runs execute at once and how many wait for a turn. Past both bounds a run is refused
 * at once; there is no unbounded queue. Waiting runs start in arrival order as running ones finish.
 */
public final class Admission {
  private final int maxRunning;
  private final int maxWaiting;
  private final ArrayDeque<CompletableFuture<Void>> waiting = new ArrayDeque<>();
  private int running;
  private boolean closed;

  public Admission(int maxRunning, int maxWaiting) {
    if (maxRunning < 1) {
      throw new IllegalArgumentException("maxConcurrentRuns (" + maxRunning + ") must be at least 1");
    }
    if (maxWaiting < 0) {
      throw new IllegalArgumentException("maxWaitingRuns (" + maxWaiting + ") must not be negative");
    }
    this.maxRunning = maxRunning;
    this.maxWaiting = maxWaiting;
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
    if (running < maxRunning) {
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

  /** Gives a turn back; the longest-waiting run, if any, gets it. */
  public void release() {
    CompletableFuture<Void> next;
    synchronized (this) {
      next = waiting.poll();
      while (next != null && next.isDone()) {
        // Its caller gave up waiting (cancelled): skip it.
        next = waiting.poll();
      }
      if (next == null) {
        running--;
        return;
      }
    }
    // Completed outside the lock: the run starts from here.
    if (!next.complete(null)) {
      release();
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
