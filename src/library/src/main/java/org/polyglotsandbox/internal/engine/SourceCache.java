package org.polyglotsandbox.internal.engine;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.graalvm.polyglot.Source;
import org.polyglotsandbox.Language;

/**
 * Keeps the {@link Source}s of scripts run more than once alive, so that a fresh context running the
 * same script again reuses the engine's parsed and compiled code; a script seen for the first time gets
 * a source the engine does not cache at all.
 *
 * <p>The engine caches code per source, but only while the {@code Source} object is reachable: once the
 * caller's copy is garbage-collected, the cache entry goes with it, and the next run of the same text
 * parses, profiles and compiles it all over again (measured: a JavaScript tool wrapper recompiled on
 * every run, taking a tool call from about 1 to 3-15 microseconds; see {@code benchmarks/RESULTS.md}).
 * This keeps the last {@code maxEntries} distinct scripts, at most {@code maxChars} characters of text
 * in all, least recently used first out. A script longer than a quarter of {@code maxChars} is never
 * kept. Nothing here is guest state: a source is immutable text, and each context still gets its own
 * globals, objects and files.
 *
 * <p><b>Only a script seen before is cached.</b> Most scripts an agent's model writes run once. The
 * engine's cache entry for such a source outlives the run (the entry is dropped only after a collection
 * has found its {@code Source} unreachable), so under a stream of new texts the code of thousands of
 * finished runs survives young collections, fills the old generation and is copied on every pause:
 * with a new text per task, raw contexts on a shared engine and a sandbox that cached every source kept
 * 1.4-2.7 GB after each young pause, with pauses of 120-200 ms; with uncached sources, 27-64 MB and
 * 2 ms (RESULTS.md, 2026-12-04). So a text's first run gets a source built with
 * {@code cached(false)}, whose code lives and dies with its context, and its fingerprint is remembered
 * in a small table of recent sightings; a second run of the same text (language, name and text) within
 * that memory gets a cached source, which this class then keeps. The cost: a repeated script is parsed
 * once more than it would be otherwise, on its second run. A fingerprint collision only caches a text on
 * its first run (the cache itself is keyed by the whole text).
 */
public final class SourceCache {
  private record Key(Language language, String name, String code) {}

  /** Recent first sightings, direct-mapped: 8,192 fingerprints (64 KiB), the newest in each slot. */
  private static final int SIGHTINGS = 1 << 13;

  private final int maxEntries;
  private final long maxChars;
  private final LinkedHashMap<Key, Source> sources = new LinkedHashMap<>(16, 0.75f, true);
  private final long[] sightings = new long[SIGHTINGS];
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

  /**
   * The source for this script text: the one kept from an earlier run; on the text's second sighting a
   * new cached source, kept if it fits; otherwise a new source the engine does not cache.
   */
  public Source get(Language language, String name, String code) {
    Key key = new Key(language, name, code);
    long size = code.length() + (long) name.length();
    boolean keep;
    synchronized (this) {
      Source known = sources.get(key);
      if (known != null) {
        return known;
      }
      keep = maxEntries > 0 && size <= maxChars / 4 && seenBefore(key);
    }
    if (!keep) {
      // Built outside the lock, as below: building a source hashes its whole text.
      return Source.newBuilder(language.id(), code, name).cached(false).buildLiteral();
    }
    Source source = Source.newBuilder(language.id(), code, name).buildLiteral();
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

  /**
   * Whether {@code key}'s fingerprint is in the sightings table, which then forgets it; if it is not,
   * it goes in, in place of whatever shared its slot. Called with the lock held.
   */
  private boolean seenBefore(Key key) {
    long h = key.code().hashCode() * 0x9E3779B97F4A7C15L + key.code().length();
    h = (h ^ (h >>> 31)) * 0xBF58476D1CE4E5B9L + key.name().hashCode();
    h = (h ^ (h >>> 29)) * 0x94D049BB133111EBL + key.language().ordinal();
    long fingerprint = (h ^ (h >>> 32)) | 1; // never 0, an empty slot
    int slot = (int) h & (sightings.length - 1);
    if (sightings[slot] == fingerprint) {
      sightings[slot] = 0;
      return true;
    }
    sightings[slot] = fingerprint;
    return false;
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
