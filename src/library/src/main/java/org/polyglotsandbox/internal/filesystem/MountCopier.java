package org.polyglotsandbox.internal.filesystem;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import org.polyglotsandbox.Mount;

/** Copies a mount's host content into the run's in-memory file system; the only host reads there are. */
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
}
