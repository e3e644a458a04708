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
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.graalvm.polyglot.io.FileSystem;

/**
 * A Python run's file system: paths inside the virtual interpreter home ({@link org.polyglotsandbox.Policy#PYTHON_HOME_PATH})
 * go to a read-only view of GraalPy's extracted home in the host cache, every other path to the run's
 * {@link GuestFileSystem}.
 *
 * <p>GraalPy locates its home by asking GraalVM for its internal resource, which hands it the host
 * cache path as a string to parse. Until {@link #homeLocated()} (called once the context is initialised,
 * before any guest code) this file system parses that one path as the virtual home, so that GraalPy,
 * and every path it derives ({@code sys.prefix}, {@code sys.path}, module files, code objects), names
 * only the virtual one. After that the host path is an ordinary guest path outside every mount: denied.
 * What comes back from the host side is translated too: real paths, directory entries, error messages
 * and the attributes that describe the host (inode, device, owner, times, the umask's traces in the
 * permissions; {@link InterpreterHome#attributes}).
 *
 * <p>GraalVM's own {@code newCompositeFileSystem} would do the routing, but it refuses every move,
 * even inside one delegate ({@code os.rename} fails with "Atomic move not supported"), so the routing
 * is done here.
 */
public final class PythonFileSystem implements FileSystem {
  private final GuestFileSystem guest;
  private final FileSystem home;
  private final InterpreterHome paths;
  private volatile boolean hostHomeParsable = true;

  PythonFileSystem(GuestFileSystem guest, FileSystem readOnlyHome, InterpreterHome paths) {
    this.guest = guest;
    this.home = readOnlyHome;
    this.paths = paths;
  }

  /**
   * Ends the window in which the host's path of the home is parsed as the virtual home: from now on
   * it is a path like any other outside the mounts. Call once GraalPy has located its home (the
   * context is initialised) and before guest code runs.
   */
  public void homeLocated() {
    hostHomeParsable = false;
  }

  private Path normal(Path path) {
    return guest.toAbsolutePath(path).normalize();
  }

  private boolean isHome(Path path) {
    return paths.isVirtual(normal(path));
  }

  /** The host path behind a path inside the virtual home. */
  private Path host(Path path) {
    return paths.toHost(normal(path));
  }

  @Override
  public Path parsePath(URI uri) {
    return guest.parsePath(uri);
  }

  @Override
  public Path parsePath(String path) {
    if (hostHomeParsable) {
      Path virtual = paths.toVirtual(path);
      if (virtual != null) {
        return virtual;
      }
    }
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
    if (!isHome(path)) {
      guest.checkAccess(path, modes, linkOptions);
      return;
    }
    run(() -> home.checkAccess(host(path), modes, linkOptions));
  }

  @Override
  public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
    if (!isHome(dir)) {
      guest.createDirectory(dir, attrs);
      return;
    }
    run(() -> home.createDirectory(host(dir), attrs)); // read-only: refused
  }

  @Override
  public void delete(Path path) throws IOException {
    if (!isHome(path)) {
      guest.delete(path);
      return;
    }
    run(() -> home.delete(host(path))); // read-only: refused
  }

  @Override
  public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
      throws IOException {
    if (!isHome(path)) {
      return guest.newByteChannel(path, options, attrs);
    }
    return onHost(() -> home.newByteChannel(host(path), options, attrs));
  }

  @Override
  public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
      throws IOException {
    if (!isHome(dir)) {
      return guest.newDirectoryStream(dir, filter);
    }
    // Entries are named below the path the caller gave, as a directory stream's entries are.
    DirectoryStream<Path> entries = onHost(() ->
        home.newDirectoryStream(host(dir), p -> filter.accept(dir.resolve(p.getFileName().toString()))));
    return new DirectoryStream<>() {
      @Override
      public Iterator<Path> iterator() {
        Iterator<Path> it = entries.iterator();
        return new Iterator<>() {
          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public Path next() {
            return dir.resolve(it.next().getFileName().toString());
          }
        };
      }

      @Override
      public void close() throws IOException {
        entries.close();
      }
    };
  }

  @Override
  public Path toRealPath(Path path, LinkOption... linkOptions) throws IOException {
    if (!isHome(path)) {
      return guest.toRealPath(path, linkOptions);
    }
    Path real = paths.toVirtual(onHost(() -> home.toRealPath(host(path), linkOptions)));
    if (real == null) {
      // The home holds no links (PythonResources checks), so its real paths stay inside it.
      throw new java.nio.file.AccessDeniedException(normal(path).toString());
    }
    return real;
  }

  @Override
  public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
    if (!isHome(path)) {
      return guest.readAttributes(path, attributes, options);
    }
    Path virtual = normal(path);
    return onHost(() -> paths.attributes(virtual, home.readAttributes(paths.toHost(virtual), attributes, options)));
  }

  @Override
  public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
    if (!isHome(path)) {
      guest.setAttribute(path, attribute, value, options);
      return;
    }
    run(() -> home.setAttribute(host(path), attribute, value, options)); // read-only: refused
  }

  @Override
  public Path readSymbolicLink(Path link) throws IOException {
    if (!isHome(link)) {
      return guest.readSymbolicLink(link);
    }
    run(() -> home.readSymbolicLink(host(link)));
    // The home holds no links (PythonResources checks); never hand out a host path if one appeared.
    throw new java.nio.file.NotLinkException(normal(link).toString());
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
    if (!isHome(source) && !isHome(target)) {
      guest.move(source, target, options);
      return;
    }
    run(() -> home.move(hostOrSelf(source), hostOrSelf(target), options)); // read-only: refused
  }

  @Override
  public void copy(Path source, Path target, CopyOption... options) throws IOException {
    if (isHome(target)) {
      run(() -> home.copy(hostOrSelf(source), host(target), options)); // read-only: refused
    } else if (!isHome(source)) {
      guest.copy(source, target, options);
    } else {
      copyOutOfHome(source, target, options);
    }
  }

  /** A call on the host side of the home. */
  private interface HostCall<T> {
    T call() throws IOException;
  }

  /** A call on the host side of the home that returns nothing. */
  private interface HostAction {
    void run() throws IOException;
  }

  /** Runs {@code call} on the host side; a failure reaches the guest without the host's path. */
  private <T> T onHost(HostCall<T> call) throws IOException {
    try {
      return call.call();
    } catch (IOException e) {
      throw paths.scrub(e);
    } catch (RuntimeException e) {
      throw paths.scrub(e);
    }
  }

  private void run(HostAction action) throws IOException {
    onHost(() -> {
      action.run();
      return null;
    });
  }

  private Path hostOrSelf(Path path) {
    return isHome(path) ? host(path) : path;
  }

  /** Copies an interpreter file into the run's file system: a read there, a create or write here. */
  private void copyOutOfHome(Path source, Path target, CopyOption... options) throws IOException {
    Set<StandardOpenOption> open = EnumSet.of(StandardOpenOption.WRITE,
        List.of(options).contains(StandardCopyOption.REPLACE_EXISTING)
            ? StandardOpenOption.CREATE : StandardOpenOption.CREATE_NEW);
    if (open.contains(StandardOpenOption.CREATE)) {
      open.add(StandardOpenOption.TRUNCATE_EXISTING);
    }
    try (SeekableByteChannel in = newByteChannel(source, Set.of(StandardOpenOption.READ));
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
    if (isHome(path1) != isHome(path2)) {
      return false;
    }
    if (!isHome(path1)) {
      return guest.isSameFile(path1, path2, options);
    }
    return normal(path1).equals(normal(path2));
  }
}
