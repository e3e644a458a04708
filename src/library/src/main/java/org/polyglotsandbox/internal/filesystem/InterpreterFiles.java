package org.polyglotsandbox.internal.filesystem;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.graalvm.polyglot.io.FileSystem;

/**
 * The interpreter's own files: GraalPy's standard library, which GraalVM extracts once into a host
 * cache directory shared by every context and every later JVM.
 *
 * <p>GraalVM's {@code allowInternalResourceAccess} grants read-<em>write</em> access to that whole
 * cache, whatever file system it wraps, so a guest could poison the standard library for every later
 * task. Here the cache is reached only through a read-only wrapper, and only below the Python home;
 * every other path goes to the run's {@link GuestFileSystem}.
 */
public final class InterpreterFiles {
  private final List<Path> pythonHomes;
  /** GraalPy's resources, or null when they are not on the class path (then nothing can be verified). */
  private final PythonResources resources;
  // Stateless; shared by every Python run of the sandbox.
  private final FileSystem readOnlyHome = FileSystem.newReadOnlyFileSystem(
      FileSystem.allowInternalResourceAccess(FileSystem.newDenyIOFileSystem()));

  private InterpreterFiles(List<Path> pythonHomes, PythonResources resources) {
    this.pythonHomes = pythonHomes;
    this.resources = resources;
  }

  /**
   * Locates the cache the way GraalVM does: the system property, then XDG_CACHE_HOME, then ~/.cache; and
   * in it the one directory GraalPy's resources extract to, so that nothing beside it (other versions'
   * homes) is reachable.
   */
  public static InterpreterFiles locate() {
    Path root;
    String property = System.getProperty("polyglot.engine.userResourceCache");
    if (property != null && !property.isBlank()) {
      root = Path.of(property);
    } else {
      String xdg = System.getenv("XDG_CACHE_HOME");
      Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
      root = base.resolve("org.graalvm.polyglot");
    }
    Path home = root.toAbsolutePath().normalize().resolve("python").resolve("python-home");
    PythonResources resources = PythonResources.find();
    if (resources != null) {
      home = home.resolve(resources.versionHash());
    }
    List<Path> homes = new ArrayList<>();
    homes.add(home);
    try {
      Path real = home.toRealPath();
      if (!real.equals(home)) {
        homes.add(real);
      }
    } catch (IOException notExtractedYet) {
      // GraalPy extracts it on first use; the configured path is the one it will use.
    }
    return new InterpreterFiles(List.copyOf(homes), resources);
  }

  /**
   * Checks GraalPy's extracted home against the {@code python-resources} artifact, if it is extracted
   * already (else GraalVM extracts it from the artifact on first use, and {@link #verify(String)} checks it
   * after that).
   *
   * @throws IllegalStateException naming the file that differs, is missing, extra or a link
   */
  public void verifyIfExtracted() {
    if (resources != null && Files.isDirectory(pythonHomes.get(0))) {
      resources.verify(pythonHomes.get(0));
    }
  }

  /**
   * Checks the home a running GraalPy reports ({@code sys.prefix}) against the artifact.
   *
   * @throws IllegalStateException naming the file that differs, is missing, extra or a link
   */
  public void verify(String prefix) {
    if (resources != null) {
      resources.verify(Path.of(prefix));
    }
  }

  /** The directories GraalPy's home may be in (the configured path and its real path). */
  public List<Path> pythonHomes() {
    return pythonHomes;
  }

  /** Whether a guest path (normalized) lies inside GraalPy's home. */
  public boolean isPythonHome(Path path) {
    Path p = path.isAbsolute() ? path.normalize() : path.toAbsolutePath().normalize();
    for (Path home : pythonHomes) {
      if (p.startsWith(home)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code prefix}, as reported by a running GraalPy, lies where this class expects the home. */
  public boolean containsPrefix(String prefix) {
    return isPythonHome(Path.of(prefix));
  }

  /**
   * The file system for a Python run: the run's own file system, with the Python home readable and
   * never writable.
   */
  public FileSystem forPython(GuestFileSystem guest) {
    return new PythonFileSystem(guest, readOnlyHome, this::isPythonHome);
  }
}
