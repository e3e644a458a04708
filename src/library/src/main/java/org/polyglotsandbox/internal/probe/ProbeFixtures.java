package org.polyglotsandbox.internal.probe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Policy;

/**
 * The host side of the escape probe: a private temporary directory with a secret file and a secret
 * Python module guest code must not read, marker paths guest code must not create, loopback servers
 * guest code must not reach, and what the host knows about each mount (so a probe can prove it read
 * the right bytes). Everything is removed on {@link #close()}.
 *
 * <p>The names guest code sees (the {@code audit} input, {@code audit secret}, {@code audit_secret_})
 * are kept from when this was the CLI's live audit, so the probes and their evidence read as before.
 */
final class ProbeFixtures implements AutoCloseable {
  /** A file a probe reads from a mount, and what reading it must give. */
  record Sample(String guestPath, Path hostPath, long bytes, int chars, byte[] content) {}

  /** What the probe knows about one mount. */
  record MountInfo(Mount mount, boolean directory, Sample sample) {
    boolean allows(Operation op) {
      return mount.operations().contains(op);
    }
  }

  private static final long MAX_SAMPLE_BYTES = 1L << 20;

  /** Where GraalPy's homes are extracted on the host (when the fixtures were made): what no guest may see. */
  final List<Path> hostPythonHomes = hostPythonHomes();
  final String nonce = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  final Path dir;
  final Path secret;
  final String secretModule = "audit_secret_" + nonce;
  final List<MountInfo> mounts;
  private final Policy policy;
  private final Map<String, Path> markers = new ConcurrentHashMap<>();
  private final Map<String, Server> servers = new ConcurrentHashMap<>();

  private ProbeFixtures(Policy policy, Path dir, List<MountInfo> mounts) throws IOException {
    this.policy = policy;
    this.dir = dir;
    this.mounts = mounts;
    this.secret = Files.writeString(dir.resolve("secret-" + nonce + ".txt"), "audit secret " + nonce + "\n");
    Files.writeString(dir.resolve(secretModule + ".py"), "NONCE = '" + nonce + "'\n");
  }

  /**
   * Creates the fixtures for probing {@code policy}.
   *
   * @throws IllegalStateException if the temporary directory or a mount's sample cannot be prepared
   */
  static ProbeFixtures create(Policy policy) {
    Path dir;
    try {
      dir = Files.createTempDirectory("sandbox-probe-");
    } catch (IOException e) {
      throw new IllegalStateException("the escape probe could not create its temporary directory: "
          + e.getMessage(), e);
    }
    try {
      List<MountInfo> mounts = new ArrayList<>();
      for (Mount m : policy.mounts()) {
        boolean directory = m.hostPath().map(Files::isDirectory).orElse(true);
        mounts.add(new MountInfo(m, directory, sample(m, directory)));
      }
      return new ProbeFixtures(policy, dir, List.copyOf(mounts));
    } catch (IOException | UncheckedIOException e) {
      deleteTree(dir);
      throw new IllegalStateException("the escape probe could not prepare its fixtures: " + e.getMessage(), e);
    }
  }

  /** The first small regular file of a mount (not a link: those are not copied in), or null. */
  private static Sample sample(Mount m, boolean directory) throws IOException {
    if (m.hostPath().isEmpty()) {
      return null;
    }
    Path host = m.hostPath().get();
    Path file;
    if (!directory) {
      file = host;
    } else {
      try (Stream<Path> all = Files.walk(host, 4)) {
        file = all.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) && size(p) <= MAX_SAMPLE_BYTES)
            .filter(p -> host.relativize(p).toString().chars().allMatch(c -> c >= 0x20 && c != 0x7f))
            .min(Comparator.comparing(Path::toString)).orElse(null);
      }
    }
    if (file == null || size(file) > MAX_SAMPLE_BYTES) {
      return null;
    }
    byte[] bytes = Files.readAllBytes(file);
    String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
        .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(ByteBuffer.wrap(bytes)).toString();
    String guest = directory ? m.guestPath() + "/" + host.relativize(file).toString().replace('\\', '/') : m.guestPath();
    return new Sample(guest, file, bytes.length, text.length(), bytes);
  }

  private static long size(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      return Long.MAX_VALUE;
    }
  }

  /** A host path (not created) that probe {@code id} must not be able to create. */
  Path marker(String id) {
    return markers.computeIfAbsent(id, k -> dir.resolve("marker-" + k.replaceAll("[^A-Za-z0-9_.-]", "_")));
  }

  /** Evidence that probe {@code id}'s marker exists on the host, or null. */
  String markerCreated(String id) {
    Path m = marker(id);
    return Files.exists(m, LinkOption.NOFOLLOW_LINKS) ? "the host file " + m + " was created" : null;
  }

  /** A loopback port on which the host listens for probe {@code id}, counting connections. */
  int listen(String id) {
    return servers.computeIfAbsent(id, k -> Server.start()).port();
  }

  /** Evidence that probe {@code id}'s listener accepted a connection, or null. */
  String connected(String id) {
    Server s = servers.get(id);
    return s != null && s.accepted.get() > 0 ? "the host accepted " + s.accepted.get() + " connection(s) on port "
        + s.port() : null;
  }

  /** Evidence that the secret file changed, moved or was removed, or null. */
  String secretChanged() {
    try {
      return Files.readString(secret).equals("audit secret " + nonce + "\n") ? null : "the host's secret file changed";
    } catch (IOException e) {
      return "the host's secret file is gone";
    }
  }

  /** Evidence that a mount's host file differs from what it held when the probe started, or null. */
  static String hostFileChanged(Sample sample) {
    try {
      return Arrays.equals(Files.readAllBytes(sample.hostPath()), sample.content()) ? null
          : "the host file " + sample.hostPath() + " changed";
    } catch (IOException e) {
      return "the host file " + sample.hostPath() + " is gone";
    }
  }

  /** Evidence that anything but the probe's own files appeared in its directory, or null. */
  String strayFiles() {
    try (Stream<Path> files = Files.list(dir)) {
      List<String> stray = files.map(p -> p.getFileName().toString())
          .filter(n -> !n.equals(secret.getFileName().toString()) && !n.equals(secretModule + ".py"))
          .sorted().toList();
      return stray.isEmpty() ? null : "files appeared in the host directory: " + stray;
    } catch (IOException e) {
      return "the host directory is gone";
    }
  }

  /** The first mount guest code may create files in (a directory allowing create, write, read, delete), or null. */
  MountInfo writableDirectory() {
    return mounts.stream().filter(m -> m.directory() && m.allows(Operation.FILE_CREATE) && m.allows(Operation.FILE_WRITE)
        && m.allows(Operation.FILE_READ) && m.allows(Operation.FILE_DELETE)).findFirst().orElse(null);
  }

  /**
   * GraalPy's extracted homes on this host, found on the host's side the way GraalVM finds its cache
   * (the system property, then XDG_CACHE_HOME, then ~/.cache), independently of the sandbox's own
   * lookup: every version's home (and its real path), or the directory they would be in if none is
   * extracted yet.
   */
  private static List<Path> hostPythonHomes() {
    String property = System.getProperty("polyglot.engine.userResourceCache");
    Path cache;
    if (property != null && !property.isBlank()) {
      cache = Path.of(property);
    } else {
      String xdg = System.getenv("XDG_CACHE_HOME");
      cache = (xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache"))
          .resolve("org.graalvm.polyglot");
    }
    Path homes = cache.toAbsolutePath().normalize().resolve("python").resolve("python-home");
    Set<Path> found = new LinkedHashSet<>();
    try (Stream<Path> children = Files.list(homes)) {
      for (Path home : (Iterable<Path>) children.sorted()::iterator) {
        if (Files.isDirectory(home, LinkOption.NOFOLLOW_LINKS)) {
          found.add(home);
          found.add(home.toRealPath());
        }
      }
    } catch (IOException notExtractedYet) {
      // nothing extracted: the directory itself is what the guest must not see
    }
    return found.isEmpty() ? List.of(homes) : List.copyOf(found);
  }

  /**
   * What the host's GraalPy homes look like: their paths, the version-hash names, the cache directories
   * above them below the user's home, and the user's home, so that a probe can tell the guest saw none
   * of it.
   */
  private static List<String> hostHomeFacts(List<Path> homes) {
    Set<String> facts = new LinkedHashSet<>();
    for (Path home : homes) {
      facts.add(home.toString());
      facts.add(home.getFileName().toString());
      for (Path p = home.getParent(); p != null && p.getNameCount() > 1; p = p.getParent()) {
        facts.add(p.toString());
      }
    }
    String userHome = System.getProperty("user.home", "");
    if (userHome.length() > 1) {
      facts.add(userHome);
    }
    return List.copyOf(facts);
  }

  /**
   * The host's inodes, devices and modification times (seconds) of GraalPy's {@code json/__init__.py}
   * in every extracted home; empty lists when none is extracted.
   */
  private static Map<String, List<Long>> hostHomeStat(List<Path> homes) {
    List<Long> inodes = new ArrayList<>();
    List<Long> devices = new ArrayList<>();
    List<Long> times = new ArrayList<>();
    for (Path home : homes) {
      try {
        Map<String, Object> a = Files.readAttributes(home.resolve("lib/python3.12/json/__init__.py"),
            "unix:ino,dev,lastModifiedTime");
        inodes.add(((Number) a.get("ino")).longValue());
        devices.add(((Number) a.get("dev")).longValue());
        times.add(((java.nio.file.attribute.FileTime) a.get("lastModifiedTime")).toMillis() / 1000);
      } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
        // not a home of this version, or not extracted
      }
    }
    return Map.of("ino", inodes, "dev", devices, "mtime", times);
  }

  /**
   * The {@code audit} value every probe receives: the nonce, the fixtures' host paths, the host's
   * environment variable names (never their values), what the guest's root directory should list, and
   * the markers and ports registered so far.
   */
  Map<String, Object> data(Map<String, Object> toolArguments) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("nonce", nonce);
    d.put("secretFile", secret.toString());
    d.put("secretDir", dir.toString());
    d.put("secretModule", secretModule);
    d.put("hostEnv", List.copyOf(new TreeSet<>(System.getenv().keySet())));
    // What the host's identity looks like, so that a probe can tell the guest saw none of it.
    d.put("hostIdentity", List.of(String.valueOf(ProcessHandle.current().pid()), System.getProperty("user.name", ""),
        System.getProperty("user.home", ""), System.getProperty("os.version", "")));
    // The host's zone and its names, and a weekday in the host's locale when it is not English.
    java.util.TimeZone zone = java.util.TimeZone.getDefault();
    Set<String> zoneNames = new TreeSet<>(List.of(zone.getID(),
        zone.getDisplayName(false, java.util.TimeZone.SHORT, java.util.Locale.ROOT),
        zone.getDisplayName(true, java.util.TimeZone.SHORT, java.util.Locale.ROOT)));
    zoneNames.removeAll(Set.of("UTC", "GMT", "Etc/UTC", "Z", "Universal", "Etc/GMT", "Zulu"));
    d.put("hostZone", List.copyOf(zoneNames));
    d.put("hostDay", java.time.DayOfWeek.THURSDAY.getDisplayName(java.time.format.TextStyle.FULL,
        java.util.Locale.getDefault()));
    // Looked up again: the first Python sandbox of the JVM may have extracted a home since the fixtures were made.
    List<Path> homes = hostPythonHomes();
    d.put("hostHome", hostHomeFacts(homes));
    d.put("hostHomeStat", hostHomeStat(homes));
    d.put("virtualHome", Policy.PYTHON_HOME_PATH);
    Set<String> root = new LinkedHashSet<>();
    for (Mount m : policy.mounts()) {
      root.add(m.guestPath().substring(1).split("/")[0]);
    }
    d.put("rootEntries", List.copyOf(root));
    MountInfo w = writableDirectory();
    d.put("writableDir", w == null ? null : w.mount().guestPath());
    d.put("tools", List.copyOf(policy.tools()));
    d.put("toolArgs", toolArguments);
    d.put("bombResultNodes", (long) RunKind.COUNTS.limits(policy.limits()).maxResultNodes());
    Map<String, Object> markerPaths = new LinkedHashMap<>();
    markers.forEach((id, p) -> markerPaths.put(id, p.toString()));
    d.put("markers", markerPaths);
    Map<String, Object> ports = new LinkedHashMap<>();
    servers.forEach((id, s) -> ports.put(id, (long) s.port()));
    d.put("ports", ports);
    return d;
  }

  @Override
  public void close() {
    servers.values().forEach(Server::close);
    deleteTree(dir);
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.getLogger("org.polyglotsandbox").log(System.Logger.Level.WARNING,
          "the escape probe could not remove its temporary directory " + dir + ": " + e.getMessage());
    }
  }

  /** A loopback server that accepts and counts connections until closed. */
  private record Server(ServerSocket socket, AtomicInteger accepted) {
    static Server start() {
      try {
        ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Server server = new Server(s, new AtomicInteger());
        Thread.ofPlatform().daemon().name("sandbox-probe-listener").start(() -> {
          while (!s.isClosed()) {
            try (Socket ignored = s.accept()) {
              server.accepted.incrementAndGet();
            } catch (IOException closed) {
              return;
            }
          }
        });
        return server;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    int port() {
      return socket.getLocalPort();
    }

    void close() {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing a listener
      }
    }
  }
}
