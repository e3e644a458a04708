package org.polyglotsandbox.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.graalvm.polyglot.Source;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;

class SourceCacheTest {
  private static final Language JS = Language.JAVASCRIPT;

  /**
   * Whether the engine caches {@code source}'s code: a {@link Source} has no getter for it, but two sources
   * of one text are equal only if both are cached or both are not.
   */
  private static boolean cachedByEngine(Source source) {
    Source cached = Source.newBuilder(source.getLanguage(), source.getCharacters(), source.getName()).buildLiteral();
    Source uncached = Source.newBuilder(source.getLanguage(), source.getCharacters(), source.getName())
        .cached(false).buildLiteral();
    assertThat(cached).isNotEqualTo(uncached); // else this check could not tell them apart
    return source.equals(cached);
  }

  /** A script's second sighting: the first one only puts it in the sightings table. */
  private static Source seenTwice(SourceCache cache, Language language, String name, String code) {
    cache.get(language, name, code);
    return cache.get(language, name, code);
  }

  @Test
  void aScriptSeenOnce_getsASourceTheEngineDoesNotCache_andIsNotKept() {
    SourceCache cache = new SourceCache(8, 1000);
    Source first = cache.get(JS, "main.js", "6*7");
    assertThat(cachedByEngine(first)).isFalse();
    assertThat(first.getCharacters().toString()).isEqualTo("6*7");
    assertThat(first.getName()).isEqualTo("main.js");
    assertThat(first.getLanguage()).isEqualTo("js");
    assertThat(cache.isKept(JS, "main.js", "6*7")).isFalse();
    assertThat(cache.size()).isZero();
  }

  @Test
  void theSecondSighting_isCachedAndKept_andLaterRunsGetTheSameSource() {
    SourceCache cache = new SourceCache(8, 1000);
    cache.get(JS, "main.js", "6*7");
    cache.get(JS, "other.js", "1+1"); // another text in between
    Source second = cache.get(JS, "main.js", "6*7");
    assertThat(cachedByEngine(second)).isTrue();
    assertThat(cache.isKept(JS, "main.js", "6*7")).isTrue();
    assertThat(cache.get(JS, "main.js", "6*7")).isSameAs(second);
    assertThat(cache.isKept(JS, "other.js", "1+1")).isFalse();
  }

  @Test
  void sameScript_isKeptOnce_underLanguageNameAndText() {
    SourceCache cache = new SourceCache(8, 1000);
    Source a = seenTwice(cache, JS, "main.js", "6*7");
    assertThat(cache.get(JS, "main.js", "6*7")).isSameAs(a);
    assertThat(cache.size()).isEqualTo(1);
    // Each differs from "main.js" "6*7" in one of the three: a first sighting of its own, not kept.
    assertThat(cachedByEngine(cache.get(JS, "other.js", "6*7"))).isFalse();
    assertThat(cachedByEngine(cache.get(JS, "main.js", "6*8"))).isFalse();
    assertThat(cachedByEngine(cache.get(Language.PYTHON, "main.js", "6*7"))).isFalse();
    assertThat(cache.size()).isEqualTo(1);
    seenTwice(cache, JS, "other.js", "6*7");
    seenTwice(cache, JS, "main.js", "6*8");
    seenTwice(cache, Language.PYTHON, "main.js", "6*7");
    assertThat(cache.size()).isEqualTo(4);
    assertThat(cache.chars()).isEqualTo(10 + 11 + 10 + 10); // name and text
  }

  @Test
  void aThousandNewTexts_keepNothing_andLeaveNoCachedSource() {
    SourceCache cache = new SourceCache(256, 1 << 20);
    for (int i = 0; i < 1000; i++) {
      assertThat(cachedByEngine(cache.get(JS, "main.js", "// " + i + "\n6*7"))).as("text %d", i).isFalse();
    }
    assertThat(cache.size()).isZero();
    assertThat(cache.chars()).isZero();
  }

  @Test
  void pastMaxEntries_theLeastRecentlyUsedGoes() {
    SourceCache cache = new SourceCache(2, 1000);
    seenTwice(cache, JS, "a", "1");
    seenTwice(cache, JS, "b", "2");
    cache.get(JS, "a", "1"); // a is now more recent than b
    seenTwice(cache, JS, "c", "3");
    assertThat(cache.size()).isEqualTo(2);
    assertThat(cache.isKept(JS, "a", "1")).isTrue();
    assertThat(cache.isKept(JS, "b", "2")).isFalse();
    assertThat(cache.isKept(JS, "c", "3")).isTrue();
  }

  @Test
  void keptText_staysUnderMaxChars_andAnOversizedScriptIsNeverKeptNorCached() {
    SourceCache cache = new SourceCache(100, 40);
    for (int i = 0; i < 10; i++) {
      seenTwice(cache, JS, "s" + i, "x".repeat(8)); // 10 characters each with the name
      assertThat(cache.chars()).isLessThanOrEqualTo(40);
    }
    assertThat(cache.size()).isEqualTo(4);
    assertThat(cache.isKept(JS, "s9", "x".repeat(8))).isTrue();
    assertThat(cache.isKept(JS, "s5", "x".repeat(8))).isFalse();
    Source big = seenTwice(cache, JS, "big", "y".repeat(20));
    assertThat(big.getCharacters().length()).isEqualTo(20);
    assertThat(cachedByEngine(big)).isFalse();
    assertThat(cache.isKept(JS, "big", "y".repeat(20))).isFalse();
    assertThat(cache.size()).isEqualTo(4);
  }

  @Test
  void zeroEntries_keepsNothing_andNegativeBoundsAreRefused() {
    SourceCache none = new SourceCache(0, 1000);
    assertThat(cachedByEngine(seenTwice(none, JS, "a", "1"))).isFalse();
    assertThat(none.isKept(JS, "a", "1")).isFalse();
    assertThat(none.size()).isZero();
    assertThatThrownBy(() -> new SourceCache(-1, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SourceCache(1, -10)).isInstanceOf(IllegalArgumentException.class);
  }
}
