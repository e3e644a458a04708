package org.polyglotsandbox;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import org.polyglotsandbox.internal.boundary.HostWriter;

/**
 * A file guest code left at a declared output path ({@link Script#withOutputFiles}), taken out of the
 * run's in-memory file system as bytes. Its content is untrusted: guest code wrote every byte.
 *
 * <p>The sandbox never writes it to the host by itself. {@link #writeTo(Path)} does, when the
 * embedder asks, inside a directory the embedder names, and nowhere else.
 */
public final class OutputFile {
  private final String guestPath;
  private final byte[] bytes;

  OutputFile(String guestPath, byte[] bytes) {
    this.guestPath = Objects.requireNonNull(guestPath, "guestPath");
    this.bytes = bytes.clone();
  }

  /** The declared guest path, such as {@code /out/report.csv}. */
  public String guestPath() {
    return guestPath;
  }

  /** The file's size in bytes. */
  public int size() {
    return bytes.length;
  }

  /** A copy of the file's content (untrusted). */
  public byte[] bytes() {
    return bytes.clone();
  }

  /**
   * Writes the file below {@code directory}, at its guest path made relative: {@code /out/report.csv}
   * goes to {@code directory/out/report.csv}. Directories on the way are created; one that exists must
   * be a real directory, never a symbolic link. The file is created new ({@code CREATE_NEW},
   * {@code NOFOLLOW_LINKS}): an existing file or link of that name is never overwritten or followed.
   * Nothing is written outside {@code directory}.
   *
   * @return the host file written
   * @throws java.nio.file.FileAlreadyExistsException if the file already exists
   * @throws java.nio.file.NotDirectoryException if {@code directory} is not a directory
   * @throws java.nio.file.FileSystemException if a directory on the way is a symbolic link or a file
   * @throws IllegalArgumentException if a name in the guest path is unsafe as a host file name (never
   *     the case for paths {@link Script#withOutputFiles} accepted)
   * @throws IOException if writing fails; a partly written file is removed
   */
  public Path writeTo(Path directory) throws IOException {
    return HostWriter.write(Objects.requireNonNull(directory, "directory"), guestPath, bytes);
  }

  @Override
  public String toString() {
    return "OutputFile{" + guestPath + ", " + bytes.length + " bytes}";
  }
}
