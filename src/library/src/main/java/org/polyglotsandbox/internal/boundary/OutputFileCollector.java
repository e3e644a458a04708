package org.polyglotsandbox.internal.boundary;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.polyglotsandbox.SandboxEvent.OutputRejected.Reason;
import org.polyglotsandbox.SandboxEvent.OutputRejected;

/**
 * Takes the declared output files out of a run's in-memory file system, after the guest finished and
 * before the file system is closed. Reads only the declared paths; each must be a regular file reached
 * through real directories (no link is followed, not even on the way), with a single hard link, within
 * the per-file and total byte caps. Sizes are checked before anything is read.
 */
public final class OutputFileCollector {
  /**
   * What was taken out: file contents by guest path (declared order), the declared paths that were not
   * there, and the rejections (too large, not a regular file, required but missing).
   */
  public record Collected(Map<String, byte[]> files, List<String> missing, List<OutputRejected> rejections) {}

  private OutputFileCollector() {}

  /**
   * Collects the declared files.
   *
   * @param inMemory maps a guest path to its path in the run's in-memory file system
   * @param declared guest paths (absolute, normalized) to whether each is required
   */
  public static Collected collect(Function<String, Path> inMemory, Map<String, Boolean> declared, long maxFileBytes,
      long maxTotalBytes) {
    Map<String, byte[]> files = new LinkedHashMap<>();
    List<String> missing = new ArrayList<>();
    List<OutputRejected> rejections = new ArrayList<>();
    long total = 0;
    for (Map.Entry<String, Boolean> d : declared.entrySet()) {
      String guestPath = d.getKey();
      try {
        Path p = inMemory.apply(guestPath);
        String badParent = badParent(p);
        if (badParent != null) {
          rejections.add(rejected(Reason.NOT_A_REGULAR_FILE, guestPath, badParent));
          continue;
        }
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
          rejections.add(rejected(Reason.NOT_A_REGULAR_FILE, guestPath,
              "is a symbolic link; output files are never read through links"));
          continue;
        }
        if (!a.isRegularFile()) {
          rejections.add(rejected(Reason.NOT_A_REGULAR_FILE, guestPath,
              a.isDirectory() ? "is a directory, not a regular file" : "is not a regular file"));
          continue;
        }
        Object links = Files.getAttribute(p, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
        if (links instanceof Integer n && n > 1) {
          rejections.add(rejected(Reason.NOT_A_REGULAR_FILE, guestPath, "has " + n + " hard links"));
          continue;
        }
        long size = a.size();
        if (size > maxFileBytes) {
          rejections.add(rejected(Reason.FILE_TOO_LARGE, guestPath,
              size + " bytes, more than maxOutputFileBytes (" + maxFileBytes + ")"));
          continue;
        }
        if (total + size > maxTotalBytes) {
          rejections.add(rejected(Reason.FILE_TOO_LARGE, guestPath, size + " bytes, which would bring the output"
              + " files to " + (total + size) + " bytes, more than maxTotalOutputFileBytes (" + maxTotalBytes + ")"));
          continue;
        }
        byte[] bytes = read(p, size);
        total += bytes.length;
        files.put(guestPath, bytes);
      } catch (NoSuchFileException e) {
        missing.add(guestPath);
        if (d.getValue()) {
          rejections.add(rejected(Reason.MISSING_FILE, guestPath, "the required output file is missing"));
        }
      } catch (FileSystemException e) {
        // "Not a directory" on the way and the like: nothing there to take out.
        missing.add(guestPath);
        if (d.getValue()) {
          rejections.add(rejected(Reason.MISSING_FILE, guestPath, "the required output file is missing"));
        }
      } catch (IOException e) {
        rejections.add(rejected(Reason.NOT_A_REGULAR_FILE, guestPath, "could not be read"));
      }
    }
    return new Collected(Collections.unmodifiableMap(files), List.copyOf(missing), List.copyOf(rejections));
  }

  /** Why a directory on the way to {@code p} disqualifies it, or null if all are plain directories. */
  private static String badParent(Path p) throws IOException {
    Path parent = p.getParent();
    if (parent == null) {
      return null;
    }
    Path at = p.getRoot();
    for (Path name : parent) {
      at = at.resolve(name);
      BasicFileAttributes a = Files.readAttributes(at, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (a.isSymbolicLink()) {
        return "lies under " + at + ", a symbolic link; output files are never read through links";
      }
      if (!a.isDirectory()) {
        throw new NoSuchFileException(p.toString()); // a file on the way: the declared file cannot exist
      }
    }
    return null;
  }

  private static byte[] read(Path p, long size) throws IOException {
    try (SeekableByteChannel ch = Files.newByteChannel(p, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
      ByteBuffer buf = ByteBuffer.allocate((int) size);
      while (buf.hasRemaining() && ch.read(buf) >= 0) {
        // read until full or at the end
      }
      if (buf.hasRemaining() || ch.read(ByteBuffer.allocate(1)) > 0) {
        throw new IOException(p + " changed while it was read"); // the guest has finished; not expected
      }
      return buf.array();
    }
  }

  private static OutputRejected rejected(Reason reason, String guestPath, String detail) {
    return new OutputRejected(Instant.now(), reason, guestPath, detail);
  }
}
