package org.polyglotsandbox.internal.worker;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The class path a worker starts with: the jars and directories this JVM loaded the library and GraalVM
 * from, as a plain {@code java -cp} takes them, however the application was packaged.
 *
 * <ul>
 *   <li><b>Class path.</b> {@code java.class.path}, entry by entry.
 *   <li><b>Module path.</b> {@code jdk.module.path}, with each directory that is not itself an exploded
 *       module replaced by the jars and exploded modules directly in it (a module path may name a folder of
 *       jars; a class path may not). On the worker's class path the module descriptors are ignored, which
 *       the worker does not mind: it needs no module's encapsulation.
 *   <li><b>Spring Boot executable jar</b> (and any loader whose classes come from jars nested in another
 *       jar, as {@code jar:nested:} URLs, Boot 3.2 and later, or {@code jar:file:...!/...jar!/} ones, older
 *       Boots): the nested jars the library's class loader reads are copied out of the outer jar, once, into a
 *       private cache (see {@link #cacheDirectories()}), and those copies are the entries. The outer jar
 *       itself is left out: a plain class path sees only its launcher.
 *   <li><b>Any other class loader</b> (one neither property names): the locations of the library's class
 *       loader and its parents (their URLs, and every jar they hold a manifest in), and the code sources
 *       of the library's and GraalVM's classes.
 * </ul>
 *
 * <p>The first two cases are the properties alone. The others are looked at only when the properties do
 * not name where the library or GraalVM's {@code org.graalvm.polyglot} came from, so an application on a
 * plain class path pays for no jar it does not use. The result is computed once per JVM and computed again
 * only if one of its entries has since disappeared (a cache someone cleared).
 *
 * <p>A nested jar's copy is named by the outer jar's record of it (its name, size and CRC-32, all three
 * checked when it is copied out), so rebuilding an application copies out only the jars that changed, and
 * two JVMs that copy the same jar at once each write a directory of their own and rename it into place,
 * the second rename losing harmlessly. Copies are read-only; the cache is a directory of this user's that
 * nobody else may write, checked before use.
 */
final class WorkerClassPath {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");

  /** Classes whose locations the worker cannot start without: the library's and GraalVM's API. */
  private static final List<String> ANCHORS = List.of(WorkerMain.class.getName(), "org.graalvm.polyglot.Engine");
  private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._+-]{0,200}\\.jar");
  private static final Set<PosixFilePermission> PRIVATE_DIRECTORY = PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> READ_ONLY_FILE = PosixFilePermissions.fromString("r--------");

  private static List<String> computed;

  private WorkerClassPath() {}

  /**
   * The worker's class path: absolute paths of jars and directories that exist, in the order this JVM's
   * loaders search them, without duplicates.
   *
   * @throws IllegalStateException if the library's or GraalVM's classes come from somewhere no file names
   *     (a loader whose locations are neither files nor jars nested in a jar), or a nested jar cannot be
   *     copied out; the message names the location or the directory and what went wrong
   */
  static synchronized List<String> entries() {
    if (computed == null || !computed.stream().allMatch(e -> Files.exists(Path.of(e)))) {
      computed = compute();
    }
    return computed;
  }

  private static List<String> compute() {
    ClassLoader loader = WorkerClassPath.class.getClassLoader();
    Map<String, String> anchors = new LinkedHashMap<>();
    for (String anchor : ANCHORS) {
      anchors.put(anchor, codeSource(anchor, loader));
    }
    List<Path> plain = new ArrayList<>();
    plain.addAll(expandModulePath(System.getProperty("jdk.module.path")));
    plain.addAll(splitPath(System.getProperty("java.class.path")));
    Set<Path> found = new LinkedHashSet<>();
    plain.forEach(p -> found.add(canonical(p)));
    if (anchors.values().stream().allMatch(a -> a != null && isPlainFileIn(a, found))) {
      return strings(found);
    }

    // The properties don't name the library or GraalVM: ask the class loaders where they read from.
    Map<Path, ZipFile> outers = new HashMap<>();
    try {
      Path cache = null;
      Set<Path> outerJars = new LinkedHashSet<>();
      Set<Path> added = new LinkedHashSet<>();
      List<Path> copied = new ArrayList<>();
      List<String> locations = new ArrayList<>(loaderLocations(loader));
      anchors.values().stream().filter(a -> a != null).forEach(locations::add);
      for (String url : locations) {
        Location location = locationOf(url);
        if (location == null) {
          continue;
        }
        if (location.entry() == null) {
          if (Files.exists(location.file())) {
            added.add(canonical(location.file()));
          }
          continue;
        }
        if (!location.entry().endsWith(".jar")) {
          continue; // a nested directory (BOOT-INF/classes/): the application's own classes, not the worker's
        }
        if (cache == null) {
          cache = cacheDirectory();
        }
        Path outer = canonical(location.file());
        Path copy = extract(outers, outer, location.entry(), cache, copied);
        if (copy != null) {
          outerJars.add(outer);
          added.add(copy);
        }
      }
      found.addAll(added);
      // An outer jar's own root holds its launcher, not the library: leave it out, unless an anchor is there.
      for (String url : anchors.values()) {
        Location l = url == null ? null : locationOf(url);
        if (l != null && l.entry() == null) {
          outerJars.remove(canonical(l.file()));
        }
      }
      found.removeAll(outerJars);
      if (!copied.isEmpty()) {
        long bytes = 0;
        for (Path p : copied) {
          bytes += p.toFile().length();
        }
        LOG.log(System.Logger.Level.INFO, "copied " + copied.size() + " jars (" + (bytes >> 20) + " MiB) out of "
            + String.join(", ", outerJars.stream().map(Path::toString).toList()) + " into " + cache
            + " for the worker processes; a jar is copied again only when it changes");
      }
      for (Map.Entry<String, String> anchor : anchors.entrySet()) {
        String url = anchor.getValue();
        if (url == null) {
          throw new IllegalStateException("the worker's class path cannot name where " + anchor.getKey()
              + " comes from: its class loader (" + loader + ") gives it no code source");
        }
        Location location = locationOf(url);
        boolean covered = location != null && (location.entry() == null ? found.contains(canonical(location.file()))
            : location.entry().endsWith(".jar") && cache != null
                && found.contains(copyPath(cache, outers.get(canonical(location.file())), location.entry())));
        if (!covered) {
          throw new IllegalStateException("the worker's class path cannot name where " + anchor.getKey()
              + " comes from: " + url + " (loaded by " + loader + ") is not a jar or directory a plain class path"
              + " can name, nor a jar nested in one");
        }
      }
      return strings(found);
    } finally {
      for (ZipFile z : outers.values()) {
        try {
          z.close();
        } catch (IOException e) {
          // read only; nothing to lose
        }
      }
    }
  }

  /** The URL of the code source of {@code className} as {@code loader} sees it, or null. */
  private static String codeSource(String className, ClassLoader loader) {
    try {
      Class<?> c = Class.forName(className, false, loader);
      var source = c.getProtectionDomain().getCodeSource();
      return source == null || source.getLocation() == null ? null : source.getLocation().toString();
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }

  private static boolean isPlainFileIn(String url, Set<Path> entries) {
    Location l = locationOf(url);
    return l != null && l.entry() == null && entries.contains(canonical(l.file()));
  }

  /**
   * Where {@code loader} and its parents read classes from, parents first: the URLs of those that are
   * {@link URLClassLoader}s (Spring Boot's is one), then every jar or directory holding a manifest that
   * {@code loader} can see (which also reaches loaders that are not URL class loaders).
   */
  private static List<String> loaderLocations(ClassLoader loader) {
    List<ClassLoader> chain = new ArrayList<>();
    for (ClassLoader l = loader; l != null; l = l.getParent()) {
      chain.add(l);
    }
    Collections.reverse(chain);
    List<String> out = new ArrayList<>();
    for (ClassLoader l : chain) {
      if (l instanceof URLClassLoader u) {
        for (URL url : u.getURLs()) {
          out.add(url.toString());
        }
      }
    }
    if (loader != null) {
      String manifest = "META-INF/MANIFEST.MF";
      try {
        Enumeration<URL> all = loader.getResources(manifest);
        while (all.hasMoreElements()) {
          String url = all.nextElement().toString();
          if (url.endsWith(manifest)) {
            out.add(url.substring(0, url.length() - manifest.length()));
          }
        }
      } catch (IOException e) {
        // a loader that cannot list its manifests: its URLs and the anchors' code sources remain
      }
    }
    return out;
  }

  /** This JVM's module path as class-path entries: directories of modules become the modules in them. */
  static List<Path> expandModulePath(String modulePath) {
    List<Path> out = new ArrayList<>();
    for (Path entry : splitPath(modulePath)) {
      if (Files.isDirectory(entry) && !Files.isRegularFile(entry.resolve("module-info.class"))) {
        try (Stream<Path> children = Files.list(entry)) {
          children.filter(c -> Files.isRegularFile(c) ? c.getFileName().toString().endsWith(".jar")
                  : Files.isRegularFile(c.resolve("module-info.class")))
              .sorted(Comparator.comparing(Path::toString))
              .forEach(out::add);
        } catch (IOException e) {
          throw new IllegalStateException("the module path's directory " + entry + " cannot be listed: " + e, e);
        }
      } else {
        out.add(entry);
      }
    }
    return out;
  }

  private static List<Path> splitPath(String value) {
    List<Path> out = new ArrayList<>();
    if (value != null) {
      for (String e : value.split(Pattern.quote(File.pathSeparator))) {
        if (!e.isBlank()) {
          out.add(Path.of(e).toAbsolutePath().normalize());
        }
      }
    }
    return out;
  }

  /** The real path where there is one, so that a symbolic link and its target count as one entry. */
  private static Path canonical(Path p) {
    Path absolute = p.toAbsolutePath().normalize();
    try {
      return absolute.toRealPath();
    } catch (IOException e) {
      return absolute;
    }
  }

  private static List<String> strings(Set<Path> paths) {
    List<String> out = new ArrayList<>();
    for (Path p : paths) {
      if (Files.exists(p)) {
        out.add(p.toString());
      }
    }
    return List.copyOf(out);
  }

  /** A file or directory ({@code entry} null), or the jar {@code entry} nested in the jar {@code file}. */
  record Location(Path file, String entry) {}

  /**
   * Where a code source or class path URL points: {@code file:/a.jar}, {@code file:/dir/},
   * {@code jar:file:/a.jar!/}, Spring Boot's {@code jar:nested:/app.jar/!BOOT-INF/lib/a.jar!/} and the older
   * {@code jar:file:/app.jar!/BOOT-INF/lib/a.jar!/}; null for any other scheme or a malformed URL.
   */
  static Location locationOf(String url) {
    try {
      String s = url;
      if (s.startsWith("jar:")) {
        s = s.substring("jar:".length());
        if (s.endsWith("!/")) {
          s = s.substring(0, s.length() - 2);
        }
      }
      if (s.startsWith("nested:")) {
        String rest = s.substring("nested:".length());
        int separator = rest.indexOf("/!");
        if (separator < 0) {
          return new Location(filePath(rest), null);
        }
        return new Location(filePath(rest.substring(0, separator)), percentDecode(rest.substring(separator + 2)));
      }
      if (s.startsWith("file:")) {
        int separator = s.indexOf("!/");
        if (separator < 0) {
          return new Location(Path.of(URI.create(s)), null);
        }
        String entry = s.substring(separator + 2);
        return new Location(Path.of(URI.create(s.substring(0, separator))), entry.isEmpty() ? null
            : percentDecode(entry));
      }
      return null;
    } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
      return null;
    }
  }

  private static Path filePath(String rawPath) {
    return Path.of(URI.create("file://" + (rawPath.startsWith("/") ? "" : "/") + rawPath));
  }

  private static String percentDecode(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length()) {
        out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /**
   * The copy of {@code entry} of the jar {@code outer} in {@code cache}, made (and added to {@code copied})
   * if it is not there yet; null if {@code outer} holds no such jar.
   */
  static Path extract(Map<Path, ZipFile> opened, Path outer, String entry, Path cache, List<Path> copied) {
    ZipFile zip;
    try {
      zip = opened.get(outer);
      if (zip == null) {
        zip = new ZipFile(outer.toFile());
        opened.put(outer, zip);
      }
    } catch (IOException e) {
      throw new IllegalStateException("the jar " + outer + ", which the library was loaded from, cannot be read: "
          + e.getMessage(), e);
    }
    ZipEntry z = zip.getEntry(entry);
    if (z == null || z.isDirectory()) {
      return null;
    }
    Path target = copyPath(cache, zip, entry);
    try {
      if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.size(target) == z.getSize()) {
        return target;
      }
      Path key = target.getParent();
      if (Files.exists(key, LinkOption.NOFOLLOW_LINKS)) {
        // Only a complete, checked copy is ever renamed into place; this one was damaged since.
        deleteTree(key);
      }
      Path partial = Files.createTempDirectory(cache, ".partial-", privateDirectory(cache));
      try {
        Path file = partial.resolve(target.getFileName().toString());
        CRC32 crc = new CRC32();
        long size;
        try (InputStream in = new CheckedInputStream(zip.getInputStream(z), crc);
            OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW)) {
          size = in.transferTo(out);
        }
        if (size != z.getSize() || crc.getValue() != z.getCrc()) {
          throw new IllegalStateException("the jar " + entry + " in " + outer + " is damaged: " + size
              + " bytes with CRC-32 " + Long.toHexString(crc.getValue()) + " read, " + z.getSize() + " bytes with "
              + Long.toHexString(z.getCrc()) + " recorded");
        }
        makeReadOnly(file);
        try {
          Files.move(partial, key, StandardCopyOption.ATOMIC_MOVE);
          copied.add(target);
        } catch (AtomicMoveNotSupportedException e) {
          throw e;
        } catch (IOException e) {
          // Another JVM renamed its copy into place first: same name, size and CRC, so the same bytes.
          if (!Files.isRegularFile(target)) {
            throw e;
          }
        }
      } finally {
        if (Files.exists(partial)) {
          deleteTree(partial);
        }
      }
      return target;
    } catch (IOException e) {
      throw new IllegalStateException("the jar " + entry + " in " + outer + " cannot be copied into " + cache
          + " for the workers: " + e, e);
    }
  }

  /**
   * Where the copy of {@code entry} goes: a directory named by the jar's name, CRC-32 and size as
   * {@code zip} records them, holding the jar under its own name (so a worker's class path reads like the
   * application's).
   */
  static Path copyPath(Path cache, ZipFile zip, String entry) {
    ZipEntry z = zip == null ? null : zip.getEntry(entry);
    String name = entry.substring(entry.lastIndexOf('/') + 1);
    if (!SAFE_NAME.matcher(name).matches()) {
      name = "nested.jar";
    }
    String stem = name.substring(0, name.length() - ".jar".length());
    long crc = z == null ? 0 : z.getCrc();
    long size = z == null ? 0 : z.getSize();
    return cache.resolve(stem + "-" + String.format(Locale.ROOT, "%08x", crc) + "-" + size).resolve(name);
  }

  /**
   * The directories the copies may go in, best first: {@code $XDG_CACHE_HOME} (else {@code ~/.cache})
   * {@code /polyglot-sandbox/nested-jars}, then {@code java.io.tmpdir/polyglot-sandbox-USER/nested-jars}
   * (for a user with no home to write in). A relative cache home is ignored, as the XDG specification asks.
   */
  static List<Path> cacheDirectories() {
    List<Path> out = new ArrayList<>();
    String xdg = System.getenv("XDG_CACHE_HOME");
    String home = System.getProperty("user.home", "");
    Path user = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg)
        : Path.of(home).isAbsolute() ? Path.of(home, ".cache") : null;
    if (user != null) {
      out.add(user.resolve("polyglot-sandbox").resolve("nested-jars").normalize());
    }
    String userName = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
    out.add(Path.of(System.getProperty("java.io.tmpdir"), "polyglot-sandbox-" + userName, "nested-jars")
        .toAbsolutePath().normalize());
    return out;
  }

  /** The first of {@link #cacheDirectories()} that is usable: see {@link #privateCache(Path)}. */
  private static Path cacheDirectory() {
    List<String> refusals = new ArrayList<>();
    for (Path candidate : cacheDirectories()) {
      String refusal = privateCache(candidate);
      if (refusal == null) {
        sweepAbandonedCopies(candidate);
        return candidate;
      }
      refusals.add(refusal);
    }
    throw new IllegalStateException("the jars nested in the application's jar need a private directory to be"
        + " copied into for the workers, and none is usable: " + String.join("; ", refusals));
  }

  /**
   * Makes {@code dir} (and its {@code polyglot-sandbox} parent) if missing, private to this user, and
   * checks that both are directories of this user's that nobody else may write (the workers load code from
   * them). Returns null if so, else why not.
   */
  static String privateCache(Path dir) {
    Path top = dir.getParent();
    try {
      Files.createDirectories(top.getParent());
      for (Path p : List.of(top, dir)) {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
          try {
            Files.createDirectory(p, privateDirectory(p.getParent()));
          } catch (java.nio.file.FileAlreadyExistsException e) {
            // made by another JVM just now; checked below like any other
          }
        }
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          return p + " is not a directory (or is a symbolic link)";
        }
        Path probe = Files.createTempFile(p, ".owner-", ".probe");
        try {
          UserPrincipal me = Files.getOwner(probe);
          UserPrincipal owner = Files.getOwner(p, LinkOption.NOFOLLOW_LINKS);
          if (!me.equals(owner)) {
            return p + " belongs to " + owner.getName() + ", not to this user (" + me.getName() + ")";
          }
        } finally {
          Files.deleteIfExists(probe);
        }
        if (posix(p)) {
          Set<PosixFilePermission> perms = Files.readAttributes(p, PosixFileAttributes.class,
              LinkOption.NOFOLLOW_LINKS).permissions();
          if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            return p + " may be written by others (" + PosixFilePermissions.toString(perms) + ")";
          }
        }
      }
      return null;
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return dir + " cannot be used: " + e;
    }
  }

  /** Deletes what JVMs that died while copying left: partial copies older than an hour (a copy takes seconds). */
  private static void sweepAbandonedCopies(Path cache) {
    long cutoff = System.currentTimeMillis() - java.util.concurrent.TimeUnit.HOURS.toMillis(1);
    try (Stream<Path> children = Files.list(cache)) {
      for (Path p : children.filter(c -> c.getFileName().toString().startsWith(".partial-")).toList()) {
        if (Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis() < cutoff) {
          deleteTree(p);
        }
      }
    } catch (IOException e) {
      // left for the next JVM to sweep; nothing depends on it
    }
  }

  private static boolean posix(Path p) {
    return p.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  private static FileAttribute<?>[] privateDirectory(Path parent) {
    return parent != null && posix(parent)
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PRIVATE_DIRECTORY)}
        : new FileAttribute<?>[0];
  }

  private static void makeReadOnly(Path file) throws IOException {
    if (posix(file)) {
      Files.setPosixFilePermissions(file, READ_ONLY_FILE);
    } else if (!file.toFile().setReadOnly()) {
      throw new IOException("cannot make " + file + " read-only");
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
