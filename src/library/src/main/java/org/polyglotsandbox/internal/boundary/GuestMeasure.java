package org.polyglotsandbox.internal.boundary;

import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.polyglotsandbox.Language;

/**
 * Measures a guest value before the {@link ValueCopier} turns it into host data (guest functions asked
 * on the guest thread; not to be confused with the escape probe, which attacks the sandbox), so that
 * the size of a string, key or big number is known <em>before</em> it is copied onto the host heap.
 * (The polyglot API has no length query: {@code asString()} would materialise a 500-million-character
 * string, or a lazily concatenated rope, on the host first; {@code getMetaSimpleName()} would copy a
 * class name of any length.)
 *
 * <p>The length functions cannot be faked by guest code: JavaScript's {@code length} of a primitive
 * string, and Python's {@code str.__len__} and {@code int.bit_length} taken from literals, whose types
 * are immutable. The text form ({@code String(x)}, {@code repr(x)}) and JavaScript's key listing are
 * guest functions the guest may have replaced; that only changes its own output, which is checked
 * like everything else. Calls run on the guest thread under the guest's limits.
 */
public final class GuestMeasure {
  private static final Source JAVASCRIPT = Source.newBuilder("js", """
      (() => {
        const keys = Object.keys;
        const text = String;
        const big = BigInt;
        const promise = Promise;
        return [
          (s) => s.length,
          (x, limit) => {
            // The bit length, or limit + 1 if it is larger, by shifting: the number is never written out,
            // and past the limit a single shift decides.
            let n = typeof x === 'bigint' ? x : big(x);
            if (n < 0n) { n = -n; }
            const max = big(limit);
            if ((n >> max) > 0n) { return limit + 1; }
            let lo = 0n;
            let hi = max;
            while (lo < hi) { const mid = (lo + hi) / 2n; if ((n >> mid) > 0n) { lo = mid + 1n; } else { hi = mid; } }
            return Number(lo);
          },
          (x) => text(x),
          (o) => keys(o),
          null,
          (x, n) => typeof x,
          (x) => { try { return x instanceof promise; } catch (e) { return false; } },
        ];
      })()""", "output-boundary.js").internal(true).buildLiteral();
  private static final Source PYTHON = Source.newBuilder("python",
      "(''.__class__.__len__, lambda n, limit, b=(0).__class__.bit_length: b(n), repr, None, (0.0).__class__,"
          + " lambda x, n, t=type, name=type.__dict__['__name__'].__get__: name(t(x))[:n],"
          + " lambda x, t=type, name=type.__dict__['__name__'].__get__, module=type.__dict__['__module__'].__get__:"
          + " name(t(x)) == 'coroutine' and module(t(x)) == 'builtins')",
      "output-boundary.py").internal(true).buildLiteral();

  private final Value length;
  private final Value bits;
  private final Value text;
  private final Value keys;
  private final Value floatType;
  private final Value kind;
  private final Value unsettled;

  private GuestMeasure(Value functions) {
    this.length = functions.getArrayElement(0);
    this.bits = functions.getArrayElement(1);
    this.text = functions.getArrayElement(2);
    this.keys = functions.getArrayElement(3);
    Value f = functions.getArrayElement(4);
    this.floatType = f.isNull() ? null : f;
    this.kind = functions.getArrayElement(5);
    this.unsettled = functions.getArrayElement(6);
  }

  /**
   * Evaluates the probe in {@code context}, which must be entered or enterable on this thread. Made
   * before guest code runs, it holds the guest's original {@code Object.keys} and {@code String}.
   */
  public static GuestMeasure in(Context context, Language language) {
    return new GuestMeasure(context.eval(language == Language.PYTHON ? PYTHON : JAVASCRIPT));
  }

  /** The length in UTF-16 units (JavaScript) or code points (Python) of a guest string. */
  public long length(Value string) {
    return length.execute(string).asLong();
  }

  /**
   * How many bits a guest integer has, without its digits ever being written out; JavaScript answers
   * {@code limit + 1} for anything longer than {@code limit} bits.
   */
  long bits(Value integer, long limit) {
    return bits.execute(integer, limit).asLong();
  }

  /** The guest's own text form of a value: {@code String(x)} or {@code repr(x)}; may be any value. */
  Value text(Value v) {
    return text.execute(v);
  }

  /** JavaScript only: the object's own enumerable string keys, as a guest array. */
  Value keys(Value object) {
    return keys.execute(object);
  }

  /**
   * The name of a value's type, cut by the guest to at most {@code max} characters before the host
   * reads it: JavaScript's {@code typeof}; Python's {@code type(x).__name__}, read through
   * {@code type}'s own descriptor, so neither {@code __class__} nor a metaclass can lie or loop.
   */
  Value kind(Value v, int max) {
    return kind.execute(v, max);
  }

  /**
   * Whether the value is still to be awaited: a JavaScript Promise (an instance of {@code Promise} as
   * it was when this probe was made), a Python coroutine (its type's own name and module, read through
   * {@code type}'s descriptors: nothing the guest imported or patched is asked).
   */
  boolean isUnsettled(Value v) {
    return unsettled.execute(v).asBoolean();
  }

  /** Python only: whether the value is a {@code float} (or a subclass), which must stay a Double. */
  boolean isPythonFloat(Value v) {
    return floatType != null && floatType.isMetaInstance(v);
  }
}
