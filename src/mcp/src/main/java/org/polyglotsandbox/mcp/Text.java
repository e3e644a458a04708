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

  private static final java.util.regex.Pattern CLASS_NAME = java.util.regex.Pattern.compile(
      "\\b[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+\\.[A-Z][A-Za-z0-9_$]*|\\b[A-Z][A-Za-z0-9]*\\$[A-Z]|Exception\\b|\\bat \\[Source");

  /** Whether {@code s} names a Java class (a package-qualified name, a nested class, an exception). */
  static boolean namesAClass(String s) {
    return CLASS_NAME.matcher(s).find();
  }
}
