package org.polyglotsandbox.internal.boundary;

/**
 * A value held something other than plain data where only plain data may cross, or passed a bound.
 * The message is {@code path + " " + problem}, such as {@code "$.rows[3] is a Thread; ..."}, where the
 * path is known.
 */
public final class NotPlainDataException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String path;
  private final String problem;

  /** A value without a known path; the message is the whole description. */
  public NotPlainDataException(String message) {
    super(message, null, false, false);
    this.path = "$";
    this.problem = message;
  }

  public NotPlainDataException(String path, String problem) {
    super(path + " " + problem, null, false, false);
    this.path = path;
    this.problem = problem;
  }

  /** Where, as a JSONPath such as {@code $.rows[3]}. */
  public String path() {
    return path;
  }

  /** What, such as {@code "is a Thread; only ... are plain data"}. */
  public String problem() {
    return problem;
  }
}
