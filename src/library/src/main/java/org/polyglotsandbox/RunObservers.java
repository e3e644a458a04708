package org.polyglotsandbox;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;

/**
 * A sandbox's {@link RunObserver}s, seen by the engine room as one {@link RunObserver.Run} per run: each
 * observer's failures are caught and logged here, so no observer can change a run.
 */
final class RunObservers {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  private final List<RunObserver> observers = new CopyOnWriteArrayList<>();
  private final AtomicLong failures = new AtomicLong();

  void add(RunObserver observer) {
    observers.add(observer);
  }

  boolean remove(RunObserver observer) {
    return observers.remove(observer);
  }

  /** The runs' observations for {@code script}; {@link RunObserver.Run#NONE} without observers. */
  RunObserver.Run start(Script script) {
    if (observers.isEmpty()) {
      return RunObserver.Run.NONE;
    }
    List<RunObserver.Run> runs = new java.util.ArrayList<>(observers.size());
    for (RunObserver o : observers) {
      try {
        RunObserver.Run r = o.runStarted(script);
        if (r != null && r != RunObserver.Run.NONE) {
          runs.add(r);
        }
      } catch (Throwable t) {
        failed("runStarted", t);
      }
    }
    return runs.isEmpty() ? RunObserver.Run.NONE : new Safe(runs);
  }

  private void failed(String method, Throwable t) {
    long n = failures.incrementAndGet();
    if (n == 1 || n % 1_000 == 0) {
      LOG.log(System.Logger.Level.WARNING, "a run observer's " + method + " threw (" + n + " so far); ignored", t);
    }
  }

  /** Every observer's view of one run, each call guarded. */
  private final class Safe implements RunObserver.Run {
    private final List<RunObserver.Run> runs;

    Safe(List<RunObserver.Run> runs) {
      this.runs = runs;
    }

    @Override
    public RunObserver.HandlerCall handlerStarted(Tool.Call call) {
      RunObserver.HandlerCall[] calls = new RunObserver.HandlerCall[runs.size()];
      for (int i = 0; i < calls.length; i++) {
        try {
          RunObserver.HandlerCall c = runs.get(i).handlerStarted(call);
          calls[i] = c == null ? RunObserver.HandlerCall.NONE : c;
        } catch (Throwable t) {
          calls[i] = RunObserver.HandlerCall.NONE;
          failed("handlerStarted", t);
        }
      }
      return failure -> {
        // In reverse, as scopes a handler's thread opened in order are closed.
        for (int i = calls.length - 1; i >= 0; i--) {
          try {
            calls[i].ended(failure);
          } catch (Throwable t) {
            failed("HandlerCall.ended", t);
          }
        }
      };
    }

    @Override
    public void ended(ExecutionResult result, Throwable failure) {
      for (RunObserver.Run r : runs) {
        try {
          r.ended(result, failure);
        } catch (Throwable t) {
          failed("ended", t);
        }
      }
    }
  }
}
