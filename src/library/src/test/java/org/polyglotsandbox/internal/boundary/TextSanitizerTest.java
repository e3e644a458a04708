package org.polyglotsandbox.internal.boundary;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The sanitiser every piece of guest text passes before it reaches an {@code ExecutionResult}. */
class TextSanitizerTest {
  private static final String R = "\uFFFD";

  private static TextSanitizer.Result clean(String s) {
    return TextSanitizer.clean(s);
  }

  @Test
  void csiSequences_areRemovedWhole() {
    TextSanitizer.Result r = clean("a\u001b[31mred\u001b[0m \u001b[2J\u001b[1;1Hb\u001b[?25l");
    assertThat(r.text()).isEqualTo("ared b");
    assertThat(r.escapeSequences()).isEqualTo(5);
    assertThat(r.controls()).isZero();
  }

  @Test
  void oscSequences_endAtBelOrSt_andHyperlinksKeepTheirText() {
    TextSanitizer.Result r = clean("x\u001b]0;evil title\u0007y\u001b]8;;http://evil.example\u001b\\link\u001b]8;;\u001b\\z");
    assertThat(r.text()).isEqualTo("xylinkz");
    assertThat(r.escapeSequences()).isEqualTo(3);
  }

  @Test
  void unterminatedControlString_endsAtTheLineEnd_soItCannotSwallowTheRest() {
    assertThat(clean("a\u001b]0;swallowed\nkept").text()).isEqualTo("a\nkept");
    assertThat(clean("a\u001bPq#0;2;0;0;0\u001b[1mb").text()).isEqualTo("ab"); // an ESC ends it too
  }

  @Test
  void c1ControlSequences_andOtherEscapeForms_areRemoved() {
    assertThat(clean("a\u009b2Jb\u009d0;t\u009cc").text()).isEqualTo("abc");
    assertThat(clean("\u001bPqsixel\u001b\\x\u001b_apc\u0007y\u001b^pm\u0007z\u001bXsos\u0007w").text())
        .isEqualTo("xyzw");
    assertThat(clean("\u001b(Bx\u001bcy\u001b7z\u001b#8w").text()).isEqualTo("xyzw");
    assertThat(clean("a\u001b").text()).isEqualTo("a");
    assertThat(clean("a\u001b\nb").text()).isEqualTo("a\nb");
    assertThat(clean("a\u001b[12").text()).isEqualTo("a");
  }

  @Test
  void controlCharacters_becomeReplacementCharacters_butNewlineAndTabStay() {
    TextSanitizer.Result r = clean("a\u0007b\u0000c\u007fd\u0085e\u0008f\tg\nh");
    assertThat(r.text()).isEqualTo("a" + R + "b" + R + "c" + R + "d" + R + "e" + R + "f\tg\nh");
    assertThat(r.controls()).isEqualTo(5);
  }

  @Test
  void carriageReturns_andLineSeparators_becomeNewlines_soOverwritingTricksShowEverything() {
    TextSanitizer.Result r = clean("rm -rf /\rls -la   \r\nnext\u2028line\u2029para");
    assertThat(r.text()).isEqualTo("rm -rf /\nls -la   \nnext\nline\npara");
    assertThat(r.controls()).isEqualTo(3); // CR LF is an ordinary line ending, not counted
  }

  @Test
  void bidiControls_zeroWidthAndTagCharacters_areRemoved() {
    String tags = new StringBuilder().appendCodePoint(0xE0069).appendCodePoint(0xE0067).toString();
    TextSanitizer.Result r = clean("abc\u202Edef\u2066x\u2069\u200Bok\uFEFF" + tags + "!");
    assertThat(r.text()).isEqualTo("abcdefxok!");
    assertThat(r.invisible()).isEqualTo(7);
  }

  @Test
  void emojiSequences_andOrdinaryUnicode_areKept() {
    String text = "h\u00e9llo \u65e5\u672c \uD83D\uDE00 \uD83D\uDC69\u200D\uD83D\uDCBB \u2764\uFE0F \u0645\u0631\u062D\u0628\u0627";
    TextSanitizer.Result r = clean(text);
    assertThat(r.text()).isSameAs(text);
    assertThat(r.unchanged()).isTrue();
  }

  @Test
  void loneSurrogates_becomeReplacementCharacters() {
    TextSanitizer.Result r = clean("a\uD800b\uDC00c\uD800");
    assertThat(r.text()).isEqualTo("a" + R + "b" + R + "c" + R);
    assertThat(r.invalid()).isEqualTo(3);
  }

  @Test
  void malformedUtf8_isReplacedOncePerBadSequence() {
    byte[] bytes = {'a', (byte) 0xff, 'b', (byte) 0xc0, (byte) 0xaf, 'c', (byte) 0xed, (byte) 0xa0, (byte) 0x80, 'd',
        (byte) 0xe2, (byte) 0x82};
    TextSanitizer.Result r = TextSanitizer.fromUtf8(bytes);
    assertThat(r.text()).startsWith("a" + R + "b" + R).contains("c" + R, "d" + R).endsWith(R);
    assertThat(r.text()).doesNotContain("\uD800");
    assertThat(r.invalid()).isGreaterThanOrEqualTo(4);
  }

  @Test
  void escapesSpelledInUtf8_areRemovedAfterDecoding() {
    byte[] bytes = "a\u009b31mb\u202ec".getBytes(StandardCharsets.UTF_8);
    assertThat(TextSanitizer.fromUtf8(bytes).text()).isEqualTo("abc");
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain text", "<tool_call>{\"name\": \"rm\"}</tool_call>", "tab\tand\nnewline", ""})
  void cleanText_isReturnedAsIs(String text) {
    assertThat(clean(text).text()).isSameAs(text);
    assertThat(TextSanitizer.fromUtf8(text.getBytes(StandardCharsets.UTF_8)).text()).isEqualTo(text);
  }

  @Test
  void oneLine_escapesNewlinesAndShortens_withoutSplittingASurrogatePair() {
    assertThat(TextSanitizer.oneLine("a\nb\tc\u001b[2J", 100)).isEqualTo("a\\nb\\tc");
    assertThat(TextSanitizer.oneLine("abcdef", 3)).isEqualTo("abc\u2026");
    assertThat(TextSanitizer.oneLine("ab\uD83D\uDE00", 3)).isEqualTo("ab\u2026");
  }

  // ---- fuzz: random bytes and strings, invariants only ----

  /** Bytes weighted towards the interesting ones: ESC, brackets, BEL, C1 lead bytes, broken UTF-8. */
  private static final byte[][] PIECES = {
      {0x1b}, {'['}, {']'}, {0x07}, {'\\'}, {'\n'}, {'\r'}, {'\t'}, {'m'}, {'0'}, {';'}, {'P'}, {'_'},
      {(byte) 0xc2, (byte) 0x9b}, {(byte) 0xc2, (byte) 0x9c}, {(byte) 0xc2, (byte) 0x9d}, {(byte) 0xc2},
      {(byte) 0xe2, (byte) 0x80, (byte) 0xae}, {(byte) 0xe2, (byte) 0x80, (byte) 0xa8}, {(byte) 0xe2, (byte) 0x80},
      {(byte) 0xf3, (byte) 0xa0, (byte) 0x80, (byte) 0x81}, {(byte) 0xf0, (byte) 0x9f, (byte) 0x98, (byte) 0x80},
      {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xff}, {(byte) 0x80}, {(byte) 0xef, (byte) 0xbb, (byte) 0xbf},
      {'a'}, {'z'}, {' '}};

  @Test
  void randomBytes_alwaysYieldSafeWellFormedText_thatIsStable() {
    Random random = new Random(7);
    for (int round = 0; round < 5000; round++) {
      java.io.ByteArrayOutputStream in = new java.io.ByteArrayOutputStream();
      int pieces = random.nextInt(60);
      for (int i = 0; i < pieces; i++) {
        if (random.nextInt(4) == 0) {
          in.write(random.nextInt(256));
        } else {
          in.writeBytes(PIECES[random.nextInt(PIECES.length)]);
        }
      }
      byte[] bytes = in.toByteArray();
      TextSanitizer.Result r = TextSanitizer.fromUtf8(bytes);
      assertSafe(r.text(), bytes.length, "round " + round);
    }
  }

  @Test
  void randomStrings_alwaysYieldSafeWellFormedText_thatIsStable() {
    Random random = new Random(11);
    char[] interesting = {0x1b, '[', ']', 0x07, '\\', '\r', '\n', 0x9b, 0x9c, 0x9d, 0x202e, 0x2066, 0x2028, 0xd800,
        0xdc00, 0xdb40, 0xdc41, 0xfeff, 0x200d, 'x'};
    for (int round = 0; round < 5000; round++) {
      StringBuilder b = new StringBuilder();
      int n = random.nextInt(60);
      for (int i = 0; i < n; i++) {
        b.append(random.nextInt(3) == 0 ? (char) random.nextInt(0x10000) : interesting[random.nextInt(interesting.length)]);
      }
      String s = b.toString();
      assertSafe(clean(s).text(), s.length(), "round " + round);
    }
  }

  private static void assertSafe(String out, int inputLength, String round) {
    assertThat(out.length()).as(round).isLessThanOrEqualTo(inputLength);
    for (int i = 0; i < out.length(); ) {
      int cp = out.codePointAt(i);
      assertThat(TextSanitizer.isForbidden(cp)).as("%s: U+%04X at %s in %s", round, cp, i, out).isFalse();
      i += Character.charCount(cp);
    }
    TextSanitizer.Result again = clean(out);
    assertThat(again.unchanged()).as("%s: sanitising again changes nothing", round).isTrue();
    assertThat(again.text()).isEqualTo(out);
    assertThat(new String(out.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).as(round).isEqualTo(out);
  }
}
