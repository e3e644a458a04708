package org.polyglotsandbox.internal.filesystem;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * GraalPy's {@code python-resources} artifact: what GraalVM extracts into the host cache, and the check
 * that the extracted home still holds exactly that.
 *
 * <p>GraalVM extracts the artifact once into {@code <cache>/python/python-home/<version hash>} and never
 * looks at it again, so a file changed or added there before a JVM starts would run in every later
 * Python context. {@link #verify} compares the home with the artifact byte for byte: every listed file
 * present with the same contents, nothing else (no extra file, no link). The full comparison runs once
 * per JVM and home; later calls compare each file's size and modification time with what that
 * comparison saw.
 */
public final class PythonResources {
  private static final String RESOURCE_CLASS = "com.oracle.graal.python.resources.PythonResource";
  private static final String BASE = "META-INF/resources/";
  /** The listings, in the order GraalPy's resource hashes them into the directory name. */
  private static final List<String> LISTINGS = List.of("libgraalpy", "libpython", "ni", "include", "native");

  private record Stamp(long size, long modified) {}

  /** Per home, the stamps of the last full comparison in this JVM that passed. */
  private static final Map<Path, Map<String, Stamp>> VERIFIED = new java.util.concurrent.ConcurrentHashMap<>();

  private final Module module;
  private final String platform;

  private PythonResources(Module module, String platform) {
    this.module = module;
    this.platform = platform;
  }

  /** The artifact on the class or module path, or null if GraalPy's resources are not there. */
  static PythonResources find() {
    try {
      Class<?> c = Class.forName(RESOURCE_CLASS, false, PythonResources.class.getClassLoader());
      PythonResources r = new PythonResources(c.getModule(), os() + "/" + arch());
      return r.open(r.listing("libpython")) == null ? null : r;
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }

  /** The name GraalVM gives the extracted home: the first 8 digits of each listing's SHA-256. */
  String versionHash() {
    StringBuilder b = new StringBuilder();
    for (String listing : LISTINGS) {
      String digest = readLines(listingBase(listing) + listing + ".sha256").stream().findFirst().orElse("");
      if (digest.length() < 8) {
        throw new IllegalStateException("python-resources: " + listing + ".sha256 is missing or malformed");
      }
      b.append(digest, 0, 8);
    }
    return b.toString();
  }

  /**
   * Checks that {@code home} holds exactly the artifact's files.
   *
   * @throws IllegalStateException naming the first file that differs, is missing, is extra or is a link
   */
  void verify(Path home) {
    Map<String, Stamp> stamps = stamps(home);
    if (stamps.equals(VERIFIED.get(home))) {
      return; // every file as the full comparison saw it
    }
    Map<String, String> expected = expectedFiles(home);
    for (String file : stamps.keySet()) {
      if (!expected.containsKey(file)) {
        throw refused(home, file, "is not part of the python-resources artifact");
      }
    }
    for (Map.Entry<String, String> e : expected.entrySet()) {
      if (!stamps.containsKey(e.getKey())) {
        throw refused(home, e.getKey(), "is missing");
      }
      if (!sameContents(e.getValue(), home.resolve(e.getKey()))) {
        throw refused(home, e.getKey(), "differs from the python-resources artifact");
      }
    }
    VERIFIED.put(home, stamps);
  }

  private static IllegalStateException refused(Path home, String file, String why) {
    return new IllegalStateException("GraalPy's extracted home " + home + " cannot be trusted: " + file + " " + why
        + "; delete " + home + " (GraalVM extracts it again) or point -Dpolyglot.engine.userResourceCache elsewhere");
  }

  /** Relative path in the home -> resource name in the artifact, following GraalPy's own unpacking. */
  private Map<String, String> expectedFiles(Path home) {
    String python = onlyChild(home, "lib", "python");
    String graalpy = onlyChild(home, "lib", "graalpy");
    Map<String, String> prefixes = Map.of(
        "libpython", "lib/" + python + "/",
        "libgraalpy", "lib/" + graalpy + "/",
        "include", "include/" + python + "/",
        "ni", "",
        "native", "");
    Map<String, String> files = new HashMap<>();
    for (String listing : LISTINGS) {
      String base = listingBase(listing);
      String from = listing.equals("ni") || listing.equals("native") ? base : base + listing + "/";
      for (String line : readLines(base + listing + ".files")) {
        int eq = line.indexOf(" = ");
        String resource = (eq < 0 ? line : line.substring(0, eq)).trim();
        if (resource.isEmpty()) {
          continue;
        }
        if (!resource.startsWith(from)) {
          throw new IllegalStateException("python-resources: unexpected entry " + resource + " in " + listing + ".files");
        }
        files.put(prefixes.get(listing) + resource.substring(from.length()), resource);
      }
    }
    return files;
  }

  /** The one directory under {@code home/dir} whose name starts with {@code prefix}. */
  private static String onlyChild(Path home, String dir, String prefix) {
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(home.resolve(dir), prefix + "*")) {
      s.forEach(p -> names.add(p.getFileName().toString()));
    } catch (IOException e) {
      throw new IllegalStateException("GraalPy's extracted home " + home + " cannot be read: " + e.getMessage(), e);
    }
    if (names.size() != 1) {
      throw refused(home, dir + "/" + prefix + "*", "should be one directory but is " + names);
    }
    return names.get(0);
  }

  /** Every entry below {@code home} that is not a directory: regular files with their stamps; links refused. */
  private static Map<String, Stamp> stamps(Path home) {
    Map<String, Stamp> out = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(home)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String rel = home.relativize(p).toString().replace('\\', '/');
        if (a.isDirectory()) {
          continue;
        }
        if (!a.isRegularFile()) {
          throw refused(home, rel, "is a link or special file");
        }
        out.put(rel, new Stamp(a.size(), a.lastModifiedTime().toMillis()));
      }
    } catch (IOException e) {
      throw new IllegalStateException("GraalPy's extracted home " + home + " cannot be read: " + e.getMessage(), e);
    } catch (UncheckedIOException e) {
      throw new IllegalStateException("GraalPy's extracted home " + home + " cannot be read: " + e.getCause().getMessage(), e);
    }
    return out;
  }

  private boolean sameContents(String resource, Path file) {
    try (InputStream a = open(resource); InputStream b = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      if (a == null) {
        throw new IllegalStateException("python-resources: " + resource + " is listed but not in the artifact");
      }
      byte[] x = new byte[64 * 1024];
      byte[] y = new byte[64 * 1024];
      while (true) {
        int n = a.readNBytes(x, 0, x.length);
        int m = b.readNBytes(y, 0, n == 0 ? 1 : n);
        if (n != m || !java.util.Arrays.equals(x, 0, n, y, 0, m)) {
          return false;
        }
        if (n == 0) {
          return true;
        }
      }
    } catch (IOException e) {
      return false;
    }
  }

  private String listingBase(String listing) {
    return listing.equals("native") ? BASE + platform + "/" : BASE;
  }

  private String listing(String name) {
    return listingBase(name) + name + ".files";
  }

  private InputStream open(String resource) {
    try {
      return module.getResourceAsStream(resource);
    } catch (IOException e) {
      return null;
    }
  }

  private List<String> readLines(String resource) {
    try (InputStream in = open(resource)) {
      if (in == null) {
        // A platform without native files has no listing; GraalPy then hashes nothing for it either.
        throw new IllegalStateException("python-resources: " + resource + " is missing");
      }
      return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().toList();
    } catch (IOException e) {
      throw new IllegalStateException("python-resources: " + resource + " cannot be read", e);
    }
  }

  private static String os() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    return os.contains("mac") || os.contains("darwin") ? "darwin" : os.contains("win") ? "windows" : "linux";
  }

  private static String arch() {
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    return arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : "amd64";
  }
}
