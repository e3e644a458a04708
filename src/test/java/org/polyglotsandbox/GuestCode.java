package org.polyglotsandbox;

/** Picks the JavaScript or Python text of a probe, so one parameterised test covers both languages. */
final class GuestCode {
  private GuestCode() {}

  static String of(Language language, String javascript, String python) {
    return language == Language.JAVASCRIPT ? javascript : python;
  }

  /**
   * Wraps Python statements so the program's value says whether they raised: {@code "OK"} or
   * {@code "DENIED <ExceptionType>: <message>"}.
   */
  static String pythonAttempt(String statements) {
    StringBuilder b = new StringBuilder("try:\n");
    for (String line : statements.split("\n")) {
      b.append("    ").append(line).append('\n');
    }
    return b.append("    __r = 'OK'\nexcept BaseException as e:\n    __r = 'DENIED ' + type(e).__name__ + ': ' + str(e)\n__r\n")
        .toString();
  }

  /** The JavaScript counterpart of {@link #pythonAttempt}. */
  static String jsAttempt(String statements) {
    return "(() => { try { " + statements + "; return 'OK'; } catch (e) { return 'DENIED ' + e; } })()";
  }

  static String attempt(Language language, String javascript, String python) {
    return language == Language.JAVASCRIPT ? jsAttempt(javascript) : pythonAttempt(python);
  }
}
