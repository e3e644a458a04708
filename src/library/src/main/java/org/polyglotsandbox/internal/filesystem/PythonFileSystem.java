package org.polyglotsandbox.internal.filesystem;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.graalvm.polyglot.io.FileSystem;

/**
 * A Python run's file system: paths inside GraalPy's home go to a read-only view of the interpreter's
 * files, every other path to the run's {@link GuestFileSystem}.
 *
 * <p>GraalVM's own {@code newCompositeFileSystem} would do the routing, but it refuses every move,
 * even inside one delegate ({@code os.rename} fails with "Atomic move not supported"), so the routing
 * is done here.
 */
final class PythonFileSystem implements FileSystem {
  private final GuestFileSystem guest;
  private final FileSystem home;
  private final Predicate<Path> inHome;

  PythonFileSystem(GuestFileSystem guest, FileSystem readOnlyHome, Predicate<Path> inHome) {
    this.guest = guest;
    this.home = readOnlyHome;
    this.inHome = inHome;
  }

  private boolean isHome(Path path) {
    return inHome.test(guest.toAbsolutePath(path).normalize());
  }

  private FileSystem route(Path path) {
    return isHome(path) ? home : guest;
  }

  @Override
  public Path parsePath(URI uri) {
    return guest.parsePath(uri);
  }

  @Override
  public Path parsePath(String path) {
    return guest.parsePath(path);
  }

  @Override
  public Path toAbsolutePath(Path path) {
    return guest.toAbsolutePath(path);
  }

  @Override
  public void setCurrentWorkingDirectory(Path currentWorkingDirectory) {
    guest.setCurrentWorkingDirectory(currentWorkingDirectory);
  }

  @Override
  public Path getTempDirectory() {
    return guest.getTempDirectory();
  }

  @Override
  public void checkAccess(Path path, Set<? extends AccessMode> modes, LinkOption... linkOptions) throws IOException {
    route(path).checkAccess(path, modes, linkOptions);
  }

  @Override
  public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
    route(dir).createDirectory(dir, attrs);
  }

  @Override
  public void delete(Path path) throws IOException {
    route(path).delete(path);
  }

  @Override
  public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
      throws IOException {
    return route(path).newByteChannel(path, options, attrs);
  }

  @Override
  public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
      throws IOException {
    return route(dir).newDirectoryStream(dir, filter);
  }

  @Override
  public Path toRealPath(Path path, LinkOption... linkOptions) throws IOException {
    return route(path).toRealPath(path, linkOptions);
  }

  @Override
  public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
    return route(path).readAttributes(path, attributes, options);
  }

  @Override
  public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
    route(path).setAttribute(path, attribute, value, options);
  }

  @Override
  public Path readSymbolicLink(Path link) throws IOException {
    return route(link).readSymbolicLink(link);
  }

  @Override
  public void createLink(Path link, Path existing) throws IOException {
    guest.createLink(link, existing);
  }

  @Override
  public void createSymbolicLink(Path link, Path target, FileAttribute<?>... attrs) throws IOException {
    guest.createSymbolicLink(link, target, attrs);
  }

  @Override
  public void move(Path source, Path target, CopyOption... options) throws IOException {
    if (isHome(source) || isHome(target)) {
      home.move(source, target, options); // read-only: refused
    } else {
      guest.move(source, target, options);
    }
  }

  @Override
  public void copy(Path source, Path target, CopyOption... options) throws IOException {
    if (isHome(target)) {
      home.copy(source, target, options); // read-only: refused
    } else if (!isHome(source)) {
      guest.copy(source, target, options);
    } else {
      copyOutOfHome(source, target, options);
    }
  }

  /** Copies an interpreter file into the run's file system: a read there, a create or write here. */
  private void copyOutOfHome(Path source, Path target, CopyOption... options) throws IOException {
    Set<StandardOpenOption> open = EnumSet.of(StandardOpenOption.WRITE,
        List.of(options).contains(StandardCopyOption.REPLACE_EXISTING)
            ? StandardOpenOption.CREATE : StandardOpenOption.CREATE_NEW);
    if (open.contains(StandardOpenOption.CREATE)) {
      open.add(StandardOpenOption.TRUNCATE_EXISTING);
    }
    try (SeekableByteChannel in = home.newByteChannel(source, Set.of(StandardOpenOption.READ));
        SeekableByteChannel out = guest.newByteChannel(target, open)) {
      ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
      while (in.read(buf) >= 0) {
        buf.flip();
        while (buf.hasRemaining()) {
          out.write(buf);
        }
        buf.clear();
      }
    }
  }

  @Override
  public boolean isSameFile(Path path1, Path path2, LinkOption... options) throws IOException {
    return isHome(path1) == isHome(path2) && route(path1).isSameFile(path1, path2, options);
  }
}
