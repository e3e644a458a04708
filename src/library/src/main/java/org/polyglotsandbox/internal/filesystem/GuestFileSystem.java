package org.polyglotsandbox.internal.filesystem;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.internal.EnforcementSink;
import org.polyglotsandbox.internal.spi.RunFile;

/**
 * The run's file system: an in-memory Jimfs tree holding copies of the mounts, behind a polyglot
 * {@link org.graalvm.polyglot.io.FileSystem} that checks every operation against the mount table.
 *
 * <p>Guest paths are parsed as host-typed {@link Path}s (so that GraalVM's composite file system can
 * route the read-only interpreter files elsewhere), but they are only ever used as names: every
 * operation is resolved, after normalization, inside Jimfs. Nothing here touches the host file system
 * after the mounts are copied in.
 *
 * <p>The Jimfs tree is made when something first needs it: a run without mounts and without files of
 * its own, whose guest never opens a file, never pays for one (most of a short run's file-system cost;
 * RESULTS.md, 2026-12-02). Every check below runs before the tree is consulted, so the answers are the
 * same either way.
 *
 * <p>Rules: a path inside a mount may have exactly the mount's operations. A directory on the way to a
 * mount (such as {@code /} or {@code /data} for {@code /data/in.csv}) may be inspected and listed,
 * showing only mounted entries. Everything else is denied with {@link AccessDeniedException}, which
 * guest code sees as its language's permission error, and reported to the {@link EnforcementSink}. Links
 * can never be created.
 */
public final class GuestFileSystem implements org.graalvm.polyglot.io.FileSystem, AutoCloseable {
  private static final int BLOCK_SIZE = 4096;
  private static final int S_IFDIR = 0040000;
  private static final int S_IFREG = 0100000;
  private static final int S_IFLNK = 0120000;

  private final Configuration configuration;
  /** The in-memory tree, made on first use ({@link #memory()}); null until then. */
  private volatile java.nio.file.FileSystem memory;
  /** Set by {@link #close()}; a tree made after it is closed at once. Guarded by this. */
  private boolean closed;
  private final Policy policy;
  private final List<Mount> mounts;
  private final EnforcementSink denials;
  private final long maxBytes;
  private final int maxFiles;
  private final AtomicLong entries;
  private volatile Path workingDirectory;
  /** The run's own files ({@link #addRunFiles}), by guest path; empty until then. */
  private volatile Map<String, RunFile> runFiles = Map.of();
  /** The directories above the run's own files, which guest code may inspect and list. */
  private volatile Set<String> directoriesLeadingToRunFiles = Set.of();
  /**
   * The mounts copied in so far, in the policy's order. Used by the thread that prepares the context,
   * then by its run's thread; the pool's hand-off orders the two.
   */
  private final Set<Mount> copied = new java.util.LinkedHashSet<>();

  private GuestFileSystem(Configuration configuration, Policy policy, EnforcementSink denials, String cwd,
      long maxBytes, int maxFiles, long entries) {
    this.configuration = configuration;
    this.policy = policy;
    this.mounts = policy.mounts();
    this.denials = denials;
    this.workingDirectory = Path.of(cwd);
    this.maxBytes = maxBytes;
    this.maxFiles = maxFiles;
    this.entries = new AtomicLong(entries);
  }

  /**
   * Creates the file system for one run, empty: {@link #copyMountsIn()} must run before guest code, so
   * that a context prepared in advance still sees the mounts as they are when its run starts.
   */
  public static GuestFileSystem empty(Policy policy, EnforcementSink sink) {
    long maxBytes = policy.limits().maxFileBytes();
    int maxFiles = policy.limits().maxFiles();
    Configuration configuration = Configuration.unix().toBuilder()
        .setAttributeViews("basic", "owner", "posix", "unix")
        .setWorkingDirectory("/")
        .setBlockSize(BLOCK_SIZE)
        .setMaxSize(Math.max(BLOCK_SIZE, maxBytes / BLOCK_SIZE * BLOCK_SIZE))
        .setMaxCacheSize(0)
        .build();
    return new GuestFileSystem(configuration, policy, sink, policy.workingDirectory(), maxBytes, maxFiles, 0);
  }

  /** The in-memory tree, made now if this is its first use; closed already if this file system is. */
  private java.nio.file.FileSystem memory() {
    java.nio.file.FileSystem m = memory;
    if (m != null) {
      return m;
    }
    synchronized (this) {
      if (memory == null) {
        java.nio.file.FileSystem made = Jimfs.newFileSystem(configuration);
        if (closed) {
          closeQuietly(made); // its operations then fail as on any closed file system
        }
        memory = made;
      }
      return memory;
    }
  }

  /** Whether the tree was ever made: a file system without one holds nothing. */
  boolean isMade() {
    return memory != null;
  }

  /**
   * Copies the mounts' host content in, those that {@link #copyMountsIn(Predicate)} has not copied
   * already; before guest code runs. Closes the file system if it fails.
   *
   * @throws UncheckedIOException naming the guest path if a host mount cannot be read or does not fit
   */
  public void copyMountsIn() {
    copyMountsIn(m -> true);
  }

  /**
   * Copies in the mounts that {@code which} selects and that are not copied yet: for a context prepared
   * in advance, those its set-up reads ({@link #mountsMatchHost()} then compares them with the host
   * when its run starts); {@link #copyMountsIn()} copies the rest. Closes the file system if it fails.
   *
   * @throws UncheckedIOException naming the guest path if a host mount cannot be read or does not fit
   */
  public void copyMountsIn(Predicate<Mount> which) {
    List<Mount> now = mounts.stream().filter(m -> !copied.contains(m) && which.test(m)).toList();
    if (now.isEmpty()) {
      return; // nothing to copy, nothing to count: the tree is made when something needs it
    }
    java.nio.file.FileSystem memory = memory();
    try {
      for (Mount m : now) {
        copied.add(m);
        try {
          MountCopier.copyIn(m, memory.getPath(m.guestPath()));
        } catch (IOException e) {
          // The host's own paths stay in the host's log; the run's result names the mount's guest path.
          System.getLogger("org.polyglotsandbox").log(System.Logger.Level.WARNING,
              "mount " + m.guestPath() + " could not be copied in", e);
          throw new java.nio.file.FileSystemException(m.guestPath(), null, "could not be copied in");
        }
      }
      long count;
      try (Stream<Path> all = Files.walk(memory.getPath("/"))) {
        count = all.count() - 1;
      }
      if (count > maxFiles) {
        throw new java.nio.file.FileSystemException("/", null,
            "the mounts hold " + count + " files, more than maxFiles (" + maxFiles + ")");
      }
      entries.set(count);
    } catch (IOException | RuntimeException e) {
      closeQuietly(memory);
      throw e instanceof RuntimeException re ? re : new UncheckedIOException((IOException) e);
    }
  }

  /**
   * Whether the mounts' copies still hold exactly the host content ({@link #copyMountsIn()} made them
   * earlier, for a context prepared in advance): no host file changed, appeared or went, and nothing
   * was written to a copy. Reads the host files as copying them would.
   *
   * @throws IOException if a host file cannot be read
   */
  public boolean mountsMatchHost() throws IOException {
    if (copied.isEmpty()) {
      return true;
    }
    java.nio.file.FileSystem memory = memory();
    for (Mount m : copied) {
      if (!MountCopier.matches(m, memory.getPath(m.guestPath()))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Writes the run's own files in, after {@link #copyMountsIn()} and before guest code runs; they exist
   * in memory only, for this file system's one run, and count against the file limits like the mounts'
   * copies. A read-only one may be read; a writable one read and overwritten (not deleted, renamed or
   * made anew: its path is no mount). The directories above them may be inspected and listed.
   *
   * @throws FileSystemException naming the guest path whose file did not fit the file limits
   */
  public void addRunFiles(List<RunFile> files) throws IOException {
    if (files.isEmpty()) {
      return;
    }
    java.nio.file.FileSystem memory = memory();
    Map<String, RunFile> byPath = new HashMap<>();
    Set<String> onTheWay = new java.util.HashSet<>();
    for (RunFile f : files) {
      Path p = memory.getPath(f.guestPath());
      Path parent = p.getParent();
      for (Path d = parent; d != null; d = d.getParent()) {
        onTheWay.add(d.toString());
      }
      try {
        if (parent != null && !Files.isDirectory(parent)) {
          Files.createDirectories(parent);
        }
        Files.write(p, f.bytes());
      } catch (IOException e) {
        throw new FileSystemException(f.guestPath(), null, "does not fit the file limits (maxFileBytes "
            + maxBytes + " bytes, counted in " + BLOCK_SIZE + "-byte blocks, mounts included)");
      }
      byPath.put(f.guestPath(), f);
    }
    long count;
    try (Stream<Path> all = Files.walk(memory.getPath("/"))) {
      count = all.count() - 1;
    }
    if (count > maxFiles) {
      throw new FileSystemException(files.get(files.size() - 1).guestPath(), null, "brings the mounts and"
          + " the run's files to " + count + " files and directories, more than maxFiles (" + maxFiles + ")");
    }
    entries.set(count);
    this.directoriesLeadingToRunFiles = Set.copyOf(onTheWay);
    this.runFiles = Map.copyOf(byPath);
  }

  /** Bytes the file system holds now (whole blocks), mounted copies included. */
  public long bytesUsed() {
    java.nio.file.FileSystem memory = this.memory;
    if (memory == null) {
      return 0;
    }
    try {
      java.nio.file.FileStore store = memory.getFileStores().iterator().next();
      return store.getTotalSpace() - store.getUnallocatedSpace();
    } catch (IOException | RuntimeException closed) {
      return 0;
    }
  }

  /**
   * The in-memory path of an absolute, normalized guest path, for the output boundary to read declared
   * output files after the guest finished. Not for anything guest code chose: it bypasses the mount
   * rules.
   */
  public Path inMemory(String guestPath) {
    if (!guestPath.startsWith("/") || guestPath.contains("/../") || guestPath.endsWith("/..")) {
      throw new IllegalArgumentException("not a normalized absolute guest path: " + guestPath);
    }
    return memory().getPath(guestPath);
  }

  /** Files and directories the file system holds now, mounted copies included. */
  public long files() {
    return entries.get();
  }

  /** Counts a new entry, or reports the files limit and refuses it. */
  private void reserveEntry(String guestPath) throws IOException {
    if (entries.incrementAndGet() > maxFiles) {
      entries.decrementAndGet();
      throw full(guestPath, "more than " + maxFiles + " files");
    }
  }

  private IOException full(String guestPath, String why) {
    denials.limitReached(Limit.FILES, "file system holds " + why, Layer.VIRTUAL_FILE_SYSTEM);
    return new FileSystemException(guestPath, null, "No space left on device");
  }

  /** Jimfs signals a full disk with a plain IOException; turn it into the files limit. */
  private IOException translateFull(IOException e, String guestPath) {
    String m = String.valueOf(e.getMessage());
    return m.contains("out of disk space") || m.contains("disk space")
        ? full(guestPath, "more than " + maxBytes + " bytes") : e;
  }

  @Override
  public void close() {
    java.nio.file.FileSystem m;
    synchronized (this) {
      closed = true;
      m = memory;
    }
    if (m != null) {
      closeQuietly(m);
    }
  }

  private static void closeQuietly(java.nio.file.FileSystem fs) {
    try {
      fs.close();
    } catch (IOException ignored) {
      // in-memory: nothing to release that the garbage collector won't
    }
  }

  // ---- policy ----

  private String guestPath(Path path) {
    return toAbsolutePath(path).normalize().toString();
  }

  private Mount mountOf(String guestPath) {
    return policy.mountFor(guestPath).orElse(null);
  }

  private boolean isOnTheWayToAMount(String guestPath) {
    return policy.directoriesLeadingToMounts().contains(guestPath) || directoriesLeadingToRunFiles.contains(guestPath);
  }

  /** Whether {@code op} is allowed on one of the run's own files at {@code guestPath}. */
  private boolean runFileAllows(String guestPath, Operation op) {
    RunFile f = runFiles.get(guestPath);
    return f != null && (op == Operation.FILE_READ || (op == Operation.FILE_WRITE && f.writable()));
  }

  /** The Jimfs path for {@code path} if {@code op} is allowed there; otherwise reports and throws. */
  private Path require(Operation op, Path path) throws IOException {
    String gp = guestPath(path);
    Mount m = mountOf(gp);
    if ((m != null && m.operations().contains(op))
        || (m == null && op == Operation.FILE_LIST && isOnTheWayToAMount(gp))
        || (m == null && runFileAllows(gp, op))) {
      return memory().getPath(gp);
    }
    if (op == Operation.FILE_READ && m == null && isPseudoName(path)) {
      throw new NoSuchFileException(gp);
    }
    throw deny(op, gp);
  }

  /** An angle-bracket name such as {@code <frozen os>}: interpreters probe these; they never exist. */
  private static boolean isPseudoName(Path path) {
    Path name = path.getFileName();
    return name != null && name.toString().startsWith("<") && name.toString().endsWith(">");
  }

  /**
   * The Jimfs path for looking at {@code path}'s metadata: allowed inside the mounts and on the way to
   * them, denied (and reported) everywhere else.
   *
   * <p>Angle-bracket pseudo file names such as {@code <frozen os>} or {@code <string>}, which
   * interpreters probe while importing, are simply absent and not reported.
   */
  private Path requireVisible(Path path) throws IOException {
    String gp = guestPath(path);
    if (mountOf(gp) != null || isOnTheWayToAMount(gp) || runFiles.containsKey(gp)) {
      return memory().getPath(gp);
    }
    if (isPseudoName(path)) {
      throw new NoSuchFileException(gp);
    }
    throw deny(Operation.FILE_READ, gp);
  }

  private AccessDeniedException deny(Operation op, String guestPath) {
    denials.denied(op, guestPath, Layer.VIRTUAL_FILE_SYSTEM);
    return new AccessDeniedException(guestPath, null, "not permitted by the sandbox policy");
  }

  private static Path toGuest(Path memoryPath) {
    return Path.of(memoryPath.toString());
  }

  // ---- paths ----

  @Override
  public Path parsePath(URI uri) {
    if (!"file".equalsIgnoreCase(uri.getScheme())) {
      throw new UnsupportedOperationException("only file: URIs are supported");
    }
    String p = uri.getPath();
    if (p == null) {
      throw new IllegalArgumentException("not a hierarchical file URI: " + uri);
    }
    return Path.of(p);
  }

  @Override
  public Path parsePath(String path) {
    return Path.of(path);
  }

  @Override
  public Path toAbsolutePath(Path path) {
    return path.isAbsolute() ? path : workingDirectory.resolve(path);
  }

  @Override
  public void setCurrentWorkingDirectory(Path currentWorkingDirectory) {
    if (!currentWorkingDirectory.isAbsolute()) {
      throw new IllegalArgumentException("working directory must be absolute");
    }
    this.workingDirectory = currentWorkingDirectory.normalize();
  }

  @Override
  public Path toRealPath(Path path, LinkOption... linkOptions) throws IOException {
    return toGuest(requireVisible(path).toRealPath(linkOptions));
  }

  @Override
  public Path getTempDirectory() {
    return Path.of("/tmp");
  }

  @Override
  public boolean isSameFile(Path path1, Path path2, LinkOption... options) throws IOException {
    return Files.isSameFile(requireVisible(path1), requireVisible(path2));
  }

  // ---- metadata ----

  @Override
  public void checkAccess(Path path, Set<? extends AccessMode> modes, LinkOption... linkOptions)
      throws IOException {
    Path p = requireVisible(path);
    String gp = p.toString();
    Mount m = mountOf(gp);
    if (modes.contains(AccessMode.EXECUTE) && !Files.isDirectory(p, linkOptions)) {
      throw new AccessDeniedException(gp, null, "not executable");
    }
    if (modes.contains(AccessMode.WRITE) && (m == null ? !runFileAllows(gp, Operation.FILE_WRITE) : !m.isWritable())) {
      throw new AccessDeniedException(gp, null, "read-only");
    }
    p.getFileSystem().provider().checkAccess(p);
  }

  @Override
  public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options)
      throws IOException {
    Path p = requireVisible(path);
    Map<String, Object> attrs = new HashMap<>(Files.readAttributes(p, attributes, options));
    // GraalPy's stat() expects the POSIX shape: 64-bit ino/dev/nlink and file-type bits in the mode.
    for (String key : List.of("ino", "dev", "rdev")) {
      if (attrs.get(key) instanceof Number n) {
        attrs.put(key, n.longValue());
      }
    }
    if (attrs.get("mode") instanceof Number mode) {
      BasicFileAttributes basic = Files.readAttributes(p, BasicFileAttributes.class, options);
      int type = basic.isDirectory() ? S_IFDIR : basic.isSymbolicLink() ? S_IFLNK : S_IFREG;
      attrs.put("mode", (mode.intValue() & 07777) | type);
    }
    return attrs;
  }

  @Override
  public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
    Files.setAttribute(require(Operation.FILE_WRITE, path), attribute, value, options);
  }

  @Override
  public Path readSymbolicLink(Path link) throws IOException {
    return toGuest(Files.readSymbolicLink(requireVisible(link)));
  }

  // ---- content ----

  @Override
  public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
      throws IOException {
    String gp = guestPath(path);
    Path p = memory().getPath(gp);
    boolean exists = Files.exists(p, LinkOption.NOFOLLOW_LINKS);
    boolean write = options.contains(StandardOpenOption.WRITE) || options.contains(StandardOpenOption.APPEND);
    boolean create = options.contains(StandardOpenOption.CREATE_NEW)
        || (options.contains(StandardOpenOption.CREATE) && !exists);
    EnumSet<Operation> needed = EnumSet.noneOf(Operation.class);
    if (!write || options.contains(StandardOpenOption.READ)) {
      needed.add(Operation.FILE_READ);
    }
    if (write && (exists || !create)) {
      needed.add(Operation.FILE_WRITE);
    }
    if (create) {
      needed.add(Operation.FILE_CREATE);
    }
    if (options.contains(StandardOpenOption.DELETE_ON_CLOSE)) {
      needed.add(Operation.FILE_DELETE);
    }
    for (Operation op : needed) {
      require(op, path);
    }
    if (create) {
      reserveEntry(gp);
    }
    SeekableByteChannel channel;
    try {
      channel = Files.newByteChannel(p, options, attrs);
    } catch (IOException e) {
      if (create) {
        entries.decrementAndGet();
      }
      throw translateFull(e, gp);
    }
    // Read-only channels stay Jimfs's own: wrapped, a Python read of a mounted file ran into the wall-clock
    // deadline (FileSystemTest.mountedFile_isReadable; not understood yet).
    return write ? new GuestChannel(channel, gp) : channel;
  }

  /**
   * A writable channel the guest reads and writes through: it reports the files limit when a write finds the file
   * system full, refuses a write that would end past the file system's size before Jimfs zero-fills
   * the gap (a seek to 2**62 then a write made Jimfs fail with a NullPointerException), and turns any
   * unchecked exception (a negative position, a write to a read-only channel) into an
   * {@link IOException}, which the guest sees as its own error instead of the run ending on an internal
   * error.
   */
  private final class GuestChannel implements SeekableByteChannel {
    private final SeekableByteChannel delegate;
    private final String guestPath;

    GuestChannel(SeekableByteChannel delegate, String guestPath) {
      this.delegate = delegate;
      this.guestPath = guestPath;
    }

    private interface Io<T> {
      T call() throws IOException;
    }

    private <T> T guarded(Io<T> io) throws IOException {
      try {
        return io.call();
      } catch (IOException e) {
        throw translateFull(e, guestPath);
      } catch (RuntimeException e) {
        throw new FileSystemException(guestPath, null, "Invalid argument");
      }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return guarded(() -> delegate.read(dst));
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      return guarded(() -> {
        if (delegate.position() > maxBytes - src.remaining()) {
          throw full(guestPath, "more than " + maxBytes + " bytes");
        }
        return delegate.write(src);
      });
    }

    @Override
    public long position() throws IOException {
      return guarded(delegate::position);
    }

    @Override
    public SeekableByteChannel position(long newPosition) throws IOException {
      guarded(() -> delegate.position(newPosition));
      return this;
    }

    @Override
    public long size() throws IOException {
      return guarded(delegate::size);
    }

    @Override
    public SeekableByteChannel truncate(long size) throws IOException {
      guarded(() -> delegate.truncate(size));
      return this;
    }

    @Override
    public boolean isOpen() {
      return delegate.isOpen();
    }

    @Override
    public void close() throws IOException {
      delegate.close();
    }
  }

  @Override
  public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
      throws IOException {
    Path p = require(Operation.FILE_LIST, dir);
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(p)) {
      for (Path entry : stream) {
        Path guest = toGuest(entry);
        if (filter == null || filter.accept(guest)) {
          entries.add(guest);
        }
      }
    }
    return new DirectoryStream<>() {
      @Override
      public Iterator<Path> iterator() {
        return entries.iterator();
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
    Path p = require(Operation.FILE_CREATE, dir);
    reserveEntry(p.toString());
    try {
      Files.createDirectory(p, attrs);
    } catch (IOException e) {
      entries.decrementAndGet();
      throw translateFull(e, p.toString());
    }
  }

  @Override
  public void delete(Path path) throws IOException {
    Path p = require(Operation.FILE_DELETE, path);
    if (mountOf(p.toString()).guestPath().equals(p.toString())) {
      throw new FileSystemException(p.toString(), null, "a mount point cannot be deleted");
    }
    Files.delete(p);
    entries.decrementAndGet();
  }

  @Override
  public void copy(Path source, Path target, CopyOption... options) throws IOException {
    Path from = require(Operation.FILE_READ, source);
    Path to = requireTarget(target, options);
    boolean created = !Files.exists(to, LinkOption.NOFOLLOW_LINKS);
    if (created) {
      reserveEntry(to.toString());
    }
    try {
      Files.copy(from, to, withoutFollowingLinks(options));
    } catch (IOException e) {
      if (created) {
        entries.decrementAndGet();
      }
      throw translateFull(e, to.toString());
    }
  }

  @Override
  public void move(Path source, Path target, CopyOption... options) throws IOException {
    Path from = require(Operation.FILE_DELETE, source);
    Path to = requireTarget(target, options);
    if (mountOf(from.toString()).guestPath().equals(from.toString())) {
      throw new FileSystemException(from.toString(), null, "a mount point cannot be moved");
    }
    Files.move(from, to, withoutFollowingLinks(options));
  }

  private Path requireTarget(Path target, CopyOption... options) throws IOException {
    Path to = require(Operation.FILE_CREATE, target);
    if (Files.exists(to, LinkOption.NOFOLLOW_LINKS)) {
      require(Operation.FILE_WRITE, target);
      if (!List.of(options).contains(StandardCopyOption.REPLACE_EXISTING)) {
        throw new java.nio.file.FileAlreadyExistsException(to.toString());
      }
    }
    return to;
  }

  private static CopyOption[] withoutFollowingLinks(CopyOption... options) {
    List<CopyOption> out = new ArrayList<>(List.of(options));
    out.remove(LinkOption.NOFOLLOW_LINKS);
    out.add(LinkOption.NOFOLLOW_LINKS);
    return out.toArray(CopyOption[]::new);
  }

  @Override
  public void createLink(Path link, Path existing) throws IOException {
    throw deny(Operation.FILE_LINK, guestPath(link));
  }

  @Override
  public void createSymbolicLink(Path link, Path target, FileAttribute<?>... attrs) throws IOException {
    throw deny(Operation.FILE_LINK, guestPath(link));
  }
}
