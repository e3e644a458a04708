package org.polyglotsandbox;

/**
 * An operation on the run's virtual file system. A {@link Mount} lists the operations it allows;
 * every other operation on it, and every operation outside all mounts, is denied.
 */
public enum FileOperation {
  /** Open a file for reading. */
  READ("file.read"),
  /** Open an existing file for writing, append or truncation, or change its attributes. */
  WRITE("file.write"),
  /** Create a file or directory, or the target of a copy or move. */
  CREATE("file.create"),
  /** Delete a file or directory, or the source of a move. */
  DELETE("file.delete"),
  /** List a directory's entries. */
  LIST("file.list");

  private final String id;

  FileOperation(String id) {
    this.id = id;
  }

  /** A stable name for reports and JSON, such as {@code file.read}. */
  public String id() {
    return id;
  }
}
