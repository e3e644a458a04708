package org.polyglotsandbox.internal.boundary;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes an output file into a host directory the embedder chose, so that nothing can land outside
 * it: the file's name is its guest path below the directory ({@code /out/report.csv} becomes
 * {@code DIR/out/report.csv}); every name is checked (no {@code ..}, {@code .}, empty names, NUL,
 * backslashes or control characters); a directory on the way that exists must be a real directory,
 * never a symbolic link, and missing ones are created; the file itself is created with
 * {@code CREATE_NEW} and {@code NOFOLLOW_LINKS}, so an existing file or link there is never
 * overwritten or followed.
 *
 * <p>Limit: a local process that swaps a checked directory for a link while the file is written could
 * still redirect it; the directory should not be writable by anyone the embedder does not trust.
 */
public final class HostWriter {
  private static final int MAX_NAME = 255;

  private HostWriter() {}

  /**
   * Where {@code guestPath} goes below {@code directory}, without touching the file system beyond
   * resolving the directory itself.
   *
   * @throws IllegalArgumentException if a name of the guest path is unsafe on the host
   * @throws IOException if the directory does not exist or is not a directory
   */
  public static Path target(Path directory, String guestPath) throws IOException {
    Path root = root(directory);
    Path target = root;
    for (String name : names(guestPath)) {
      target = target.resolve(name);
    }
    if (!target.normalize().startsWith(root) || target.equals(root)) {
      throw new IllegalArgumentException("output file " + TextSanitizer.oneLine(guestPath, 200)
          + " would not land inside " + root);
    }
    return target;
  }

  /**
   * Writes {@code bytes} to {@link #target}, creating directories on the way.
   *
   * @return the file written
   * @throws java.nio.file.FileAlreadyExistsException if the file (or a link of that name) exists
   * @throws FileSystemException if a directory on the way is a symbolic link or not a directory
   */
  public static Path write(Path directory, String guestPath, byte[] bytes) throws IOException {
    Path root = root(directory);
    List<String> names = names(guestPath);
    Path at = root;
    for (String name : names.subList(0, names.size() - 1)) {
      at = at.resolve(name);
      BasicFileAttributes a;
      try {
        a = Files.readAttributes(at, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      } catch (NoSuchFileException e) {
        Files.createDirectory(at); // fails if anything appeared there meanwhile
        continue;
      }
      if (a.isSymbolicLink()) {
        throw new FileSystemException(at.toString(), null,
            "is a symbolic link; output files are never written through links");
      }
      if (!a.isDirectory()) {
        throw new NotDirectoryException(at.toString());
      }
    }
    Path target = at.resolve(names.get(names.size() - 1));
    if (!target.normalize().startsWith(root)) {
      throw new IllegalArgumentException("output file " + guestPath + " would not land inside " + root);
    }
    boolean created = false;
    try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
        LinkOption.NOFOLLOW_LINKS)) {
      created = true;
      out.write(bytes);
    } catch (IOException | RuntimeException e) {
      if (created) {
        Files.deleteIfExists(target);
      }
      throw e;
    }
    return target;
  }

  private static Path root(Path directory) throws IOException {
    Path root = directory.toRealPath(); // the embedder chose it, links and all; work below its real path
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      throw new NotDirectoryException(directory.toString());
    }
    return root;
  }

  /** The names of a guest path, each checked to be safe as a host file name. */
  static List<String> names(String guestPath) {
    List<String> out = new ArrayList<>();
    for (String name : guestPath.split("/")) {
      if (name.isEmpty()) {
        continue;
      }
      String problem = problem(name);
      if (problem != null) {
        throw new IllegalArgumentException("output file " + TextSanitizer.oneLine(guestPath, 200)
            + " cannot be written on the host: " + problem);
      }
      out.add(name);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("output file " + TextSanitizer.oneLine(guestPath, 200) + " has no name");
    }
    return out;
  }

  /** What makes a single name unsafe on a host, or null. */
  public static String problem(String name) {
    if (name.equals(".") || name.equals("..")) {
      return "the name '" + name + "' refers to a directory";
    }
    if (name.length() > MAX_NAME) {
      return "a name is longer than " + MAX_NAME + " characters";
    }
    for (int i = 0; i < name.length(); ) {
      int cp = name.codePointAt(i);
      if (cp == 0 || cp == '\\' || cp == ':' || TextSanitizer.isForbidden(cp) || cp == '\n' || cp == '\t') {
        return "a name holds " + (cp == '\\' ? "a backslash" : cp == ':' ? "a colon"
            : String.format("the character U+%04X", cp));
      }
      i += Character.charCount(cp);
    }
    return null;
  }
}
