package org.polyglotsandbox.mcp;

/** Small text helpers for messages that quote untrusted or long text. */
final class Text {
  private Text() {}

  /** {@code s} on one line (controls replaced by spaces), at most {@code max} characters. */
  static String oneLine(String s, int max) {
    StringBuilder b = new StringBuilder(Math.min(s.length(), max + 1));
    for (int i = 0; i < s.length() && b.length() < max; i++) {
      char c = s.charAt(i);
      b.append(Character.isISOControl(c) || c == '\u2028' || c == '\u2029' ? ' ' : c);
    }
    return b.length() < s.length() ? b.append('…').toString() : b.toString();
  }
}
