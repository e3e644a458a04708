package org.polyglotsandbox.internal.isolation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * What the host operating system offers for the wall around a worker JVM, checked once per JVM and
 * cached. Each layer is present or absent, with what it is or how to get it:
 *
 * <ul>
 *   <li>{@value #BWRAP}: bubblewrap's {@code bwrap}, which builds the worker's file system and namespaces;
 *   <li>{@value #NAMESPACES}: whether {@code bwrap} can in fact make user, pid, network, IPC, UTS and cgroup
 *       namespaces here (tried once with {@code /bin/sh -c :});
 *   <li>{@value #SECCOMP}: the x86_64 system-call filter {@link WalledMain} installs: needs x86_64 Linux, a
 *       kernel with seccomp filters, this JVM at JDK 22 or newer and the library's JDK 22 class;
 *   <li>{@value #RLIMITS}: util-linux's {@code prlimit} and coreutils' {@code env}, which set the worker's
 *       rlimits and clear its environment;
 *   <li>{@value #CGROUP_MEMORY} and {@value #CGROUP_PIDS}: whether a cgroup with that controller can be
 *       made under this JVM's own (tried once by making and removing one).
 * </ul>
 *
 * <p>The workers may run another JDK than this JVM ({@link WallSpec#javaHome()}); {@link WallCommand}
 * checks that one's version itself.
 */
public final class OsWall {
  static final String BWRAP = "bwrap";
  static final String NAMESPACES = "namespaces";
  static final String SECCOMP = "seccomp";
  static final String RLIMITS = "rlimits";
  static final String CGROUP_MEMORY = "cgroup memory";
  static final String CGROUP_PIDS = "cgroup pids";
  private static final long PROBE_TIMEOUT_SECONDS = 10;

  private OsWall() {}

  /** One layer of the wall: its name, whether the host has it, and what it is or how to get it. */
  public record Layer(String name, boolean present, String detail) {}

  /** What the host offers, layer by layer, in the order of {@link OsWall}'s list. */
  public record Report(List<Layer> layers) {
    public Report {
      layers = List.copyOf(layers);
    }

    /** The layer called {@code name}; an absent one if the report has none of that name. */
    public Layer layer(String name) {
      return layers.stream().filter(l -> l.name().equals(name)).findFirst()
          .orElse(new Layer(name, false, "missing: not inspected"));
    }

    /**
     * Whether the whole wall can be built: bwrap with usable user, pid, network, IPC, UTS and cgroup
     * namespaces, the seccomp filter (JDK 22+ at run time) and the rlimit tools. The cgroups are not
     * part of it: see {@link #cgroupMemory()}.
     */
    public boolean full() {
      return List.of(BWRAP, NAMESPACES, SECCOMP, RLIMITS).stream().allMatch(n -> layer(n).present());
    }

    /** One sentence naming each absent layer and how to get it; empty when every layer is present. */
    public String missing() {
      List<Layer> absent = layers.stream().filter(l -> !l.present()).toList();
      if (absent.isEmpty()) {
        return "";
      }
      return "The worker's wall lacks " + absent.stream().map(l -> l.name() + " (" + l.detail() + ")")
          .collect(Collectors.joining("; ")) + ".";
    }

    /** Whether a cgroup memory limit can be set on a worker. */
    public boolean cgroupMemory() {
      return layer(CGROUP_MEMORY).present();
    }

    /** Whether a cgroup task cap can be set on a worker. */
    public boolean cgroupPids() {
      return layer(CGROUP_PIDS).present();
    }
  }

  /**
   * What {@link WallCommand} builds with: the report, the tools' paths (null when absent), which
   * optional bwrap options this bwrap knows, where cgroups can be made, and the bwrap arguments that give
   * the worker the host's system libraries.
   */
  record Host(Report report, Path bwrap, Set<String> bwrapOptions, Path prlimit, Path env, Path sh,
      CgroupSlot.Place cgroups, List<String> systemLibraries) {
    Host {
      bwrapOptions = Set.copyOf(bwrapOptions);
      systemLibraries = List.copyOf(systemLibraries);
    }
  }

  private static final class Cached {
    static final Host HOST = probe();
  }

  /** What the host offers, checked at the first call (some 50 ms: it starts bwrap twice) and cached. */
  public static Report inspect() {
    return host().report();
  }

  static Host host() {
    return Cached.HOST;
  }

  private static Host probe() {
    List<Layer> layers = new ArrayList<>();
    Path bwrap = executable("bwrap");
    Path prlimit = executable("prlimit");
    Path env = executable("env");
    Path sh = executable("sh");
    Set<String> bwrapOptions = new HashSet<>();
    if (bwrap == null) {
      layers.add(new Layer(BWRAP, false, "missing: install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap;"
          + " Fedora: dnf install bubblewrap)"));
      layers.add(new Layer(NAMESPACES, false, "missing: needs bwrap"));
    } else {
      Run version = run(List.of(bwrap.toString(), "--version"));
      Run help = run(List.of(bwrap.toString(), "--help"));
      for (String option : List.of("--disable-userns", "--size", "--clearenv", "--die-with-parent", "--new-session",
          "--cap-drop", "--unshare-cgroup", "--remount-ro")) {
        if (help.output().contains(option + " ")) {
          bwrapOptions.add(option);
        }
      }
      List<String> lacking = List.of("--clearenv", "--die-with-parent", "--new-session", "--cap-drop",
          "--unshare-cgroup", "--remount-ro").stream().filter(o -> !bwrapOptions.contains(o)).toList();
      if (version.status() != 0) {
        layers.add(new Layer(BWRAP, false, "missing: " + bwrap + " --version failed: " + version.output().strip()));
      } else if (!lacking.isEmpty()) {
        layers.add(new Layer(BWRAP, false, "missing: " + version.output().strip() + " at " + bwrap + " lacks "
            + String.join(", ", lacking) + "; install bubblewrap 0.5 or newer"));
      } else {
        layers.add(new Layer(BWRAP, true, version.output().strip() + " at " + bwrap));
      }
      layers.add(namespaces(bwrap, bwrapOptions, sh));
    }
    layers.add(seccomp());
    if (prlimit != null && env != null) {
      String v = run(List.of(prlimit.toString(), "--version")).output().strip();
      layers.add(new Layer(RLIMITS, true, v + " at " + prlimit));
    } else {
      layers.add(new Layer(RLIMITS, false, "missing: " + (prlimit == null ? "prlimit" : "env")
          + (prlimit == null ? " (util-linux: apt-get install util-linux)" : " (coreutils: apt-get install coreutils)")));
    }
    CgroupSlot.Place cgroups = sh == null
        ? new CgroupSlot.Place(null, null, "missing: /bin/sh, which puts the worker in its cgroup",
            "missing: /bin/sh, which puts the worker in its cgroup")
        : CgroupSlot.locate(Path.of("/proc/self"));
    layers.add(cgroups.memory() != null
        ? new Layer(CGROUP_MEMORY, true, (cgroups.memory().v2() ? "cgroup v2" : "cgroup v1") + " under " + cgroups.memory().parent())
        : new Layer(CGROUP_MEMORY, false, cgroups.whyNoMemory()));
    layers.add(cgroups.pids() != null
        ? new Layer(CGROUP_PIDS, true, (cgroups.pids().v2() ? "cgroup v2" : "cgroup v1") + " under " + cgroups.pids().parent())
        : new Layer(CGROUP_PIDS, false, cgroups.whyNoPids()));
    return new Host(new Report(layers), bwrap, bwrapOptions, prlimit, env, sh, cgroups, systemLibraries());
  }

  private static Layer namespaces(Path bwrap, Set<String> bwrapOptions, Path sh) {
    if (sh == null) {
      return new Layer(NAMESPACES, false, "missing: no /bin/sh to try bwrap with");
    }
    List<String> probe = new ArrayList<>(List.of(bwrap.toString(), "--unshare-all", "--unshare-user", "--unshare-cgroup"));
    if (bwrapOptions.contains("--disable-userns")) {
      probe.add("--disable-userns");
    }
    probe.addAll(List.of("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--ro-bind", "/", "/",
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--", sh.toString(), "-c", ":"));
    Run r = run(probe);
    if (r.status() == 0) {
      return new Layer(NAMESPACES, true, "user, pid, network, IPC, UTS and cgroup namespaces");
    }
    return new Layer(NAMESPACES, false, "missing: bwrap cannot make them here (" + r.output().strip()
        + "); allow unprivileged user namespaces (sysctl user.max_user_namespaces=15000;"
        + " Debian before 11: kernel.unprivileged_userns_clone=1; Ubuntu 24.04+:"
        + " kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap)");
  }

  private static Layer seccomp() {
    String os = System.getProperty("os.name", "");
    String arch = System.getProperty("os.arch", "");
    if (!os.equals("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      return new Layer(SECCOMP, false, "missing: the filter is written for x86_64 Linux (this is " + os + " on " + arch + ")");
    }
    String actions;
    try {
      actions = Files.readString(Path.of("/proc/sys/kernel/seccomp/actions_avail"));
    } catch (IOException e) {
      return new Layer(SECCOMP, false, "missing: the kernel has no seccomp filters (/proc/sys/kernel/seccomp/actions_avail:"
          + " " + e.getMessage() + "); use a kernel built with CONFIG_SECCOMP_FILTER, 4.14 or newer");
    }
    if (!actions.contains("kill_process") || !actions.contains("errno")) {
      return new Layer(SECCOMP, false, "missing: the kernel's seccomp lacks kill_process or errno (has: " + actions.strip()
          + "); use Linux 4.14 or newer");
    }
    int feature = Runtime.version().feature();
    if (feature < 22) {
      return new Layer(SECCOMP, false, "missing: needs JDK 22 or newer for the foreign function API (this is JDK " + feature + ")");
    }
    if (!NativeSeccomp.available() && OsWall.class.getResource(jdk22ClassResource()) == null) {
      return new Layer(SECCOMP, false, "missing: " + NativeSeccomp.unavailableReason());
    }
    return new Layer(SECCOMP, true, "x86_64 BPF denylist of " + SeccompFilter.deniedCalls().size()
        + " system calls, with argument checks on clone, clone3, socket and ioctl, installed through the foreign"
        + " function API (JDK " + feature + ")");
  }

  /** Where the multi-release jar (or a build's class directory) holds the JDK 22 {@link NativeSeccomp}. */
  static String jdk22ClassResource() {
    return "/META-INF/versions/22/" + NativeSeccomp.class.getName().replace('.', '/') + ".class";
  }

  /**
   * The bwrap arguments that give the worker glibc and the system libraries the JDK links against,
   * read-only: the multiarch and 64-bit library directories that exist, each symbolic link on their way
   * ({@code /lib -> usr/lib} on a merged-/usr system) made again inside, and the dynamic loader's cache.
   */
  static List<String> systemLibraries() {
    String triplet = switch (System.getProperty("os.arch", "")) {
      case "amd64", "x86_64" -> "x86_64-linux-gnu";
      case "aarch64" -> "aarch64-linux-gnu";
      default -> System.getProperty("os.arch") + "-linux-gnu";
    };
    Map<String, String> links = new LinkedHashMap<>();
    Set<Path> binds = new java.util.LinkedHashSet<>();
    for (String candidate : List.of("/lib/" + triplet, "/usr/lib/" + triplet, "/lib64", "/usr/lib64")) {
      Path p = Path.of(candidate);
      if (!Files.isDirectory(p)) {
        continue;
      }
      Path prefix = Path.of("/");
      for (Path name : p) {
        prefix = prefix.resolve(name);
        if (Files.isSymbolicLink(prefix)) {
          try {
            links.putIfAbsent(prefix.toString(), Files.readSymbolicLink(prefix).toString());
          } catch (IOException e) {
            // unreadable link: the bind of the real directory below still serves the real path
          }
        }
      }
      try {
        binds.add(p.toRealPath());
      } catch (IOException e) {
        // vanished between the two checks
      }
    }
    List<String> args = new ArrayList<>();
    links.forEach((link, target) -> args.addAll(List.of("--symlink", target, link)));
    for (Path b : binds) {
      args.addAll(List.of("--ro-bind", b.toString(), b.toString()));
    }
    if (Files.isRegularFile(Path.of("/etc/ld.so.cache"))) {
      args.addAll(List.of("--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"));
    }
    return args;
  }

  /** The first executable file called {@code name} in the system directories, then on PATH; null if none. */
  static Path executable(String name) {
    List<String> dirs = new ArrayList<>(List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"));
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(":")));
    }
    for (String d : dirs) {
      if (d.isEmpty() || !d.startsWith("/")) {
        continue;
      }
      Path p = Path.of(d, name);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  record Run(int status, String output) {}

  /** Runs a probe command with an empty environment and no input, its output (stdout and stderr) captured. */
  static Run run(List<String> command) {
    Path log = null;
    try {
      log = Files.createTempFile("polyglot-sandbox-wall-probe", ".log");
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      pb.environment().clear();
      Process p = pb.start();
      if (!p.waitFor(PROBE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Run(-1, "timed out after " + PROBE_TIMEOUT_SECONDS + " s");
      }
      return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return new Run(-1, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Run(-1, "interrupted");
    } finally {
      if (log != null) {
        try {
          Files.deleteIfExists(log);
        } catch (IOException e) {
          // a probe's log left in the temporary directory is harmless
        }
      }
    }
  }
}
