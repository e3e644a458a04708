package org.polyglotsandbox.internal.boundary;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Makes untrusted text safe to show on a terminal, store in a log, or put in a language model's
 * context, and counts what it changed. The result:
 *
 * <ul>
 *   <li>is well-formed UTF-16 that encodes to valid UTF-8: malformed UTF-8 sequences and lone
 *       surrogates become U+FFFD ("invalid");
 *   <li>holds no terminal escape sequence: ESC and C1 sequences (CSI, OSC, DCS, SOS, PM, APC, and
 *       two-character ESC sequences) are removed whole ("escape sequences"); a control string
 *       (OSC, DCS, ...) ends at BEL, ST, CAN, SUB or the end of its line, so an unterminated one
 *       cannot swallow the rest of the text;
 *   <li>holds no other control character but newline and tab: CR LF becomes LF, a lone CR and the
 *       line and paragraph separators U+2028/U+2029 become LF, and every other C0 control, DEL and
 *       C1 control becomes U+FFFD ("controls");
 *   <li>holds no invisible formatting that reorders or hides text: the bidirectional embeddings,
 *       overrides, isolates and marks, zero-width space, word joiner and invisible operators, the
 *       byte-order mark, tag characters (U+E0000..U+E007F) and the variation selectors supplement
 *       (U+E0100..U+E01EF) are removed ("invisible"). Zero-width joiners and the basic variation
 *       selectors stay: emoji need them.
 * </ul>
 *
 * <p>The output never has more characters than the input has characters (for {@link #fromUtf8}:
 * bytes). Sanitising a result again changes nothing.
 */
public final class TextSanitizer {
  private static final int MAX_MESSAGE = 4096;
  /** Room past the cut for a host name that straddles it to still be found. */
  private static final int HOST_NAME_SPAN = 512;
  private static final Pattern HOST_NAME = Pattern.compile(
      "(?<![\\w/.\\-])(?:java|javax|jdk|sun|com\\.sun|com\\.oracle|org\\.graalvm|com\\.google|com\\.fasterxml|org\\.polyglotsandbox)"
          + "(?:\\.[A-Za-z_$][\\w$]*)+");

  /**
   * A message guest code produced or will see, with host class names replaced by {@code <host>} and its
   * length bounded; {@code "error"} for null.
   */
  public static String withoutHostNames(String message) {
    if (message == null) {
      return "error";
    }
    // Cut before the search: a guest can throw an error whose message is hundreds of megabytes.
    int length = message.length();
    String head = length > MAX_MESSAGE + HOST_NAME_SPAN ? message.substring(0, MAX_MESSAGE + HOST_NAME_SPAN) : message;
    String m = HOST_NAME.matcher(head).replaceAll("<host>");
    if (m.length() <= MAX_MESSAGE && length == head.length()) {
      return m;
    }
    int shown = Math.min(m.length(), MAX_MESSAGE);
    if (shown > 0 && Character.isHighSurrogate(m.charAt(shown - 1))) {
      shown--;
    }
    return m.substring(0, shown) + "... (" + (length - shown) + " more characters)";
  }

  /** What replaces invalid sequences and control characters. */
  public static final char REPLACEMENT = '\uFFFD';

  private static final char ESC = 0x1b;
  private static final char BEL = 0x07;
  private static final char CAN = 0x18;
  private static final char SUB = 0x1a;
  private static final char C1_ST = 0x9c;
  private static final char C1_CSI = 0x9b;

  /**
   * Sanitised text and the number of changes of each kind.
   *
   * @param escapeSequences terminal escape sequences removed
   * @param controls control characters replaced (by U+FFFD, or by a newline for CR and U+2028/9)
   * @param invalid malformed UTF-8 sequences and lone surrogates replaced by U+FFFD
   * @param invisible invisible formatting characters removed
   */
  public record Result(String text, int escapeSequences, int controls, int invalid, int invisible) {
    /** Whether nothing was changed. */
    public boolean unchanged() {
      return escapeSequences == 0 && controls == 0 && invalid == 0 && invisible == 0;
    }
  }

  private TextSanitizer() {}

  /** Decodes UTF-8 (each malformed sequence becomes one U+FFFD) and sanitises the text. */
  public static Result fromUtf8(byte[] bytes) {
    return fromUtf8(bytes, 0, bytes.length);
  }

  /** {@link #fromUtf8(byte[])} of {@code len} bytes from {@code off}. */
  public static Result fromUtf8(byte[] bytes, int off, int len) {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes, off, len);
    // Valid UTF-8 never yields more UTF-16 units than bytes, and each error replaces at least one byte.
    CharBuffer out = CharBuffer.allocate(len);
    int invalid = 0;
    while (true) {
      CoderResult r = decoder.decode(in, out, true);
      if (r.isError()) {
        out.put(REPLACEMENT);
        invalid++;
        in.position(in.position() + r.length());
      } else if (r.isUnderflow()) {
        decoder.flush(out);
        break;
      } else {
        throw new IllegalStateException("UTF-8 decoding overflowed: " + r); // not reached, see above
      }
    }
    out.flip();
    return clean(out, invalid);
  }

  /** Sanitises text that is already a string (a guest error message, a stack frame, a path). */
  public static Result clean(CharSequence s) {
    return clean(s, 0);
  }

  /**
   * {@link #clean} for text that must stay on one line and stay short, such as a path or a name in a
   * message: newline and tab become {@code \n} and {@code \t}, and text longer than {@code maxChars}
   * is cut and ends with an ellipsis.
   */
  public static String oneLine(CharSequence s, int maxChars) {
    String text = clean(s).text();
    StringBuilder b = new StringBuilder(Math.min(text.length(), maxChars) + 4);
    for (int i = 0; i < text.length(); i++) {
      if (b.length() >= maxChars) {
        // Never cut between the two halves of a surrogate pair.
        if (Character.isLowSurrogate(text.charAt(i)) && b.length() > 0) {
          b.setLength(b.length() - 1);
        }
        return b.append('\u2026').toString();
      }
      char c = text.charAt(i);
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  /** Whether a code point must never appear in sanitised text. */
  public static boolean isForbidden(int cp) {
    return (cp < 0x20 && cp != '\n' && cp != '\t')
        || (cp >= 0x7f && cp <= 0x9f)
        || cp == 0x2028 || cp == 0x2029
        || isInvisible(cp)
        || (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE);
  }

  private static boolean isInvisible(int cp) {
    return cp == 0x061c || cp == 0x180e
        || cp == 0x200b || cp == 0x200e || cp == 0x200f
        || (cp >= 0x202a && cp <= 0x202e)
        || (cp >= 0x2060 && cp <= 0x2064)
        || (cp >= 0x2066 && cp <= 0x2069)
        || cp == 0xfeff
        || (cp >= 0xe0000 && cp <= 0xe007f)
        || (cp >= 0xe0100 && cp <= 0xe01ef);
  }

  private static Result clean(CharSequence s, int invalidSoFar) {
    int n = s.length();
    StringBuilder out = new StringBuilder(n);
    int escapes = 0;
    int controls = 0;
    int invalid = invalidSoFar;
    int invisible = 0;
    int i = 0;
    while (i < n) {
      char c = s.charAt(i);
      if (c >= 0x20 && c < 0x7f) { // the common case first
        out.append(c);
        i++;
      } else if (c == '\n' || c == '\t') {
        out.append(c);
        i++;
      } else if (c == ESC) {
        i = skipEscape(s, i + 1);
        escapes++;
      } else if (c == C1_CSI) {
        i = skipCsi(s, i + 1);
        escapes++;
      } else if (c == 0x90 || c == 0x98 || c == 0x9d || c == 0x9e || c == 0x9f) {
        i = skipControlString(s, i + 1);
        escapes++;
      } else if (c == '\r') {
        if (i + 1 < n && s.charAt(i + 1) == '\n') {
          i++; // CR LF is a line ending, not a change worth noting
        } else {
          out.append('\n');
          controls++;
          i++;
        }
      } else if (c == 0x2028 || c == 0x2029) {
        out.append('\n');
        controls++;
        i++;
      } else if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
        out.append(REPLACEMENT);
        controls++;
        i++;
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(i + 1));
        if (isInvisible(cp)) {
          invisible++;
        } else {
          out.append(c).append(s.charAt(i + 1));
        }
        i += 2;
      } else if (Character.isSurrogate(c)) {
        out.append(REPLACEMENT);
        invalid++;
        i++;
      } else if (isInvisible(c)) {
        invisible++;
        i++;
      } else {
        out.append(c);
        i++;
      }
    }
    return new Result(out.length() == n && escapes + controls + invalid + invisible == 0 ? s.toString()
        : out.toString(), escapes, controls, invalid, invisible);
  }

  /** Skips what follows an ESC: a CSI, a control string, or an ESC sequence (intermediates, final). */
  private static int skipEscape(CharSequence s, int i) {
    if (i >= s.length()) {
      return i;
    }
    char c = s.charAt(i);
    if (c == '[') {
      return skipCsi(s, i + 1);
    }
    if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') {
      return skipControlString(s, i + 1);
    }
    int k = i;
    while (k < s.length() && s.charAt(k) >= 0x20 && s.charAt(k) <= 0x2f) {
      k++;
    }
    if (k < s.length() && s.charAt(k) >= 0x30 && s.charAt(k) <= 0x7e) {
      return k + 1;
    }
    return k; // a lone ESC (and any intermediates): the next character is ordinary text again
  }

  /** Skips CSI parameters, intermediates and the final byte; stops before anything else. */
  private static int skipCsi(CharSequence s, int i) {
    int k = i;
    while (k < s.length() && s.charAt(k) >= 0x30 && s.charAt(k) <= 0x3f) {
      k++;
    }
    while (k < s.length() && s.charAt(k) >= 0x20 && s.charAt(k) <= 0x2f) {
      k++;
    }
    if (k < s.length() && s.charAt(k) >= 0x40 && s.charAt(k) <= 0x7e) {
      return k + 1;
    }
    return k;
  }

  /** Skips an OSC/DCS/SOS/PM/APC body up to BEL, ST, CAN or SUB (consumed) or a newline or ESC (kept). */
  private static int skipControlString(CharSequence s, int i) {
    int k = i;
    while (k < s.length()) {
      char c = s.charAt(k);
      if (c == BEL || c == C1_ST || c == CAN || c == SUB) {
        return k + 1;
      }
      if (c == ESC) {
        return k + 1 < s.length() && s.charAt(k + 1) == '\\' ? k + 2 : k;
      }
      if (c == '\n') {
        return k;
      }
      k++;
    }
    return k;
  }
}
