package org.polyglotsandbox.internal.engine;

import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyExecutable;

/**
 * The settling of a JavaScript program whose value is a Promise or another thenable: its job queue is
 * run until the value settles, and the run's value is what it settled to.
 *
 * <p>GraalJS runs the pending jobs (Promise reactions, {@code await} continuations) each time control
 * returns from guest code to the host, so one call of the value's {@code then} with two host callbacks
 * runs every job the program queued, and the jobs those queue, until the queue is empty. That all runs
 * on the guest's thread under the run's limits (statements, CPU, wall time): a microtask flood that
 * never ends is stopped by them like a loop. A value that is still pending when the queue is empty can
 * never settle (the sandbox gives the guest no timers, threads or I/O that could queue a job later):
 * the run ends at once with {@link Unsettled} instead of waiting for its deadline.
 */
final class AsyncResult {
  /** Rethrows a rejection's reason from guest code, so that it is classified like an uncaught throw. */
  private static final Source RETHROW =
      Source.newBuilder("js", "(function (reason) { throw reason; })", "sandbox-rethrow.js").internal(true)
          .buildLiteral();
  /** How many thenables a value may settle to in a row (a thenable resolving to a thenable, ...). */
  private static final int MAX_CHAIN = 10_000;

  /** The program's value was still pending once nothing was left to run. */
  static final class Unsettled extends RuntimeException {
    Unsettled(String message) {
      super(message, null, false, false);
    }
  }

  private AsyncResult() {}

  /**
   * The settled value of {@code value} if it is a thenable, else {@code value} itself.
   *
   * @throws PolyglotException the rejection's reason, as a guest exception, or a limit that stopped the jobs
   * @throws Unsettled if the value was still pending once the job queue was empty
   */
  static Value settle(Context context, Value value) {
    for (int i = 0; i < MAX_CHAIN && isThenable(value); i++) {
      Value[] outcome = new Value[2]; // [0] fulfilled with, [1] rejected with
      boolean[] settled = new boolean[1];
      // Like a Promise's resolving functions: the first call wins, later ones are ignored.
      ProxyExecutable fulfilled = args -> {
        if (!settled[0]) {
          settled[0] = true;
          outcome[0] = args.length > 0 ? args[0] : null;
        }
        return null;
      };
      ProxyExecutable rejected = args -> {
        if (!settled[0]) {
          settled[0] = true;
          outcome[1] = args.length > 0 ? args[0] : context.asValue(null);
        }
        return null;
      };
      value.invokeMember("then", fulfilled, rejected);
      if (!settled[0]) {
        throw new Unsettled("the program's value is a Promise that never settled: every job had run and it was"
            + " still pending (it awaits something that nothing will resolve; the sandbox has no timers,"
            + " threads or I/O that could settle it later)");
      }
      if (outcome[1] != null) {
        context.eval(RETHROW).execute(outcome[1]);
        throw new IllegalStateException("rethrowing a rejection returned"); // unreachable: it always throws
      }
      value = outcome[0] == null ? context.asValue(null) : outcome[0];
    }
    if (isThenable(value)) {
      throw new Unsettled("the program's value is a chain of more than " + MAX_CHAIN + " thenables, each"
          + " settling to the next");
    }
    return value;
  }

  /** Whether the value is a guest object with a callable {@code then} (reading it may run a guest getter). */
  private static boolean isThenable(Value value) {
    if (value == null || value.isNull() || value.isHostObject() || value.isProxyObject() || !value.hasMembers()
        || value.isString() || value.isNumber() || value.isBoolean()) {
      return false;
    }
    Value then = value.getMember("then");
    return then != null && then.canExecute();
  }
}
