package org.polyglotsandbox.internal.filesystem;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import org.polyglotsandbox.Mount;

/**
 * Copies a mount's host content into the run's in-memory file system, and compares a copy with the host;
 * the only host reads there are.
 */
final class MountCopier {
  private MountCopier() {}

  static void copyIn(Mount mount, Path target) throws IOException {
    Files.createDirectories(target.getParent());
    if (mount.hostPath().isEmpty()) {
      Files.createDirectory(target);
      return;
    }
    Path host = mount.hostPath().get();
    if (!Files.exists(host)) {
      throw new NoSuchFileException(mount.guestPath(), null, "the host file of this mount does not exist");
    }
    // The mount's own path may be a link the embedder chose; links below it are not followed.
    Path root = host.toRealPath();
    if (Files.isRegularFile(root)) {
      Files.copy(root, target);
      return;
    }
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
        Files.createDirectories(target.resolve(root.relativize(dir).toString()));
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        if (attrs.isRegularFile() && !Files.isSymbolicLink(file)) {
          Files.copy(file, target.resolve(root.relativize(file).toString()), LinkOption.NOFOLLOW_LINKS);
        }
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /**
   * Whether {@code target} holds exactly what {@link #copyIn} would copy from the host now: the same
   * directories and regular files with the same bytes, and nothing else.
   *
   * @throws IOException if the host content cannot be read
   */
  static boolean matches(Mount mount, Path target) throws IOException {
    if (mount.hostPath().isEmpty()) {
      return Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS) && isEmpty(target);
    }
    Path host = mount.hostPath().get();
    if (!Files.exists(host)) {
      return false;
    }
    Path root = host.toRealPath();
    if (Files.isRegularFile(root)) {
      return Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && sameBytes(root, target);
    }
    if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    // Directories end in '/', so a file and a directory of one name differ.
    Set<String> expected = new HashSet<>();
    boolean[] same = {true};
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        String name = root.relativize(dir).toString();
        expected.add(name + "/");
        same[0] = Files.isDirectory(target.resolve(name), LinkOption.NOFOLLOW_LINKS);
        return same[0] ? FileVisitResult.CONTINUE : FileVisitResult.TERMINATE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        if (attrs.isRegularFile() && !Files.isSymbolicLink(file)) {
          String name = root.relativize(file).toString();
          expected.add(name);
          Path copy = target.resolve(name);
          same[0] = Files.isRegularFile(copy, LinkOption.NOFOLLOW_LINKS) && sameBytes(file, copy);
        }
        return same[0] ? FileVisitResult.CONTINUE : FileVisitResult.TERMINATE;
      }
    });
    if (!same[0]) {
      return false;
    }
    try (Stream<Path> copied = Files.walk(target)) {
      return copied.allMatch(p -> {
        String name = target.relativize(p).toString();
        return expected.contains(Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? name + "/" : name);
      });
    }
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    }
  }

  /** Whether two files, on different file systems, hold the same bytes. */
  private static boolean sameBytes(Path a, Path b) throws IOException {
    if (Files.size(a) != Files.size(b)) {
      return false;
    }
    byte[] bufferA = new byte[1 << 16];
    byte[] bufferB = new byte[1 << 16];
    try (InputStream inA = Files.newInputStream(a); InputStream inB = Files.newInputStream(b)) {
      while (true) {
        int n = inA.readNBytes(bufferA, 0, bufferA.length);
        if (n != inB.readNBytes(bufferB, 0, bufferB.length)
            || !Arrays.equals(bufferA, 0, n, bufferB, 0, n)) {
          return false;
        }
        if (n < bufferA.length) {
          return true;
        }
      }
    }
  }
}
