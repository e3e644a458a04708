package org.polyglotsandbox.internal.engine;

import java.math.BigInteger;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyExecutable;

/**
 * The host half of the Python bounds ({@link BuiltinBounds}): {@link ProcessShield}'s replacements of
 * {@code math.factorial}, {@code math.comb}, {@code math.perm} and {@code sys.set_int_max_str_digits}
 * hand it their arguments, converted to ints, and it checks them and calls GraalPy's original. The
 * originals live only here: a guest can read a Python function's closure, and one kept there would be a
 * way around the bound. A guest that digs this function out of a closure can only make the same checked
 * calls. Refusals are the guest's own {@code OverflowError} or {@code ValueError}, naming the value and
 * the bound; whatever the original raises (a negative argument, a wrong type) passes through unchanged.
 */
final class PythonBuiltinBounds implements ProxyExecutable {
  /** The first argument of each call: which builtin, in the order of the shield's {@code originals}. */
  private static final int FACTORIAL = 0;
  private static final int COMB = 1;
  private static final int PERM = 2;
  private static final int SET_INT_MAX_STR_DIGITS = 3;
  /** Below this, an int is shown whole in a message; above, by its size (its digits may be unprintable). */
  private static final BigInteger SHOWN_WHOLE = BigInteger.TEN.pow(18);

  private Value factorial;
  private Value comb;
  private Value perm;
  private Value setIntMaxStrDigits;
  private Value valueError;
  private Value overflowError;
  private Value typeError;

  /** Takes the shield's {@code originals}: the four builtins, then ValueError, OverflowError, TypeError. */
  void take(Value originals) {
    factorial = originals.getArrayElement(0);
    comb = originals.getArrayElement(1);
    perm = originals.getArrayElement(2);
    setIntMaxStrDigits = originals.getArrayElement(3);
    valueError = originals.getArrayElement(4);
    overflowError = originals.getArrayElement(5);
    typeError = originals.getArrayElement(6);
  }

  @Override
  public Object execute(Value... args) {
    if (typeError == null) {
      return null; // the shield is still being installed: nothing calls it then
    }
    int which = args.length > 0 && args[0].fitsInInt() ? args[0].asInt() : -1;
    if (args.length != (which == COMB || which == PERM ? 3 : 2)) {
      throw raise(typeError, "bounded() takes a builtin's index and its arguments");
    }
    return switch (which) {
      case FACTORIAL -> {
        checkFactorial("factorial", integer(args[1]));
        yield factorial.execute(args[1]);
      }
      case COMB -> {
        BigInteger n = integer(args[1]);
        BigInteger k = integer(args[2]);
        if (n.signum() >= 0 && k.signum() >= 0 && k.compareTo(n) <= 0) {
          checkWork("comb", n, k, k.min(n.subtract(k)));
        }
        yield comb.execute(args[1], args[2]);
      }
      case PERM -> {
        BigInteger n = integer(args[1]);
        Value kValue = args[2];
        if (kValue.isNull()) {
          checkFactorial("perm", n);
          yield perm.execute(args[1]);
        }
        BigInteger k = integer(kValue);
        if (n.signum() >= 0 && k.signum() >= 0 && k.compareTo(n) <= 0) {
          checkWork("perm", n, k, k);
        }
        yield perm.execute(args[1], kValue);
      }
      case SET_INT_MAX_STR_DIGITS -> {
        BigInteger digits = integer(args[1]);
        if (digits.signum() == 0) {
          throw raise(valueError, "sys.set_int_max_str_digits: 0 (no limit) is not allowed in the sandbox; the most is "
              + BuiltinBounds.MAX_INT_STR_DIGITS + " digits");
        }
        if (digits.compareTo(BigInteger.valueOf(BuiltinBounds.MAX_INT_STR_DIGITS)) > 0) {
          throw raise(valueError, "sys.set_int_max_str_digits: " + shown(digits)
              + " is above the sandbox's maximum of " + BuiltinBounds.MAX_INT_STR_DIGITS + " digits");
        }
        yield setIntMaxStrDigits.execute(args[1]);
      }
      default -> throw raise(typeError, "bounded() has no builtin " + which);
    };
  }

  private void checkFactorial(String function, BigInteger n) {
    if (n.compareTo(BigInteger.valueOf(BuiltinBounds.MAX_FACTORIAL_ARGUMENT)) > 0) {
      throw raise(overflowError, function + "() argument " + shown(n) + " is above the sandbox's maximum of "
          + BuiltinBounds.MAX_FACTORIAL_ARGUMENT);
    }
  }

  /** Refuses a comb or perm of {@code factors} factors whose work (factors^2 x bits of n) is over the bound. */
  private void checkWork(String function, BigInteger n, BigInteger k, BigInteger factors) {
    double work = factors.doubleValue() * factors.doubleValue() * n.bitLength();
    if (work > BuiltinBounds.MAX_COMBINATORIAL_WORK) {
      throw raise(overflowError, function + "(" + shown(n) + ", " + shown(k) + ") is above the sandbox's bound: "
          + shown(factors) + " factors of up to " + n.bitLength() + " bits, and factors squared times bits may be at most "
          + BuiltinBounds.MAX_COMBINATORIAL_WORK);
    }
  }

  /** The int the shield's wrapper passed; anything else is refused, so only checked values reach an original. */
  private BigInteger integer(Value v) {
    if (v.fitsInLong()) {
      return BigInteger.valueOf(v.asLong());
    }
    if (v.fitsInBigInteger()) {
      return v.asBigInteger();
    }
    throw raise(typeError, "bounded() takes only ints");
  }

  private static String shown(BigInteger n) {
    return n.abs().compareTo(SHOWN_WHOLE) < 0 ? n.toString() : "an int of " + n.bitLength() + " bits";
  }

  private static RuntimeException raise(Value type, String message) {
    throw type.newInstance(message).throwException();
  }
}
