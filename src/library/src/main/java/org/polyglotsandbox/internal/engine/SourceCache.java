package org.polyglotsandbox.internal.engine;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.graalvm.polyglot.Source;
import org.polyglotsandbox.Language;

/**
 * Keeps the {@link Source}s of recently run scripts alive, so that a fresh context running the same
 * script again reuses the engine's parsed and compiled code.
 *
 * <p>The engine caches code per source, but only while the {@code Source} object is reachable: once the
 * caller's copy is garbage-collected, the cache entry goes with it, and the next run of the same text
 * parses, profiles and compiles it all over again (measured: a JavaScript tool wrapper recompiled on
 * every run, taking a tool call from about 1 to 3-15 microseconds; see {@code benchmarks/RESULTS.md}).
 * This keeps the last {@code maxEntries} distinct scripts, at most {@code maxChars} characters of text
 * in all, least recently used first out. A script longer than a quarter of {@code maxChars} is never
 * kept. Nothing here is guest state: a source is immutable text, and each context still gets its own
 * globals, objects and files.
 */
public final class SourceCache {
  private record Key(Language language, String name, String code) {}

  private final int maxEntries;
  private final long maxChars;
  private final LinkedHashMap<Key, Source> sources = new LinkedHashMap<>(16, 0.75f, true);
  private long chars;

  /**
   * @param maxEntries distinct scripts kept, at least 0
   * @param maxChars characters of script text kept in all, at least 0
   */
  public SourceCache(int maxEntries, long maxChars) {
    if (maxEntries < 0 || maxChars < 0) {
      throw new IllegalArgumentException("maxEntries and maxChars must be at least 0");
    }
    this.maxEntries = maxEntries;
    this.maxChars = maxChars;
  }

  /** The source for this script text: the one kept from an earlier run, or a new one (then kept if it fits). */
  public Source get(Language language, String name, String code) {
    Key key = new Key(language, name, code);
    synchronized (this) {
      Source known = sources.get(key);
      if (known != null) {
        return known;
      }
    }
    Source source = Source.newBuilder(language.id(), code, name).buildLiteral();
    long size = code.length() + (long) name.length();
    if (maxEntries == 0 || size > maxChars / 4) {
      return source;
    }
    synchronized (this) {
      Source raced = sources.putIfAbsent(key, source);
      if (raced != null) {
        return raced;
      }
      chars += size;
      Iterator<Map.Entry<Key, Source>> oldest = sources.entrySet().iterator();
      while (sources.size() > maxEntries || chars > maxChars) {
        Key k = oldest.next().getKey();
        oldest.remove();
        chars -= k.code().length() + (long) k.name().length();
      }
    }
    return source;
  }

  /** Whether this script's source is kept now. */
  synchronized boolean isKept(Language language, String name, String code) {
    return sources.containsKey(new Key(language, name, code));
  }

  /** How many sources are kept now. */
  public synchronized int size() {
    return sources.size();
  }

  /** Characters of script text kept now. */
  public synchronized long chars() {
    return chars;
  }
}
