package org.polyglotsandbox.internal.engine;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;

/**
 * What a JavaScript context needs to settle an async program, made with the context before any guest
 * code runs: the subscription to a thenable that {@link AsyncResult} uses, and the timers
 * ({@code setTimeout}, {@code setInterval}, {@code clearTimeout}, {@code clearInterval}), which GraalJS
 * does not provide by itself, kept entirely in guest code.
 *
 * <p>The subscription decides whether a value is a thenable and calls its {@code then} in guest code,
 * never through the host's reading of a guest member: a Proxy whose {@code then} lies (a trap that
 * throws, answers differently each time, or breaks an interop invariant) then fails the way it would for
 * an {@code await}, as the guest's own error, not the sandbox's. Its callbacks are guest functions, so
 * nothing the guest can inspect is a host object, and it uses {@code Reflect.apply} as it was before the
 * guest ran.
 *
 * <p>A timer only records its callback and when it is due; nothing runs it but {@link AsyncResult},
 * while the program's value is a Promise that has not settled and the job queue is empty: it then
 * waits on the guest's thread until the earliest timer is due and runs it (one timer per turn, so the
 * jobs it queues run before the next, as in a browser or Node). The wait counts against the run's wall
 * time and ends early when a limit trips or the host cancels; the callbacks run under every limit of the
 * run. At most {@value #MAX_PENDING} timers may be pending; a callback must be a function (a code string
 * is refused, there is no {@code eval} of text by timers). Timers still pending when the program's value
 * is ready are dropped with the context, as if the program had ended.
 */
final class JavaScriptEventLoop {
  static final int MAX_PENDING = 10_000;
  /** How long the guest's thread sleeps at most before it looks at its limits again. */
  private static final long SLICE_MILLIS = 20;

  // Every intrinsic it calls is bound here, before any guest code: a guest that replaces Math.max, Number,
  // Map.prototype.values or an iterator's next changes nothing of it (replacing Math.max once ended a run
  // with a timer pending INTERNAL_ERROR, the host reading the replacement's answer as the wait). The timers
  // live in an object with no prototype, whose own data properties no getter or setter on a prototype
  // intercepts.
  private static final Source SOURCE = Source.newBuilder("js", """
      (() => {
        'use strict';
        const now = Date.now, apply = Reflect.apply, ceil = Math.ceil, toNumber = Number;
        const TypeError_ = TypeError, RangeError_ = RangeError, define = Object.defineProperty;
        const freeze = Object.freeze;
        const timers = Object.create(null);
        const max = %d;
        let seq = 0, pending = 0;
        const add = (name, fn, ms, args, repeat) => {
          if (typeof fn !== 'function') {
            throw new TypeError_(name + ': the callback must be a function (code strings are not run)');
          }
          if (pending >= max) {
            throw new RangeError_(name + ': ' + max + ' timers are pending already, the most a run may have');
          }
          let delay = toNumber(ms);
          if (!(delay >= 1) || delay > 2147483647) { delay = repeat ? 1 : 0; }
          const id = ++seq;
          timers[id] = {id, at: now() + delay, order: id, fn, args, every: repeat ? delay : -1};
          pending++;
          return id;
        };
        const remove = (id) => {
          if (id in timers) { delete timers[id]; pending--; }
        };
        const clear = (id) => {
          const n = toNumber(id);
          if (n === n && n >= 1 && n <= seq && ceil(n) === n) { remove(n); }
        };
        const globals = {
          setTimeout: function setTimeout(fn, ms, ...args) { return add('setTimeout', fn, ms, args, false); },
          setInterval: function setInterval(fn, ms, ...args) { return add('setInterval', fn, ms, args, true); },
          clearTimeout: function clearTimeout(id) { clear(id); },
          clearInterval: function clearInterval(id) { clear(id); },
        };
        for (const name in globals) {
          define(globalThis, name, {value: freeze(globals[name]), writable: true, configurable: true,
            enumerable: false});
        }
        const earliest = () => {
          let best = null;
          for (const id in timers) {
            const t = timers[id];
            if (best === null || t.at < best.at || (t.at === best.at && t.order < best.order)) { best = t; }
          }
          return best;
        };
        // undefined if v is not a thenable, else a fresh record that its then settles (first call wins,
        // like a Promise's resolving functions; a then that throws rejects, unless it settled first). A
        // literal with own data properties: nothing the guest changed reaches its fields.
        const subscribe = (v) => {
          if (v === null || (typeof v !== 'object' && typeof v !== 'function')) { return undefined; }
          const then = v.then;
          if (typeof then !== 'function') { return undefined; }
          const s = {settled: false, rejected: false, value: undefined};
          const fulfil = (x) => { if (!s.settled) { s.settled = true; s.value = x; } };
          const reject = (x) => { if (!s.settled) { s.settled = true; s.rejected = true; s.value = x; } };
          try { apply(then, v, [fulfil, reject]); } catch (e) { reject(e); }
          return s;
        };
        return [
          subscribe,
          // Whole milliseconds until the earliest timer is due (0: now), or -1 if none is pending.
          () => {
            const t = earliest();
            if (t === null) { return -1; }
            const left = t.at - now();
            return left > 0 ? ceil(left) : 0;
          },
          // Runs the earliest timer if it is due.
          () => {
            const t = earliest();
            if (t === null || t.at > now()) { return; }
            if (t.every >= 0) { t.at = now() + t.every; t.order = ++seq; } else { remove(t.id); }
            apply(t.fn, undefined, t.args);
          },
        ];
      })()""".formatted(MAX_PENDING), "sandbox-event-loop.js").internal(true).buildLiteral();

  private final Value subscribe;
  private final Value untilNext;
  private final Value fireNext;

  private JavaScriptEventLoop(Value functions) {
    this.subscribe = functions.getArrayElement(0);
    this.untilNext = functions.getArrayElement(1);
    this.fireNext = functions.getArrayElement(2);
  }

  /** Defines the timer functions in a fresh JavaScript context, before any guest code runs. */
  static JavaScriptEventLoop install(Context context) {
    return new JavaScriptEventLoop(context.eval(SOURCE));
  }

  /**
   * Subscribes to {@code value}'s settling if it is a thenable: null if it is not one, else the record
   * {@code {settled, rejected, value}} that it settles, now or when later jobs and timers run.
   *
   * @throws org.graalvm.polyglot.PolyglotException what reading its {@code then} raised, or a limit
   */
  Value subscribe(Value value) {
    Value state = subscribe.execute(value);
    return state.isNull() ? null : state;
  }

  /**
   * Waits until the earliest pending timer is due and runs it; the jobs it queued run before this
   * returns.
   *
   * @param stopped whether a limit tripped or the host cancelled the run: the wait then ends at once
   * @return false if no timer was pending, or the wait was stopped (the run's limits end it then)
   */
  boolean runNext(BooleanSupplier stopped) {
    Value until = untilNext.execute();
    long wait = until.fitsInLong() ? until.asLong() : -1;
    if (wait < 0) {
      return false;
    }
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait);
    for (long left = wait; left > 0; left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())) {
      if (stopped.getAsBoolean()) {
        return false;
      }
      try {
        Thread.sleep(Math.min(left, SLICE_MILLIS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    if (stopped.getAsBoolean()) {
      return false;
    }
    fireNext.execute();
    return true;
  }
}
