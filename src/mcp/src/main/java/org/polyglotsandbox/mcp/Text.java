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

  private static final java.util.regex.Pattern FIELD = java.util.regex.Pattern.compile("\\[\"([^\"]{1,64})\"\\]");

  /**
   * An error message that names a Java class (Jackson's, as the SDK passes them on) in plain words: the
   * field it was about, from Jackson's reference chain, if it names one.
   */
  static String plainError(String message) {
    java.util.regex.Matcher m = FIELD.matcher(message);
    StringBuilder path = new StringBuilder("params");
    while (m.find()) {
      path.append('.').append(oneLine(m.group(1), 64));
    }
    if (path.length() > "params".length()) {
      return path + " does not have the type this method takes";
    }
    return "the request's params do not have the shape this method takes";
  }

  /** Whether an error message is Jackson's for params it could not map (then the params are at fault). */
  static boolean isMappingError(String message) {
    return message.contains("Cannot deserialize") || message.contains("Cannot construct")
        || message.contains("Unrecognized field") || message.contains("through reference chain");
  }
}
