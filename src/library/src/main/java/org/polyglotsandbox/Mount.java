package org.polyglotsandbox;

import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A host file or directory made visible to guest code at a guest path, with the file operations
 * allowed on it.
 *
 * <p>The host content is <em>copied</em> into the run's in-memory file system when each run starts
 * (for a pooled Python context that imports modules from the {@code pythonPath}, when the context is
 * made, and compared with the host when its run starts: {@code PolyglotSandbox.Builder#pythonPath});
 * guest code never opens the host file, and nothing it writes ever reaches the host. Symbolic links
 * inside a mounted directory are not copied. A {@linkplain #scratch(String) scratch} mount is an
 * empty writable directory with no host side.
 *
 * @since 0.1.0
 */
public final class Mount {
  private static final Set<Operation> READ_ONLY = EnumSet.of(Operation.FILE_READ, Operation.FILE_LIST);

  private final Path hostPath; // null for scratch
  private final String guestPath;
  private final Set<Operation> operations;

  private Mount(Path hostPath, String guestPath, Set<Operation> operations) {
    this.hostPath = hostPath;
    this.guestPath = normalizeGuestPath(guestPath);
    if (operations.isEmpty()) {
      throw new IllegalArgumentException("mount " + this.guestPath + " allows no operation");
    }
    for (Operation op : operations) {
      if (!Objects.requireNonNull(op, "operation").isMountOperation()) {
        throw new IllegalArgumentException("mount " + this.guestPath + ": " + op.id() + " is not an operation a"
            + " mount can allow (" + Operation.mountOperations().stream().map(Operation::id).toList() + ")");
      }
    }
    this.operations = Collections.unmodifiableSet(EnumSet.copyOf(operations));
  }

  /**
   * Mounts a host file or directory that guest code may read and list, nothing else.
   *
   * @since 0.1.0
   */
  public static Mount readOnly(Path hostPath, String guestPath) {
    return new Mount(requireHost(hostPath, guestPath), guestPath, READ_ONLY);
  }

  /**
   * Mounts a copy of a host file or directory that guest code may read, list, write, create and
   * delete in. Changes stay in the run's memory and are discarded when the run ends.
   *
   * @since 0.1.0
   */
  public static Mount readWrite(Path hostPath, String guestPath) {
    return new Mount(requireHost(hostPath, guestPath), guestPath, EnumSet.copyOf(Operation.mountOperations()));
  }

  /**
   * Mounts a host file or directory with exactly the given operations allowed.
   *
   * @since 0.1.0
   */
  public static Mount of(Path hostPath, String guestPath, Set<Operation> operations) {
    Objects.requireNonNull(operations, "operations");
    return new Mount(requireHost(hostPath, guestPath), guestPath, operations);
  }

  /**
   * An empty, writable in-memory directory at {@code guestPath}, discarded when the run ends.
   *
   * @since 0.1.0
   */
  public static Mount scratch(String guestPath) {
    return new Mount(null, guestPath, EnumSet.copyOf(Operation.mountOperations()));
  }

  /**
   * The host file or directory copied in, or empty for a scratch directory.
   *
   * @since 0.1.0
   */
  public Optional<Path> hostPath() {
    return Optional.ofNullable(hostPath);
  }

  /**
   * The absolute, normalized guest path, such as {@code /data/sales.csv}.
   *
   * @since 0.1.0
   */
  public String guestPath() {
    return guestPath;
  }

  /**
   * Whether a guest path lies inside this mount: it is the mount's guest path or lies below it. Paths
   * are compared segment by segment after dropping repeated slashes, {@code .} segments and a trailing
   * slash, as {@linkplain #guestPath() guest paths} are normalized: {@code /data}, {@code /data/} and
   * {@code //data/./in.csv} lie inside a mount at {@code /data}; {@code /database} and {@code /dat} do
   * not, and nor does the root {@code /} (no mount is the root). Case matters.
   *
   * <p>{@code ..} is not resolved here: a path with a {@code ..} segment lies in no mount (not even
   * {@code /data/x/..}), so that {@code /data/../etc} can never pass for a path inside {@code /data};
   * resolve it first. A relative path, or one holding a NUL character, lies in no mount either.
   *
   * @throws NullPointerException if {@code guestPath} is null
   * @since 0.1.0
   */
  public boolean contains(String guestPath) {
    Objects.requireNonNull(guestPath, "guestPath");
    if (!guestPath.startsWith("/") || guestPath.indexOf('\0') >= 0) {
      return false;
    }
    String p = collapse(guestPath);
    return p != null && p.startsWith(this.guestPath)
        && (p.length() == this.guestPath.length() || p.charAt(this.guestPath.length()) == '/');
  }

  /**
   * The operations allowed on this mount and everything below it.
   *
   * @since 0.1.0
   */
  public Set<Operation> operations() {
    return operations;
  }

  /**
   * Whether guest code can change this mount's content (in memory only).
   *
   * @since 0.1.0
   */
  public boolean isWritable() {
    return operations.contains(Operation.FILE_WRITE)
        || operations.contains(Operation.FILE_CREATE)
        || operations.contains(Operation.FILE_DELETE);
  }

  private static Path requireHost(Path hostPath, String guestPath) {
    if (hostPath == null) {
      throw new IllegalArgumentException("mount " + guestPath + " needs a host path");
    }
    return hostPath.toAbsolutePath().normalize();
  }

  static String normalizeGuestPath(String guestPath) {
    if (guestPath == null || guestPath.isEmpty()) {
      throw new IllegalArgumentException("guest path must not be empty");
    }
    if (!guestPath.startsWith("/")) {
      throw new IllegalArgumentException("guest path '" + guestPath + "' must be absolute (start with /)");
    }
    if (guestPath.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("guest path '" + guestPath.replace("\0", "\\0") + "' contains a NUL character");
    }
    String normal = collapse(guestPath);
    if (normal == null) {
      throw new IllegalArgumentException("guest path '" + guestPath + "' must not contain '..'");
    }
    if (normal.isEmpty()) {
      throw new IllegalArgumentException("guest path '" + guestPath + "' must not be the root directory");
    }
    return normal;
  }

  /**
   * An absolute path without empty and {@code .} segments: {@code ""} for the root, null if a segment
   * is {@code ..}.
   */
  private static String collapse(String absolute) {
    StringBuilder out = new StringBuilder(absolute.length());
    for (String part : absolute.split("/")) {
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        return null;
      }
      out.append('/').append(part);
    }
    return out.toString();
  }

  /** @since 0.1.0 */
  @Override
  public boolean equals(Object o) {
    return o instanceof Mount m
        && Objects.equals(hostPath, m.hostPath)
        && guestPath.equals(m.guestPath)
        && operations.equals(m.operations);
  }

  /** @since 0.1.0 */
  @Override
  public int hashCode() {
    return Objects.hash(hostPath, guestPath, operations);
  }

  /** @since 0.1.0 */
  @Override
  public String toString() {
    String ops = operations.equals(READ_ONLY) ? "ro"
        : operations.equals(EnumSet.copyOf(Operation.mountOperations())) ? "rw" : operations.toString();
    return (hostPath == null ? "scratch" : hostPath.toString()) + " -> " + guestPath + " (" + ops + ")";
  }
}
