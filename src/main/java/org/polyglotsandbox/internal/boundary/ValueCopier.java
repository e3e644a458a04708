package org.polyglotsandbox.internal.boundary;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.graalvm.polyglot.Value;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;

/**
 * Copies a guest value out as plain, immutable Java data by walking the polyglot {@link Value} API.
 * Must run on the guest thread while the context is alive: getters, {@code __repr__} and iterators are
 * guest code and run under the guest's own limits.
 *
 * <p>Produces only null, Boolean, Long, Double, BigInteger, String, unmodifiable List and unmodifiable
 * Map with String keys. Functions are left out (omitted from maps, {@code null} in lists); other guest
 * objects become their string form. Cycles, and values past the result limits, raise
 * {@link ResultTooLargeException}.
 *
 * <p>{@link #forArguments} is the strict variant for tool arguments: instead of leaving functions and
 * foreign objects out or turning objects into strings, it refuses them with {@link NotPlainDataException}.
 */
public final class ValueCopier {
  private static final Object SKIP = new Object();

  private final Language language;
  private final int maxNodes;
  private final int maxDepth;
  private final int maxString;
  private final String what;
  private final boolean plainDataOnly;
  private final Deque<Value> path = new ArrayDeque<>();
  private int nodes;

  public ValueCopier(Language language, Limits limits) {
    this(language, limits.maxResultNodes(), limits.maxResultDepth(), limits.maxResultStringLength(), "result",
        false);
  }

  private ValueCopier(Language language, int maxNodes, int maxDepth, int maxString, String what,
      boolean plainDataOnly) {
    this.language = language;
    this.maxNodes = maxNodes;
    this.maxDepth = maxDepth;
    this.maxString = maxString;
    this.what = what;
    this.plainDataOnly = plainDataOnly;
  }

  /**
   * A copier for tool arguments: only null, booleans, numbers, strings, arrays/lists/tuples and plain
   * objects/dicts; anything else raises {@link NotPlainDataException}.
   */
  public static ValueCopier forArguments(Language language, int maxNodes, int maxDepth, int maxString) {
    return new ValueCopier(language, maxNodes, maxDepth, maxString, "arguments", true);
  }

  /** Copies {@code value}; a top-level function becomes {@code null}. */
  public Object copy(Value value) {
    Object o = copy(value, 0);
    return o == SKIP ? null : o;
  }

  private Object copy(Value v, int depth) {
    if (++nodes > maxNodes) {
      throw new ResultTooLargeException(what + " hold" + (plainDataOnly ? "" : "s") + " more than " + maxNodes + " values");
    }
    if (v.isNull()) {
      return null;
    }
    if (v.isBoolean()) {
      return v.asBoolean();
    }
    if (v.isString()) {
      return bounded(v.asString());
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
    if (plainDataOnly && (v.canExecute() || v.canInstantiate())) {
      throw new NotPlainDataException(what + " may not hold functions");
    }
    if (plainDataOnly && (v.isInstant() || v.isDate() || v.isTime() || v.isDuration() || v.isTimeZone())) {
      throw new NotPlainDataException(what + " may not hold dates or times (pass them as strings)");
    }
    if (v.isInstant() || v.isDate() || v.isTime()) {
      return bounded(v.isInstant() ? v.asInstant().toString() : v.toString());
    }
    boolean container = v.hasArrayElements() || v.hasHashEntries() || v.hasIterator()
        || (language == Language.JAVASCRIPT && v.hasMembers() && !v.canExecute());
    if (!container) {
      if (plainDataOnly) {
        throw new NotPlainDataException(what + " may hold only null, booleans, numbers, strings, lists and"
            + " objects, not " + kind(v));
      }
      return v.canExecute() || v.canInstantiate() ? SKIP : bounded(v.toString());
    }
    if (depth >= maxDepth) {
      throw new ResultTooLargeException(what + " nest" + (plainDataOnly ? "" : "s") + " deeper than " + maxDepth + " levels");
    }
    for (Value ancestor : path) {
      if (ancestor.equals(v)) {
        throw new ResultTooLargeException(what + " contain" + (plainDataOnly ? "" : "s") + " a cycle");
      }
    }
    path.push(v);
    try {
      if (v.hasArrayElements()) {
        return list(v, depth);
      }
      if (v.hasHashEntries()) {
        return hash(v, depth);
      }
      if (v.hasIterator()) {
        return iterate(v, depth);
      }
      return members(v, depth);
    } finally {
      path.pop();
    }
  }

  private Object number(Value v) {
    boolean pythonFloat = language == Language.PYTHON && "float".equals(metaName(v));
    if (!pythonFloat && v.fitsInLong()) {
      return v.asLong();
    }
    if (!pythonFloat && v.fitsInBigInteger()) {
      return v.asBigInteger();
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
    return bounded(v.toString());
  }

  /** The guest type's simple name, for messages; bounded so a guest-chosen class name cannot flood them. */
  private static String kind(Value v) {
    String name = metaName(v);
    return name.isEmpty() ? "this value" : "a " + (name.length() > 40 ? name.substring(0, 40) : name);
  }

  private static String metaName(Value v) {
    Value meta = v.getMetaObject();
    return meta == null ? "" : meta.getMetaSimpleName();
  }

  private List<Object> list(Value v, int depth) {
    long size = v.getArraySize();
    if (size > maxNodes - nodes) {
      throw new ResultTooLargeException(what + " hold" + (plainDataOnly ? "" : "s") + " more than " + maxNodes + " values");
    }
    List<Object> out = new ArrayList<>((int) size);
    for (long i = 0; i < size; i++) {
      Object e = copy(v.getArrayElement(i), depth + 1);
      out.add(e == SKIP ? null : e);
    }
    return Collections.unmodifiableList(out);
  }

  private Map<String, Object> hash(Value v, int depth) {
    Map<String, Object> out = new LinkedHashMap<>();
    Value it = v.getHashEntriesIterator();
    while (it.hasIteratorNextElement()) {
      Value entry = it.getIteratorNextElement();
      put(out, key(entry.getArrayElement(0), depth), copy(entry.getArrayElement(1), depth + 1));
    }
    return Collections.unmodifiableMap(out);
  }

  private List<Object> iterate(Value v, int depth) {
    List<Object> out = new ArrayList<>();
    Value it = v.getIterator();
    while (it.hasIteratorNextElement()) {
      Object e = copy(it.getIteratorNextElement(), depth + 1);
      out.add(e == SKIP ? null : e);
    }
    return Collections.unmodifiableList(out);
  }

  private Map<String, Object> members(Value v, int depth) {
    Map<String, Object> out = new LinkedHashMap<>();
    Iterator<String> keys = v.getMemberKeys().iterator();
    while (keys.hasNext()) {
      String key = bounded(keys.next());
      if (++nodes > maxNodes) {
        throw new ResultTooLargeException(what + " hold" + (plainDataOnly ? "" : "s") + " more than " + maxNodes + " values");
      }
      put(out, key, copy(v.getMember(key), depth + 1));
    }
    return Collections.unmodifiableMap(out);
  }

  private String key(Value k, int depth) {
    Object key = copy(k, depth + 1);
    return key instanceof String s ? s : bounded(String.valueOf(key == SKIP ? k.toString() : key));
  }

  private static void put(Map<String, Object> out, String key, Object value) {
    if (value != SKIP) {
      out.put(key, value);
    }
  }

  private String bounded(String s) {
    if (s.length() > maxString) {
      throw new ResultTooLargeException(what + " hold" + (plainDataOnly ? "" : "s") + " a string longer than " + maxString + " characters");
    }
    return s;
  }
}
