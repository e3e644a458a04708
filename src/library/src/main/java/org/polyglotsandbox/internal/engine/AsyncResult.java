package org.polyglotsandbox.internal.engine;

import java.util.function.BooleanSupplier;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;

/**
 * The settling of a program whose value is still to be awaited: a JavaScript Promise or other thenable,
 * whose job queue is run until it settles, or a Python coroutine, run to its end with
 * {@code asyncio.run}. The run's value is what it settled to.
 *
 * <p>Whether a JavaScript value is a thenable, and the call of its {@code then}, happen in guest code
 * ({@link JavaScriptEventLoop#subscribe}). GraalJS runs the pending jobs (Promise reactions,
 * {@code await} continuations) each time control returns from guest code to the host, so one
 * subscription runs every job the program queued, and the jobs those queue, until the queue is empty.
 * That all runs on the guest's thread under the run's limits (statements, CPU, wall time): a microtask
 * flood that never ends is stopped by them like a loop. A value still pending once the queue is empty
 * waits for the context's timers, the earliest first, one at a time; with none left it can never
 * settle (the sandbox gives the guest no threads or I/O that could queue a job later), and the run ends
 * at once with {@link Unsettled} instead of waiting for its deadline.
 */
final class AsyncResult {
  /**
   * Python, made with the context before any guest code runs: a function that runs a coroutine
   * (exactly that type, so nothing that merely claims to be one) to its end with {@code asyncio.run}, on
   * the event loop the process shield provides, and gives any other value back as itself; either way it
   * then flushes the original stdout and stderr (text written without a newline). It holds the
   * coroutine type, {@code type} and {@code __import__} as they were then, so a guest that patches them
   * changes nothing here.
   */
  static final Source PYTHON_RUNNER = Source.newBuilder("python", """
      def __sandbox_runner():
          del globals()['__sandbox_runner']
          async def probe():
              pass
          c = probe()
          coroutine = type(c)
          c.close()
          kind, load = type, __import__
          sys = load('sys')
          streams = (sys.stdout, sys.stderr)
          def run(v):
              try:
                  return load('asyncio').run(v) if kind(v) is coroutine else v
              finally:
                  for s in streams:  # what the program wrote without a newline is output too
                      try:
                          s.flush()
                      except Exception:
                          pass
          return run
      __sandbox_runner
      """, "sandbox-settle.py").internal(true).buildLiteral();
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
   * @throws PolyglotException the rejection's reason, as a guest exception, what reading the value's
   *     {@code then} raised, or a limit that stopped the jobs
   * @param loop the context's event loop: its timers run one at a time while the value is pending and
   *     the job queue is empty
   * @param stopped whether a limit tripped or the host cancelled: waiting for a timer then ends
   * @throws Unsettled if the value was still pending once the job queue was empty and no timer was left
   *     (or waiting for one was stopped)
   */
  static Value settle(Context context, Value value, JavaScriptEventLoop loop, BooleanSupplier stopped) {
    if (!mayBeThenable(value)) {
      return value;
    }
    for (int i = 0; i < MAX_CHAIN; i++) {
      Value state = loop.subscribe(value);
      if (state == null) {
        return value;
      }
      while (!state.getMember("settled").asBoolean()) {
        if (!loop.runNext(stopped)) {
          throw new Unsettled("the program's value is a Promise that never settled: every job and timer had run"
              + " and it was still pending (it awaits something that nothing will resolve; the sandbox has no"
              + " threads or I/O that could settle it later)");
        }
      }
      if (state.getMember("rejected").asBoolean()) {
        context.eval(RETHROW).execute(state.getMember("value"));
        throw new IllegalStateException("rethrowing a rejection returned"); // unreachable: it always throws
      }
      value = state.getMember("value");
      if (!mayBeThenable(value)) {
        return value;
      }
    }
    throw new Unsettled("the program's value is a chain of more than " + MAX_CHAIN + " thenables, each"
        + " settling to the next");
  }

  /**
   * Python: the value a coroutine returns when it is run to its end with {@code asyncio.run}, if the
   * program's value is a coroutine ({@code main()} instead of {@code asyncio.run(main())}), else the value.
   *
   * @param runner the context's {@link #PYTHON_RUNNER} function
   *
   * @throws PolyglotException what the coroutine raised, or a limit that stopped it
   */
  static Value runCoroutine(Value runner, Value value) {
    return runner.execute(value);
  }

  /**
   * Whether the value could be a thenable, from what the host learns without running
   * guest code: a guest object or function. Strings, numbers, booleans, null and host values never are.
   */
  private static boolean mayBeThenable(Value value) {
    return value != null && !value.isNull() && !value.isHostObject() && !value.isProxyObject()
        && !value.isString() && !value.isNumber() && !value.isBoolean() && value.hasMembers();
  }
}
