package org.polyglotsandbox.internal.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Builds the command that starts a worker JVM inside its wall.
 *
 * <p>The full wall, outermost first:
 * <ol>
 *   <li>{@code /bin/sh -c} writes its own PID into the worker's {@link CgroupSlot} (memory and pids
 *       cgroups) and {@code exec}s the rest, so the worker is in its cgroup before its first instruction
 *       (left out when the spec asks for neither limit or the host can make no cgroup);
 *   <li>{@code env -i} empties the environment that bwrap itself runs with: bwrap's reaper is PID 1 in
 *       the worker's PID namespace, and a worker can read PID 1's {@code /proc/1/environ};
 *   <li>{@code prlimit} sets {@code RLIMIT_NOFILE}, {@code RLIMIT_FSIZE}, {@code RLIMIT_CORE} 0 (no core
 *       dumps) and {@code RLIMIT_NPROC}. Linux does not apply {@code RLIMIT_NPROC} to root, not even to
 *       root inside a user namespace, so for a host JVM that runs as root only the pids cgroup caps the
 *       worker's threads; for another user it counts all that user's processes and threads;
 *   <li>{@code bwrap --unshare-all --unshare-user --unshare-cgroup --disable-userns --die-with-parent
 *       --new-session --cap-drop ALL --clearenv}, with {@code --setenv} for each variable of
 *       {@link WallSpec#environment()} only; a root file system that is an empty tmpfs remounted read-only,
 *       holding a private tmpfs {@code /tmp} of {@link WallSpec#maxFileBytes()} bytes, its own
 *       {@code /proc} mounted read-only (see below) with its kernel-revealing files hidden
 *       ({@link #PROC_MASKS}), a minimal {@code /dev}, the host's system library directories and loader cache, the
 *       JDK ({@link WallSpec#javaHome()}) and each of {@link WallSpec#readOnlyPaths()}, all read-only at
 *       their host paths; working directory {@code /tmp}; host name {@code polyglot-sandbox};
 *   <li>the caller's java command, with {@code --enable-native-access=ALL-UNNAMED} and
 *       {@code -Dpolyglotsandbox.wall=strict} put right after the executable; its main class must be
 *       {@link WalledMain}, which installs the seccomp filter and then calls the real main class.
 * </ol>
 *
 * <p>A weak wall ({@link WallSpec#weak()}) is {@code sh} (when there is a cgroup), {@code env -i} with
 * the spec's variables, {@code prlimit} (left out where the host has none, as on macOS) and the java
 * command with {@code -Dpolyglotsandbox.wall=weak}: the worker sees the host's whole file system, network
 * and processes, as far as its user may.
 *
 * <h2>The worker command the caller builds</h2>
 * {@code <javaHome>/bin/java <its JVM flags> -cp <absolute entries> org.polyglotsandbox.internal.isolation.WalledMain
 * <real main class> <args>}. {@link #wrap} adds {@code --enable-native-access=ALL-UNNAMED} (the library on
 * the class path; a caller that puts it on the module path adds {@code --enable-native-access=org.polyglotsandbox}
 * itself). Recommended beside it: {@code -XX:+DisableAttachMechanism} and {@code -XX:-UsePerfData} (no
 * attach socket, no {@code /tmp/hsperfdata} file), an {@code -Xmx} well under the cgroup memory limit, and
 * {@code -Dpolyglot.engine.userResourceCache=<a read-only path>}: inside the wall {@code user.home} is
 * {@code ?}.
 *
 * <p>The library's JDK 22 seccomp class lives under {@code META-INF/versions/22}, which the JVM reads only
 * in a jar: a class path directory holding such a folder (a build's {@code target/classes}) gets that
 * folder put ahead of it, so that a worker started from a build tree installs the filter too.
 *
 * <p>When the host JVM runs as root, the worker runs as the host's uid 0 without capabilities: bwrap, not
 * being setuid, maps the user namespace's root to its caller. Files owned by root are then the worker's own
 * as far as permission bits go. Everything bound is read-only, {@code /tmp} and {@code /dev} are the
 * worker's own, and {@code /proc} is read-only, so that root-owned {@code /proc/sys} files (host-wide
 * sysctls) and {@code /proc/sysrq-trigger} are out of its reach.
 *
 * <p>Start the worker from a platform thread that outlives it, never from a virtual thread or a pool
 * thread that may end first: bwrap's {@code --die-with-parent} is {@code PR_SET_PDEATHSIG}, which Linux
 * fires when the thread that started the process ends, not only when the host JVM does (a virtual thread
 * starts it from its carrier, which the scheduler retires when idle). Measured: a worker started from a
 * thread that then returned was killed within 1.5 s.
 */
public final class WallCommand {
  /** The system property that tells {@link WalledMain} whether the wall is weak. */
  static final String WALL_PROPERTY = "polyglotsandbox.wall";
  static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
  static final String HOSTNAME = "polyglot-sandbox";
  /** The exit status of a worker whose wall could not be built (cgroup or seccomp), as {@code EX_SOFTWARE}. */
  static final int WALL_FAILED = 70;

  /** Joins each cgroup in $2.. ($1 of them), then execs the rest: the worker is counted from its start. */
  static final String JOIN_CGROUPS = "n=$1; shift; while [ \"$n\" -gt 0 ]; do "
      + "echo $$ > \"$1\" || { echo \"polyglot-sandbox wall: cannot join the cgroup $1\" >&2; exit " + WALL_FAILED + "; }; "
      + "shift; n=$((n - 1)); done; exec \"$@\"";

  private static final Set<String> OPTIONS_WITH_VALUE = Set.of("-cp", "-classpath", "--class-path", "-p",
      "--module-path", "--upgrade-module-path", "--add-modules", "--add-exports", "--add-opens", "--add-reads",
      "--limit-modules", "--patch-module", "--enable-native-access", "--describe-module", "-d", "--source");
  private static final Set<String> CLASS_PATH_OPTIONS = Set.of("-cp", "-classpath", "--class-path");
  private static final Pattern JAVA_VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");
  private static final Map<Path, List<Path>> JDK_LINK_TARGETS = new ConcurrentHashMap<>();

  /**
   * What container runtimes hide of {@code /proc} (Docker's masked paths), plus what gives kernel addresses
   * and heap layout away to a root-owned reader ({@code kallsyms} with {@code kptr_restrict=0},
   * {@code slabinfo}, ...): each file that exists covered by {@code /dev/null} (which the wall's nodev bind
   * makes unopenable), each directory by an empty read-only tmpfs.
   */
  static final List<String> PROC_MASKS = procMasks();

  private WallCommand() {}

  private static List<String> procMasks() {
    List<String> args = new ArrayList<>();
    for (String name : List.of("kcore", "kallsyms", "keys", "key-users", "latency_stats", "timer_list", "timer_stats",
        "sched_debug", "slabinfo", "vmallocinfo", "pagetypeinfo", "kpageflags", "kpagecount", "kpagecgroup", "modules",
        "kmsg", "config.gz")) {
      Path p = Path.of("/proc", name);
      if (Files.isRegularFile(p)) {
        args.addAll(List.of("--ro-bind", "/dev/null", p.toString()));
      }
    }
    for (String name : List.of("acpi", "asound", "scsi", "fs", "driver")) {
      Path p = Path.of("/proc", name);
      if (Files.isDirectory(p)) {
        args.addAll(List.of("--tmpfs", p.toString(), "--remount-ro", p.toString()));
      }
    }
    return List.copyOf(args);
  }

  /**
   * The command and cgroup slot of one walled worker.
   *
   * @param command the command to start, with an empty or any environment: it sets the worker's own
   * @param slot the worker's cgroup, to {@link CgroupSlot#close() close} once the process has ended;
   *     null when the spec asks for no cgroup limit or the host can make no cgroup
   */
  public record Walled(List<String> command, CgroupSlot slot) {
    public Walled {
      command = List.copyOf(command);
    }
  }

  /**
   * The command that starts {@code javaCommand} inside the wall {@code spec} describes, and the cgroup
   * slot made for it.
   *
   * @param javaCommand {@code <spec.javaHome>/bin/java}, JVM flags, a class path of absolute entries,
   *     {@link WalledMain} (required unless weak), the real main class and its arguments
   * @throws IllegalArgumentException when the command does not start the spec's JDK, does not run
   *     {@link WalledMain}, reads a class path entry the spec does not bind, or a read-only path does not exist
   * @throws IllegalStateException when the host lacks a layer a full wall needs ({@link OsWall.Report#missing()}),
   *     when the spec's JDK is older than 22, or when a memory limit is asked for and no memory cgroup can be made
   * @throws UncheckedIOException when the cgroup cannot be made
   */
  public static Walled wrap(List<String> javaCommand, WallSpec spec) {
    return wrap(javaCommand, spec, OsWall.host());
  }

  static Walled wrap(List<String> javaCommand, WallSpec spec, OsWall.Host host) {
    check(javaCommand, spec);
    if (!spec.weak()) {
      if (!host.report().full()) {
        throw new IllegalStateException(host.report().missing() + " A weak wall (WallSpec.weak) runs the worker without them.");
      }
      int feature = javaFeature(spec.javaHome());
      if (feature > 0 && feature < 22) {
        throw new IllegalStateException("javaHome " + spec.javaHome() + " is JDK " + feature
            + ": the worker's seccomp filter needs JDK 22 or newer");
      }
    }
    if (spec.cgroupMemoryBytes() > 0 && host.cgroups().memory() == null) {
      throw new IllegalStateException("cgroupMemoryBytes is " + spec.cgroupMemoryBytes() + " but no memory cgroup can be made: "
          + host.cgroups().whyNoMemory());
    }
    CgroupSlot slot = CgroupSlot.create(host.cgroups(), spec.cgroupMemoryBytes(), spec.maxTasks());
    try {
      return new Walled(command(javaCommand, spec, host, slot), slot);
    } catch (RuntimeException e) {
      if (slot != null) {
        slot.close();
      }
      throw e;
    }
  }

  private static void check(List<String> javaCommand, WallSpec spec) {
    if (javaCommand == null || javaCommand.isEmpty()) {
      throw new IllegalArgumentException("javaCommand must start with " + spec.javaHome().resolve("bin/java") + ", not be empty");
    }
    Path java = spec.javaHome().resolve("bin").resolve("java");
    if (!Path.of(javaCommand.get(0)).normalize().equals(java)) {
      throw new IllegalArgumentException("javaCommand starts with " + javaCommand.get(0) + ", not with " + java
          + ": the wall holds only the JDK of WallSpec.javaHome");
    }
    if (javaCommand.get(0).indexOf('=') >= 0) {
      throw new IllegalArgumentException("the java executable's path (" + javaCommand.get(0) + ") must not hold '='");
    }
    int main = mainIndex(javaCommand);
    if (!spec.weak() && (main < 0 || !javaCommand.get(main).equals(WalledMain.class.getName()))) {
      throw new IllegalArgumentException("javaCommand's main class is " + (main < 0 ? "missing" : javaCommand.get(main))
          + ", not " + WalledMain.class.getName() + ", which installs the seccomp filter: " + javaCommand);
    }
    for (Path p : spec.readOnlyPaths()) {
      if (!Files.exists(p)) {
        throw new IllegalArgumentException("read-only path " + p + " does not exist");
      }
    }
    if (!spec.weak()) {
      for (String entry : classPath(javaCommand, main)) {
        Path p = Path.of(entry.endsWith("/*") ? entry.substring(0, entry.length() - 2) : entry);
        if (!p.isAbsolute()) {
          throw new IllegalArgumentException("class path entry " + entry + " is relative: the walled worker starts in /tmp");
        }
        Path n = p.normalize();
        if (!n.startsWith(spec.javaHome()) && spec.readOnlyPaths().stream().noneMatch(n::startsWith)) {
          throw new IllegalArgumentException("class path entry " + entry
              + " is in none of readOnlyPaths: the walled worker could not read it");
        }
      }
    }
  }

  /** The walled command, for a host whose layers the caller has already checked. */
  static List<String> command(List<String> javaCommand, WallSpec spec, OsWall.Host host, CgroupSlot slot) {
    List<String> c = new ArrayList<>();
    if (slot != null) {
      List<Path> procs = slot.procsFiles();
      c.addAll(List.of(host.sh().toString(), "-c", JOIN_CGROUPS, "polyglot-sandbox-cgroup", String.valueOf(procs.size())));
      procs.forEach(p -> c.add(p.toString()));
    }
    if (host.env() != null) {
      c.addAll(List.of(host.env().toString(), "-i"));
      if (spec.weak()) {
        spec.environment().forEach((k, v) -> c.add(k + "=" + v));
      }
    }
    if (host.prlimit() != null) {
      c.add(host.prlimit().toString());
      c.add("--nofile=" + spec.maxOpenFiles() + ":" + spec.maxOpenFiles());
      c.add("--fsize=" + spec.maxFileBytes() + ":" + spec.maxFileBytes());
      c.add("--core=0:0");
      if (spec.maxTasks() > 0) {
        c.add("--nproc=" + spec.maxTasks() + ":" + spec.maxTasks());
      }
      c.add("--");
    }
    if (!spec.weak()) {
      c.addAll(bwrap(spec, host));
    }
    int main = mainIndex(javaCommand);
    c.add(javaCommand.get(0));
    c.add(NATIVE_ACCESS);
    c.add("-D" + WALL_PROPERTY + "=" + (spec.weak() ? "weak" : "strict"));
    int end = main < 0 ? javaCommand.size() : main;
    for (int i = 1; i < end; i++) {
      String a = javaCommand.get(i);
      if (CLASS_PATH_OPTIONS.contains(a) && i + 1 < end) {
        c.add(a);
        c.add(withVersionedClasses(javaCommand.get(++i), spec.javaHome()));
      } else if (a.startsWith("--class-path=")) {
        c.add("--class-path=" + withVersionedClasses(a.substring("--class-path=".length()), spec.javaHome()));
      } else {
        c.add(a);
      }
    }
    c.addAll(javaCommand.subList(end, javaCommand.size()));
    return c;
  }

  private static List<String> bwrap(WallSpec spec, OsWall.Host host) {
    List<String> b = new ArrayList<>(List.of(host.bwrap().toString(), "--unshare-all", "--unshare-user", "--unshare-cgroup"));
    if (host.bwrapOptions().contains("--disable-userns")) {
      b.add("--disable-userns");
    }
    b.addAll(List.of("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", HOSTNAME, "--clearenv"));
    spec.environment().forEach((k, v) -> b.addAll(List.of("--setenv", k, v)));
    // /tmp first: a read-only path under /tmp must land on top of the private tmpfs, not under it.
    if (host.bwrapOptions().contains("--size")) {
      b.addAll(List.of("--size", String.valueOf(spec.maxFileBytes())));
    }
    // /proc read-only: the worker is uid 0 of a user namespace that maps it to the host's uid 0 when the host
    // JVM runs as root, and the kernel lets the owner of a root-owned /proc/sys file write it without any
    // capability (kernel.* and vm.* are host-wide). bwrap covers /proc/sys only where it could write it itself.
    b.addAll(List.of("--tmpfs", "/tmp", "--proc", "/proc", "--remount-ro", "/proc"));
    b.addAll(PROC_MASKS);
    b.addAll(List.of("--dev", "/dev"));
    b.addAll(host.systemLibraries());
    Set<Path> binds = new LinkedHashSet<>();
    binds.add(spec.javaHome());
    binds.addAll(jdkLinkTargets(spec.javaHome()));
    binds.addAll(spec.readOnlyPaths());
    for (Path p : binds) {
      b.addAll(List.of("--ro-bind", p.toString(), p.toString()));
    }
    b.addAll(List.of("--chdir", "/tmp", "--remount-ro", "/", "--"));
    return b;
  }

  /**
   * The files outside {@code javaHome} that its symbolic links lead to (a Debian JDK's {@code conf} files
   * and {@code cacerts} live under {@code /etc}), by their real paths; walked once per JDK.
   */
  static List<Path> jdkLinkTargets(Path javaHome) {
    return JDK_LINK_TARGETS.computeIfAbsent(javaHome, home -> {
      Path real;
      try {
        real = home.toRealPath();
      } catch (IOException e) {
        throw new IllegalArgumentException("javaHome " + home + " does not exist", e);
      }
      List<Path> targets = new ArrayList<>();
      try (Stream<Path> files = Files.walk(home)) {
        files.filter(Files::isSymbolicLink).forEach(link -> {
          try {
            Path target = link.toRealPath();
            if (!target.startsWith(real) && !targets.contains(target)) {
              targets.add(target);
            }
          } catch (IOException e) {
            // a dangling link is dangling inside the wall too
          }
        });
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read javaHome " + home, e);
      }
      return List.copyOf(targets);
    });
  }

  /** The feature version in {@code javaHome/release}, or 0 when it does not say. */
  static int javaFeature(Path javaHome) {
    try {
      Matcher m = JAVA_VERSION.matcher(Files.readString(javaHome.resolve("release")));
      return m.find() ? Integer.parseInt(m.group(1)) : 0;
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
  }

  /** The index of the main class (or {@code -jar} file, or {@code -m} module) in a java command; -1 if none. */
  static int mainIndex(List<String> javaCommand) {
    for (int i = 1; i < javaCommand.size(); i++) {
      String a = javaCommand.get(i);
      if (a.equals("-jar") || a.equals("-m") || a.equals("--module")) {
        return i + 1 < javaCommand.size() ? i + 1 : -1;
      }
      if (OPTIONS_WITH_VALUE.contains(a)) {
        i++;
      } else if (!a.startsWith("-")) {
        return i;
      }
    }
    return -1;
  }

  private static List<String> classPath(List<String> javaCommand, int main) {
    int end = main < 0 ? javaCommand.size() : main;
    List<String> entries = new ArrayList<>();
    for (int i = 1; i < end; i++) {
      String a = javaCommand.get(i);
      String value = null;
      if (CLASS_PATH_OPTIONS.contains(a) && i + 1 < end) {
        value = javaCommand.get(++i);
      } else if (a.startsWith("--class-path=")) {
        value = a.substring("--class-path=".length());
      } else if (OPTIONS_WITH_VALUE.contains(a)) {
        i++;
      }
      if (value != null) {
        for (String e : value.split(":")) {
          if (!e.isEmpty()) {
            entries.add(e);
          }
        }
      }
    }
    return entries;
  }

  /**
   * {@code classPath} with each directory that holds a {@code META-INF/versions/22} folder preceded by
   * that folder, for a JDK 22 or newer: the JVM reads versioned classes only in jars.
   */
  static String withVersionedClasses(String classPath, Path javaHome) {
    if (javaFeature(javaHome) < 22) {
      return classPath;
    }
    List<String> out = new ArrayList<>();
    for (String e : classPath.split(":", -1)) {
      Path versioned = e.isEmpty() ? null : Path.of(e, "META-INF", "versions", "22");
      if (versioned != null && Files.isDirectory(Path.of(e)) && Files.isDirectory(versioned)) {
        out.add(versioned.toString());
      }
      out.add(e);
    }
    return String.join(":", out);
  }
}
