package org.polyglotsandbox.cli;

/**
 * Makes untrusted text safe to print on a terminal. Guest output, guest error messages and values in
 * messages may hold escape sequences that would move the cursor, rewrite earlier lines or change the
 * terminal's settings; they are shown as visible escapes instead.
 */
final class Text {
  private static final int MAX_QUOTED = 120;

  private Text() {}

  /**
   * Escapes every control character except newline and tab: C0 controls (carriage return and ESC
   * included), DEL, C1 controls, the bidirectional overrides and isolates, and lone surrogates.
   * {@code ESC} becomes {@code \x1b}; characters above U+00FF become a backslash, {@code u} and four hex
   * digits.
   */
  static String escape(String s) {
    return escape(s, false);
  }

  /** {@link #escape} that also escapes newline and tab, for text that must stay on one line. */
  static String escapeLine(String s) {
    return escape(s, true);
  }

  /** A value quoted for an error message: one line, escaped, in single quotes, shortened if long. */
  static String quote(String s) {
    String e = escapeLine(s);
    return "'" + (e.length() > MAX_QUOTED ? e.substring(0, MAX_QUOTED) + "..." : e) + "'";
  }

  /** Whether a character must not reach a terminal as is. */
  static boolean isUnsafe(int c) {
    return (c < 0x20 && c != '\n' && c != '\t')
        || (c >= 0x7f && c <= 0x9f)
        || (c >= 0x202a && c <= 0x202e)
        || (c >= 0x2066 && c <= 0x2069);
  }

  private static String escape(String s, boolean oneLine) {
    StringBuilder out = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean loneSurrogate = Character.isSurrogate(c)
          && !(Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1)))
          && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1)));
      boolean unsafe = isUnsafe(c) || loneSurrogate || (oneLine && (c == '\n' || c == '\t'));
      if (!unsafe) {
        if (out != null) {
          out.append(c);
        }
        continue;
      }
      if (out == null) {
        out = new StringBuilder(s.length() + 16).append(s, 0, i);
      }
      switch (c) {
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\r' -> out.append("\\r");
        default -> out.append(c <= 0xff ? String.format("\\x%02x", (int) c) : String.format("\\u%04x", (int) c));
      }
    }
    return out == null ? s : out.toString();
  }
}
