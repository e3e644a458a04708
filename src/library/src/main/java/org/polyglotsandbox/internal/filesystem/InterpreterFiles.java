package org.polyglotsandbox.internal.filesystem;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.graalvm.polyglot.io.FileSystem;
import org.polyglotsandbox.Policy;

/**
 * The interpreter's own files: GraalPy's standard library, which GraalVM extracts once into a host
 * cache directory shared by every context and every later JVM, and which Python guests see at
 * {@link Policy#PYTHON_HOME_PATH} instead.
 *
 * <p>GraalVM's {@code allowInternalResourceAccess} grants read-<em>write</em> access to that whole
 * cache, whatever file system it wraps, so a guest could poison the standard library for every later
 * task. Here the cache is reached only through a read-only wrapper, and only below the Python home, by
 * its virtual name ({@link PythonFileSystem}); every other path goes to the run's {@link GuestFileSystem}.
 */
public final class InterpreterFiles {
  private final List<Path> pythonHomes;
  private final InterpreterHome home;
  /** GraalPy's resources, or null when they are not on the class path (then nothing can be verified). */
  private final PythonResources resources;
  // Stateless; shared by every Python run of the sandbox.
  private final FileSystem readOnlyHome = FileSystem.newReadOnlyFileSystem(
      FileSystem.allowInternalResourceAccess(FileSystem.newDenyIOFileSystem()));

  private InterpreterFiles(List<Path> pythonHomes, PythonResources resources) {
    this.pythonHomes = pythonHomes;
    this.home = new InterpreterHome(Policy.PYTHON_HOME_PATH, pythonHomes);
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
   * already (else GraalVM extracts it from the artifact on first use, and {@link #verify()} checks it
   * after that).
   *
   * @return whether the home is extracted (and so was checked); always false without the artifact
   * @throws IllegalStateException naming the file that differs, is missing, extra or a link
   */
  public boolean verifyIfExtracted() {
    if (resources != null && Files.isDirectory(pythonHomes.get(0))) {
      resources.verify(pythonHomes.get(0));
      return true;
    }
    return false;
  }

  /**
   * Checks GraalPy's extracted home against the artifact, once a Python context has run (GraalVM has
   * extracted it by then).
   *
   * @throws IllegalStateException naming the file that differs, is missing, extra or a link
   */
  public void verify() {
    if (resources != null) {
      resources.verify(pythonHomes.get(0));
    }
  }

  /** The host directories GraalPy's home may be in (the configured path and its real path). */
  public List<Path> pythonHomes() {
    return pythonHomes;
  }

  /**
   * Whether {@code prefix}, as a running GraalPy reports it ({@code sys.prefix}), is the virtual home:
   * if not, GraalPy found its home somewhere this class did not expect, and guests would see a host path.
   */
  public boolean reportsVirtualHome(String prefix) {
    return Policy.PYTHON_HOME_PATH.equals(prefix);
  }

  /**
   * Fails unless {@code prefix}, what a running GraalPy reports as {@code sys.prefix} (any value), is
   * the virtual home ({@link #reportsVirtualHome}).
   *
   * @throws IllegalStateException naming where GraalPy found its home instead
   */
  public void requireVirtualHome(Object prefix) {
    if (!(prefix instanceof String p && reportsVirtualHome(p))) {
      throw new IllegalStateException("GraalPy found its home at " + prefix + ", not in the expected cache "
          + pythonHomes + "; set -Dpolyglot.engine.userResourceCache consistently");
    }
  }

  /**
   * The file system for a Python run: the run's own file system, with the Python home readable at its
   * virtual path and never writable. Call {@link PythonFileSystem#homeLocated()} once the context is
   * initialised.
   */
  public PythonFileSystem forPython(GuestFileSystem guest) {
    return new PythonFileSystem(guest, readOnlyHome, home);
  }
}
