package org.polyglotsandbox.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.graalvm.polyglot.Source;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;

class SourceCacheTest {
  private static final Language JS = Language.JAVASCRIPT;

  @Test
  void sameScript_isKeptOnce_underLanguageNameAndText() {
    SourceCache cache = new SourceCache(8, 1000);
    Source a = cache.get(JS, "main.js", "6*7");
    assertThat(cache.get(JS, "main.js", "6*7")).isSameAs(a);
    assertThat(cache.size()).isEqualTo(1);
    cache.get(JS, "other.js", "6*7");
    cache.get(JS, "main.js", "6*8");
    cache.get(Language.PYTHON, "main.js", "6*7");
    assertThat(cache.size()).isEqualTo(4);
    assertThat(cache.chars()).isEqualTo(10 + 11 + 10 + 10); // name and text
    assertThat(a.getCharacters().toString()).isEqualTo("6*7");
    assertThat(a.getName()).isEqualTo("main.js");
    assertThat(a.getLanguage()).isEqualTo("js");
  }

  @Test
  void pastMaxEntries_theLeastRecentlyUsedGoes() {
    SourceCache cache = new SourceCache(2, 1000);
    cache.get(JS, "a", "1");
    cache.get(JS, "b", "2");
    cache.get(JS, "a", "1"); // a is now more recent than b
    cache.get(JS, "c", "3");
    assertThat(cache.size()).isEqualTo(2);
    assertThat(cache.isKept(JS, "a", "1")).isTrue();
    assertThat(cache.isKept(JS, "b", "2")).isFalse();
    assertThat(cache.isKept(JS, "c", "3")).isTrue();
  }

  @Test
  void keptText_staysUnderMaxChars_andAnOversizedScriptIsNeverKept() {
    SourceCache cache = new SourceCache(100, 40);
    for (int i = 0; i < 10; i++) {
      cache.get(JS, "s" + i, "x".repeat(8)); // 10 characters each with the name
      assertThat(cache.chars()).isLessThanOrEqualTo(40);
    }
    assertThat(cache.size()).isEqualTo(4);
    assertThat(cache.isKept(JS, "s9", "x".repeat(8))).isTrue();
    assertThat(cache.isKept(JS, "s5", "x".repeat(8))).isFalse();
    Source big = cache.get(JS, "big", "y".repeat(20));
    assertThat(big.getCharacters().length()).isEqualTo(20);
    assertThat(cache.isKept(JS, "big", "y".repeat(20))).isFalse();
    assertThat(cache.size()).isEqualTo(4);
  }

  @Test
  void zeroEntries_keepsNothing_andNegativeBoundsAreRefused() {
    SourceCache none = new SourceCache(0, 1000);
    none.get(JS, "a", "1");
    assertThat(none.isKept(JS, "a", "1")).isFalse();
    assertThat(none.size()).isZero();
    assertThatThrownBy(() -> new SourceCache(-1, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SourceCache(1, -10)).isInstanceOf(IllegalArgumentException.class);
  }
}
