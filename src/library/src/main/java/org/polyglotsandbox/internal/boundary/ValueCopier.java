package org.polyglotsandbox.internal.boundary;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Value;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.SandboxEvent.OutputRejected.Reason;

/**
 * Copies a guest value out as plain, immutable Java data by walking the polyglot {@link Value} API.
 * Must run on the guest thread while the context is alive: getters, {@code __repr__}, iterators and
 * the {@link GuestMeasure} are guest code and run under the guest's own limits, so a getter that loops
 * forever ends the run on a limit, never hangs the host.
 *
 * <p>Produces only null, Boolean, Long, Double, BigInteger, String, unmodifiable List and unmodifiable
 * Map with String keys. Functions are left out (omitted from maps, {@code null} in lists); other guest
 * objects become their guest text form ({@code String(x)}, {@code repr(x)}). Every cap is checked
 * before the host allocates for it: a string's, key's or big number's length is asked of the guest
 * before it is copied, and all text together is bounded too. Anything past a cap, a cycle, and guest
 * code that raises while the value is read raise {@link ValueRejectedException} naming the path, such
 * as {@code $.rows[3].price}.
 *
 * <p>{@link #forArguments} is the strict variant for tool arguments: instead of leaving functions and
 * foreign objects out or turning objects into strings, it refuses them with {@link NotPlainDataException},
 * and guest errors raised while reading propagate unchanged.
 */
public final class ValueCopier {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  private static final Object SKIP = new Object();
  /** How much of a guest type's name a message shows. */
  private static final int KIND_SHOWN = 40;
  private static final int MESSAGE_SHOWN = 300;
  /**
   * The longest key and the most digits of an integer that the copy lets out, whatever the caps: what a
   * JSON reader with its default bounds accepts (Jackson 2 and 3 refuse a longer name or number; the
   * library's JSON of a result is read by the CLI, the MCP server and the embedder's own stack). One
   * bound, checked here: a result that breaks it is refused, naming the path, instead of failing later
   * in whoever parses its JSON.
   */
  public static final int MAX_KEY_LENGTH = 50_000;
  /** @see #MAX_KEY_LENGTH */
  public static final int MAX_INTEGER_DIGITS = 1_000;

  private final Language language;
  private final int maxNodes;
  private final int maxDepth;
  private final int maxString;
  private final long maxChars;
  private final String what;
  private final boolean plainDataOnly;
  /** The containers being copied, outermost first; {@code ancestors.get(i)} sits at {@code segments[0, i)}. */
  private final List<Value> ancestors = new ArrayList<>();
  /** Where the copy is: list indexes (Long) and map keys (String). */
  private final List<Object> segments = new ArrayList<>();
  /** The guest functions the copy asks, made in the run's context before any guest code ran. */
  private final GuestMeasure measure;
  private int nodes;
  private long chars;

  /**
   * A copier for a run's result, under the result caps of {@code limits}, that asks {@code measure}
   * (made in the run's context before any guest code ran: a guest that replaces {@code Object.keys},
   * {@code String}, {@code Promise}, {@code type} or {@code repr} changes nothing the copy relies on).
   */
  public ValueCopier(Language language, Limits limits, GuestMeasure measure) {
    this(language, limits.maxResultNodes(), limits.maxResultDepth(), limits.maxResultStringLength(),
        limits.maxResultChars(), "result", false, measure);
  }

  private ValueCopier(Language language, int maxNodes, int maxDepth, int maxString, long maxChars, String what,
      boolean plainDataOnly, GuestMeasure measure) {
    this.language = language;
    this.maxNodes = maxNodes;
    this.maxDepth = maxDepth;
    this.maxString = maxString;
    this.maxChars = maxChars;
    this.what = what;
    this.plainDataOnly = plainDataOnly;
    this.measure = java.util.Objects.requireNonNull(measure, "measure");
  }

  /**
   * A copier for tool arguments: only null, booleans, numbers, strings, arrays/lists/tuples and plain
   * objects/dicts; anything else raises {@link NotPlainDataException}. {@code maxString} bounds each
   * string and all text together. {@code measure} was made once for the run's context, before its guest.
   */
  public static ValueCopier forArguments(Language language, int maxNodes, int maxDepth, int maxString,
      GuestMeasure measure) {
    return new ValueCopier(language, maxNodes, maxDepth, maxString, maxString, "arguments", true, measure);
  }

  /**
   * Copies {@code value}; a top-level function becomes {@code null}.
   *
   * @throws ValueRejectedException if the value breaks a cap, contains a cycle, or (result copies
   *     only) guest code raised while it was read
   * @throws PolyglotException if the run was cancelled or exited meanwhile (and, for arguments, if
   *     guest code raised)
   */
  public Object copy(Value value) {
    nodes = 0;
    chars = 0;
    segments.clear();
    ancestors.clear();
    try {
      Object o = copy(value, 0);
      return o == SKIP ? null : o;
    } catch (ValueRejectedException | NotPlainDataException e) {
      throw e;
    } catch (PolyglotException e) {
      if (e.isCancelled() || e.isExit() || e.isInterrupted() || e.isResourceExhausted()) {
        throw e;
      }
      if (e.isGuestException() && !e.isInternalError()) { // an internal error counts as a guest exception
        if (plainDataOnly) {
          throw e; // the guest's own error, raised by its own code while it was read: it catches it itself
        }
        throw reject(Reason.UNREADABLE, "reading it raised "
            + TextSanitizer.oneLine(TextSanitizer.withoutHostNames(e.getMessage()), MESSAGE_SHOWN), "could not be read");
      }
      // The engine failed on a value that breaks an interop contract (a str subclass that is also a number,
      // ...): the value could not be read. Its text is the engine's, naming host classes: kept off the guest
      // and out of the result; the host log has it at DEBUG.
      LOG.log(System.Logger.Level.DEBUG, "a guest value could not be read", e);
      throw unreadable();
    } catch (IllegalStateException e) {
      throw e; // the context was closed under the copy: the run was cancelled
    } catch (RuntimeException e) {
      // A value that answered one way, then another (an array that shrank while it was read, a sequence
      // whose length its items deny): the polyglot API says so with a host exception, whose text names
      // host types. It never reaches the guest: the value is refused, naming where it changed.
      LOG.log(System.Logger.Level.DEBUG, "a guest value changed while it was read", e);
      throw changed();
    }
  }

  private ValueRejectedException unreadable() {
    String path = PlainData.path(segments, segments.size());
    return reject(Reason.UNREADABLE, "it could not be read", "could not be read (at " + path + ")");
  }

  private ValueRejectedException unsettled(String what) {
    return reject(Reason.UNSETTLED, what + " that was never awaited (only the program's own value is: await what"
        + " it holds before returning it)", "hold " + what + " that was never awaited");
  }

  private ValueRejectedException changed() {
    String path = PlainData.path(segments, segments.size());
    return reject(Reason.UNREADABLE, "it changed while it was read", "changed while they were read (at " + path + ")");
  }

  private Object copy(Value v, int depth) {
    if (++nodes > maxNodes) {
      throw tooMany();
    }
    if (v.isNull()) {
      return null;
    }
    if (v.isBoolean()) {
      return v.asBoolean();
    }
    if (v.isString()) {
      return string(v, "a string");
    }
    if (v.isNumber()) {
      return number(v);
    }
    if (v.isHostObject() || v.isProxyObject() || v.isNativePointer()) {
      if (plainDataOnly) {
        throw new NotPlainDataException(what + " may not hold host objects");
      }
      return SKIP; // nothing host-side is ever handed to the guest; never copy one back out
    }
    // Each question below is a call into the guest language; each is asked once (a tool call's arguments
    // go through here on every call).
    boolean callable = v.canExecute();
    boolean executable = callable || v.canInstantiate();
    if (plainDataOnly && executable) {
      throw new NotPlainDataException(what + " may not hold functions");
    }
    // An instant is also a date and a time.
    if (v.isDate() || v.isTime() || (plainDataOnly && (v.isDuration() || v.isTimeZone()))) {
      if (plainDataOnly) {
        throw new NotPlainDataException(what + " may not hold dates or times (pass them as strings)");
      }
      return v.isInstant() ? v.asInstant().toString() : text(v); // an instant is a few dozen characters
    }
    boolean array = v.hasArrayElements();
    boolean hash = !array && v.hasHashEntries();
    boolean iterable = !array && !hash && v.hasIterator();
    if (!array && !hash && !iterable && !(language == Language.JAVASCRIPT && !callable && v.hasMembers())) {
      if (plainDataOnly) {
        throw new NotPlainDataException(what + " may hold only null, booleans, numbers, strings, lists and"
            + " objects, not " + kind(v));
      }
      if (executable) {
        return SKIP;
      }
      if (language == Language.PYTHON && measure.isUnsettled(v)) {
        throw unsettled("a coroutine");
      }
      return text(v);
    }
    if (depth >= maxDepth) {
      throw reject(Reason.TOO_DEEP, "the " + what + " nests deeper than " + maxDepth + " levels"
          + cap("maxResultDepth"), "nest deeper than " + maxDepth + " levels");
    }
    for (int i = 0; i < ancestors.size(); i++) {
      if (ancestors.get(i).equals(v)) {
        throw reject(Reason.CYCLE, "a cycle: this value contains itself (it is also at "
            + PlainData.path(segments, i) + ")", "contain a cycle");
      }
    }
    ancestors.add(v);
    try {
      if (array) {
        return list(v, depth);
      }
      if (hash) {
        return hash(v, depth);
      }
      if (iterable) {
        return iterate(v, depth);
      }
      return members(v, depth);
    } finally {
      ancestors.remove(ancestors.size() - 1);
    }
  }

  /** A guest string as host text, its length checked against the caps before it is copied. */
  private String string(Value v, String kind) {
    long length = measure.length(v);
    checkText(length, kind);
    String s = v.asString();
    // Python counts code points; the host counts UTF-16 units, up to twice as many.
    checkText(s.length(), kind);
    chars += s.length();
    return s;
  }

  private void checkText(long length, String kind) {
    checkText(length, kind, "characters");
  }

  /** Checks a length against the caps; {@link Long#MAX_VALUE} means "more than maxString". */
  private void checkText(long length, String kind, String unit) {
    if (length > maxString) {
      String size = length == Long.MAX_VALUE ? "more than " + maxString : String.valueOf(length);
      throw reject(Reason.STRING_TOO_LONG, kind + " of " + size + " " + unit + ", longer than"
          + (plainDataOnly ? " " + maxString + " allowed" : " maxResultStringLength (" + maxString + ")"),
          "hold a string longer than " + maxString + " characters");
    }
    if (chars + length > maxChars) {
      throw reject(Reason.TOO_MUCH_TEXT, "the " + what + "'s text comes to more than " + maxChars
          + " characters in total" + cap("maxResultChars"), "hold more than " + maxChars + " characters of text");
    }
  }

  /** The guest's own text form of a value ({@code String(x)}, {@code repr(x)}), checked like a string. */
  private String text(Value v) {
    Value t = measure.text(v);
    if (!t.isString()) {
      throw reject(Reason.UNREADABLE, "its text form is not a string", "could not be read");
    }
    return string(t, "a text form");
  }

  private Object number(Value v) {
    if (v.fitsInLong() || v.fitsInBigInteger()) {
      boolean pythonFloat = language == Language.PYTHON && measure.isPythonFloat(v);
      if (!pythonFloat && v.fitsInLong()) {
        return v.asLong();
      }
      if (!pythonFloat) {
        // Enough bits for maxString decimal digits; log10(2) ~ 0.30103.
        long limitBits = (long) Math.ceil(maxString / 0.30103) + 4;
        long bits = measure.bits(v, limitBits);
        if (bits > limitBits && language == Language.JAVASCRIPT) { // JavaScript stops counting at the limit
          checkText(Long.MAX_VALUE, "a number", "digits");
        }
        long digits = bits * 30103 / 100000 + 1;
        checkText(digits, "a number", "digits");
        long fewest = bits <= 1 ? 1 : (bits - 1) * 30103 / 100000 + 1; // 2^(bits-1) has this many
        if (fewest > MAX_INTEGER_DIGITS) {
          throw tooManyDigits("more than " + MAX_INTEGER_DIGITS);
        }
        BigInteger b = v.asBigInteger();
        chars += digits;
        if (digits > MAX_INTEGER_DIGITS) { // near the bound: count them (at most a thousand or so)
          int exact = b.abs().toString().length();
          if (exact > MAX_INTEGER_DIGITS) {
            throw tooManyDigits(String.valueOf(exact));
          }
        }
        return b;
      }
    }
    if (v.fitsInDouble()) {
      double d = v.asDouble();
      if (plainDataOnly && !Double.isFinite(d)) {
        throw new NotPlainDataException(what + " may not hold " + d + " (JSON has no such number)");
      }
      return d;
    }
    if (plainDataOnly) {
      throw new NotPlainDataException(what + " may not hold this number: " + kind(v));
    }
    return text(v);
  }

  /**
   * The guest type's name, for messages. Asked of the guest already cut to {@link #KIND_SHOWN}
   * characters: a class name is guest data, and may be a million characters long.
   */
  private String kind(Value v) {
    Value name = measure.kind(v, KIND_SHOWN);
    if (name == null || !name.isString() || measure.length(name) > KIND_SHOWN) {
      return "this value";
    }
    String s = TextSanitizer.oneLine(name.asString(), KIND_SHOWN);
    return s.isEmpty() ? "this value" : "a " + s;
  }

  private List<Object> list(Value v, int depth) {
    long size = v.getArraySize();
    if (size > maxNodes - nodes) {
      throw tooMany();
    }
    List<Object> out = new ArrayList<>((int) size);
    for (long i = 0; i < size; i++) {
      segments.add(i);
      Object e = copy(v.getArrayElement(i), depth + 1);
      segments.remove(segments.size() - 1);
      out.add(e == SKIP ? null : e);
    }
    return Collections.unmodifiableList(out);
  }

  private Map<String, Object> hash(Value v, int depth) {
    Map<String, Object> out = new LinkedHashMap<>();
    Value it = v.getHashEntriesIterator();
    while (it.hasIteratorNextElement()) {
      Value entry = it.getIteratorNextElement();
      String key = key(entry.getArrayElement(0), depth);
      segments.add(key);
      Object value = copy(entry.getArrayElement(1), depth + 1);
      segments.remove(segments.size() - 1);
      put(out, key, value);
    }
    return Collections.unmodifiableMap(out);
  }

  private List<Object> iterate(Value v, int depth) {
    List<Object> out = new ArrayList<>();
    Value it = v.getIterator();
    for (long i = 0; it.hasIteratorNextElement(); i++) {
      segments.add(i);
      Object e = copy(it.getIteratorNextElement(), depth + 1);
      segments.remove(segments.size() - 1);
      out.add(e == SKIP ? null : e);
    }
    return Collections.unmodifiableList(out);
  }

  /** A JavaScript object: its own enumerable string keys, each value read once (getters run here). */
  private Map<String, Object> members(Value v, int depth) {
    Value keys = measure.keys(v);
    long size = keys.hasArrayElements() ? keys.getArraySize() : 0;
    if (size == 0 && measure.isUnsettled(v)) { // a Promise has no keys of its own: asked of empty objects only
      throw unsettled("a Promise");
    }
    if (size > maxNodes - nodes) {
      throw tooMany();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    for (long i = 0; i < size; i++) {
      Value k = keys.getArrayElement(i);
      if (!k.isString()) {
        throw reject(Reason.UNREADABLE, "it lists a key that is not a string", "could not be read");
      }
      String key = keyText(string(k, "a key"));
      if (++nodes > maxNodes) {
        throw tooMany();
      }
      segments.add(key);
      Value member = v.getMember(key);
      if (member == null) {
        throw changed(); // it listed the key, then did not have it
      }
      Object value = copy(member, depth + 1);
      segments.remove(segments.size() - 1);
      put(out, key, value);
    }
    return Collections.unmodifiableMap(out);
  }

  private String key(Value k, int depth) {
    Object key = copy(k, depth + 1);
    if (key instanceof String s) {
      return keyText(s);
    }
    String s = key == SKIP ? text(k) : String.valueOf(key);
    checkText(s.length(), "a key");
    chars += s.length();
    return keyText(s);
  }

  private ValueRejectedException tooManyDigits(String digits) {
    return reject(Reason.STRING_TOO_LONG, "an integer of " + digits + " digits, more than the "
        + MAX_INTEGER_DIGITS + " a JSON reader accepts (return it as a string)",
        "hold an integer of more than " + MAX_INTEGER_DIGITS + " digits");
  }

  /** {@code key}, if no longer than {@link #MAX_KEY_LENGTH}. */
  private String keyText(String key) {
    if (key.length() > MAX_KEY_LENGTH) {
      throw reject(Reason.STRING_TOO_LONG, "a key of " + key.length() + " characters, longer than the "
          + MAX_KEY_LENGTH + " a JSON reader accepts", "hold a key longer than " + MAX_KEY_LENGTH + " characters");
    }
    return key;
  }

  private static void put(Map<String, Object> out, String key, Object value) {
    if (value != SKIP) {
      out.put(key, value);
    }
  }

  private ValueRejectedException tooMany() {
    return reject(Reason.TOO_MANY_VALUES, "the " + what + " holds more than " + maxNodes + " values"
        + cap("maxResultNodes"), "hold more than " + maxNodes + " values");
  }

  private String cap(String name) {
    return plainDataOnly ? "" : " (" + name + ")";
  }

  /**
   * A rejection at the current path. Results read {@code "$.a[2]: detail"}; arguments keep the tool
   * gateway's wording, {@code "arguments hold more than 10000 values"}.
   */
  private ValueRejectedException reject(Reason reason, String detail, String argumentsWording) {
    String path = PlainData.path(segments, segments.size());
    return new ValueRejectedException(reason, path, detail,
        plainDataOnly ? what + " " + argumentsWording : path + ": " + detail);
  }
}
