package org.polyglotsandbox.internal.filesystem;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.polyglotsandbox.Policy;

/**
 * The two names of GraalPy's home: the virtual path Python guests see ({@link Policy#PYTHON_HOME_PATH})
 * and the host directory GraalVM extracted it to, with the translations between them.
 *
 * <p>Everything that leaves the host side for a guest is translated: paths, the text of errors, and the
 * file attributes that describe the host rather than the file. Those are inode and device numbers (an
 * inode here is derived from the virtual path; the device is {@value #DEVICE}), owner and group (root,
 * 0), the times (the extraction's, replaced by {@link #FILE_TIME}) and the permission bits (which carry
 * the host's umask: directories and executables are {@code 0755}, other files {@code 0644}).
 */
final class InterpreterHome {
  /** The device number of every file in the virtual home. */
  static final long DEVICE = 2;
  /** The time of every file in the virtual home: 2000-01-01T00:00:00Z, after zip's 1980 floor. */
  static final FileTime FILE_TIME = FileTime.from(Instant.parse("2000-01-01T00:00:00Z"));

  private static final int S_IFMT = 0170000;
  private static final int S_IFDIR = 0040000;
  private static final Set<PosixFilePermission> RWXR_XR_X = PosixFilePermissions.fromString("rwxr-xr-x");
  private static final Set<PosixFilePermission> RW_R__R__ = PosixFilePermissions.fromString("rw-r--r--");
  private static final Principal ROOT = new Principal("root");

  private final Path virtual;
  /** Host directories the home may be named by, longest first so that text replacement takes the whole name. */
  private final List<Path> hostRoots;
  private volatile Path activeRoot;

  InterpreterHome(String virtualHome, List<Path> hostRoots) {
    this.virtual = Path.of(virtualHome);
    List<Path> roots = new ArrayList<>(hostRoots);
    roots.sort(Comparator.comparingInt((Path p) -> p.toString().length()).reversed());
    this.hostRoots = List.copyOf(roots);
    this.activeRoot = hostRoots.get(0);
  }

  /** The virtual home, as guests see it. */
  Path virtual() {
    return virtual;
  }

  /** Whether a normalized absolute path lies in the virtual home. */
  boolean isVirtual(Path normalized) {
    return normalized.startsWith(virtual);
  }

  /** The host path behind a normalized absolute path inside the virtual home. */
  Path toHost(Path normalizedVirtual) {
    Path rel = virtual.relativize(normalizedVirtual);
    return rel.toString().isEmpty() ? activeRoot : activeRoot.resolve(rel.toString());
  }

  /** The virtual name of a host path string inside the home, or null if it names no place in the home. */
  Path toVirtual(String hostPath) {
    if (hostPath == null || !hostPath.startsWith("/")) {
      return null;
    }
    try {
      Path p = Path.of(hostPath).normalize();
      for (Path root : hostRoots) {
        if (p.startsWith(root)) {
          activeRoot = root;
          return resolveVirtual(root.relativize(p));
        }
      }
    } catch (InvalidPathException notAPath) {
      // a guest's NUL or the like: the guest file system reports it
    }
    return null;
  }

  /** The virtual name of a host path inside the home, or null if it lies outside. */
  Path toVirtual(Path hostPath) {
    Path p = hostPath.toAbsolutePath().normalize();
    for (Path root : hostRoots) {
      if (p.startsWith(root)) {
        return resolveVirtual(root.relativize(p));
      }
    }
    return null;
  }

  private Path resolveVirtual(Path rel) {
    return rel.toString().isEmpty() ? virtual : virtual.resolve(rel.toString());
  }

  /** {@code text} with every host name of the home replaced by the virtual one. */
  String scrub(String text) {
    if (text == null) {
      return null;
    }
    String out = text;
    for (Path root : hostRoots) {
      out = out.replace(root.toString(), virtual.toString());
    }
    return out;
  }

  private boolean mentionsHost(String text) {
    return text != null && !text.equals(scrub(text));
  }

  /**
   * The same failure without the host's path: an exception of the same kind (so the guest sees the same
   * errno) whose paths and text name the virtual home, and without the host's cause.
   */
  IOException scrub(IOException e) {
    if (!mentionsHost(e.getMessage())) {
      return e;
    }
    if (e instanceof FileSystemException f) {
      String file = scrub(f.getFile());
      String other = scrub(f.getOtherFile());
      String reason = scrub(f.getReason());
      return switch (f) {
        case NoSuchFileException x -> new NoSuchFileException(file, other, reason);
        case AccessDeniedException x -> new AccessDeniedException(file, other, reason);
        case FileAlreadyExistsException x -> new FileAlreadyExistsException(file, other, reason);
        case DirectoryNotEmptyException x -> new DirectoryNotEmptyException(file);
        case NotDirectoryException x -> new NotDirectoryException(file);
        case NotLinkException x -> new NotLinkException(file, other, reason);
        case FileSystemLoopException x -> new FileSystemLoopException(file);
        case AtomicMoveNotSupportedException x -> new AtomicMoveNotSupportedException(file, other, reason);
        default -> new FileSystemException(file, other, reason);
      };
    }
    return new IOException(scrub(e.getMessage()));
  }

  /** The same refusal without the host's path (GraalVM's read-only view names the path it refuses). */
  RuntimeException scrub(RuntimeException e) {
    if (!mentionsHost(e.getMessage())) {
      return e;
    }
    String m = scrub(e.getMessage());
    return switch (e) {
      case UnsupportedOperationException x -> new UnsupportedOperationException(m);
      case IllegalArgumentException x -> new IllegalArgumentException(m);
      case UncheckedIOException x -> new UncheckedIOException(m, scrub(x.getCause()));
      default -> new SecurityException(m);
    };
  }

  /**
   * The attributes of a file in the virtual home as the guest sees them: the host's values for what
   * describes the file (type, size, link count), synthetic ones for what describes the host.
   */
  Map<String, Object> attributes(Path virtualPath, Map<String, Object> host) {
    Map<String, Object> out = new HashMap<>(host);
    boolean directory = host.get("mode") instanceof Number m ? (m.intValue() & S_IFMT) == S_IFDIR
        : Boolean.TRUE.equals(host.get("isDirectory"));
    for (Map.Entry<String, Object> e : host.entrySet()) {
      Object v = e.getValue();
      switch (e.getKey()) {
        case "ino" -> out.put("ino", sameType(v, inode(virtualPath)));
        case "dev" -> out.put("dev", sameType(v, DEVICE));
        case "rdev" -> out.put("rdev", sameType(v, 0));
        case "uid", "gid" -> out.put(e.getKey(), sameType(v, 0));
        case "owner" -> out.put("owner", ROOT);
        case "group" -> out.put("group", ROOT);
        case "lastModifiedTime", "lastAccessTime", "creationTime", "ctime" -> out.put(e.getKey(), FILE_TIME);
        case "fileKey" -> out.put("fileKey", "(dev=" + Long.toHexString(DEVICE) + ",ino=" + inode(virtualPath) + ")");
        case "mode" -> {
          int mode = ((Number) v).intValue();
          boolean open = directory || (mode & 0100) != 0;
          out.put("mode", sameType(v, (mode & S_IFMT) | (open ? 0755 : 0644)));
        }
        case "permissions" -> {
          @SuppressWarnings("unchecked")
          Set<PosixFilePermission> p = (Set<PosixFilePermission>) v;
          out.put("permissions", directory || p.contains(PosixFilePermission.OWNER_EXECUTE) ? RWXR_XR_X : RW_R__R__);
        }
        default -> {
          // type, size and link count describe the file itself
        }
      }
    }
    return out;
  }

  /** An inode number for a file in the virtual home: FNV-1a over its virtual path, positive and stable. */
  static long inode(Path virtualPath) {
    long h = 0xcbf29ce484222325L;
    for (byte b : virtualPath.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return (h & Long.MAX_VALUE) | 1;
  }

  private static Object sameType(Object original, long value) {
    return original instanceof Integer ? (Object) (int) value : (Object) value;
  }

  /** The owner and group of every file in the virtual home. */
  private record Principal(String getName) implements UserPrincipal, GroupPrincipal {
    @Override
    public String toString() {
      return getName;
    }
  }
}
