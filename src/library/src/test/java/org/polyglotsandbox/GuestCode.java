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

  /** A JavaScript array holding the {@link #jsAttempt} verdict of each statement, in order. */
  static String jsAttempts(String... statements) {
    return java.util.Arrays.stream(statements).map(GuestCode::jsAttempt)
        .collect(java.util.stream.Collectors.joining(", ", "[", "]"));
  }

  /**
   * A Python program whose value lists, for each expression in order, {@code "OK <value>"} or
   * {@code "DENIED <ExceptionType>"} when evaluating it raised {@code caught} (an exception class name).
   */
  static String pythonAttempts(String caught, String... expressions) {
    StringBuilder b = new StringBuilder("__out = []\nfor __f in [");
    for (int i = 0; i < expressions.length; i++) {
      b.append(i == 0 ? "" : ",\n          ").append("lambda: ").append(expressions[i]);
    }
    return b.append("]:\n    try:\n        __out.append('OK ' + str(__f()))\n")
        .append("    except ").append(caught).append(" as e:\n        __out.append('DENIED ' + type(e).__name__)\n")
        .append("__out\n").toString();
  }

  static String attempt(Language language, String javascript, String python) {
    return language == Language.JAVASCRIPT ? jsAttempt(javascript) : pythonAttempt(python);
  }

  /**
   * A program whose value lists, per probe (a {JavaScript, Python} pair of expressions), its result as
   * JSON or, if it raised, {@code "<error type>|<code>|<message>"}, where {@code code} is a tool error's
   * code. Python definitions in {@code pythonPrelude} are available to the expressions.
   */
  static String toolAttempts(Language language, String pythonPrelude, String[]... probes) {
    StringBuilder js = new StringBuilder("[");
    StringBuilder py = new StringBuilder("import json\n" + pythonPrelude + "\ndef __try(f):\n    try:\n"
        + "        return json.dumps(f())\n    except Exception as e:\n"
        + "        return type(e).__name__ + '|' + str(getattr(e, 'code', None)) + '|' + str(e)\n[");
    for (String[] p : probes) {
      js.append("() => ").append(p[0]).append(",\n");
      py.append("__try(lambda: ").append(p[1]).append("),\n");
    }
    js.append("].map(f => { try { return JSON.stringify(f()); } catch (e) {"
        + " return e.name + '|' + e.code + '|' + e.message; } })");
    return of(language, js.toString(), py.append("]").toString());
  }
}
