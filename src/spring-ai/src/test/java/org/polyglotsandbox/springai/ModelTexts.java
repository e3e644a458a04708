package org.polyglotsandbox.springai;

/** Reads the parts of {@code ExecutionResult.toModelText()} that a model would read. */
final class ModelTexts {
  private ModelTexts() {}

  /** The first guest line of a section such as {@code value as JSON} or {@code error}, without its {@code "| "}. */
  static String firstLine(String modelText, String section) {
    int at = modelText.indexOf("\n" + section);
    if (at < 0) {
      throw new AssertionError("no section '" + section + "' in:\n" + modelText);
    }
    int line = modelText.indexOf("\n| ", at + 1);
    return modelText.substring(line + 3, modelText.indexOf('\n', line + 3));
  }

  /** The outcome line's text, such as {@code OK} or {@code LIMIT_EXCEEDED (limit wall_time)}. */
  static String outcome(String modelText) {
    int at = modelText.indexOf("\noutcome: ");
    return modelText.substring(at + 10, modelText.indexOf('\n', at + 10));
  }
}
