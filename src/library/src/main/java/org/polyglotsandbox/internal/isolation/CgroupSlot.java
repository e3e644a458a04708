package org.polyglotsandbox.internal.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker's cgroup: a memory limit and a task cap, in a cgroup made for it under this JVM's own
 * cgroup (cgroup v1's {@code memory} and {@code pids} hierarchies, or v2's unified one, each controller
 * where the host has it). {@link WallCommand} puts the worker into it before the worker's first
 * instruction; {@link #close()} kills what is left in it and removes it.
 *
 * <p>Under cgroup v2 a slot is only made where this JVM's cgroup already delegates {@code memory} and
 * {@code pids} to its children ({@code cgroup.subtree_control}): enabling them would move this JVM's own
 * cgroup, which is not the wall's to change.
 */
public final class CgroupSlot implements AutoCloseable {
  private static final AtomicLong SEQUENCE = new AtomicLong();
  private static final long CLOSE_TIMEOUT_NANOS = 5_000_000_000L;

  /** One controller's hierarchy: the directory of this JVM's cgroup in it, and whether it is v2's unified one. */
  record Controller(String name, Path parent, boolean v2) {}

  /**
   * Where this JVM may make slots: each controller's parent directory, or why there is none.
   *
   * @param memory the memory controller, or null
   * @param pids the pids controller, or null
   * @param whyNoMemory why {@code memory} is null, with how to get it; empty otherwise
   * @param whyNoPids why {@code pids} is null, with how to get it; empty otherwise
   */
  record Place(Controller memory, Controller pids, String whyNoMemory, String whyNoPids) {}

  private final Controller memory;
  private final Controller pids;
  private final Path memoryDir;
  private final Path pidsDir;
  private volatile boolean closed;

  private CgroupSlot(Controller memory, Path memoryDir, Controller pids, Path pidsDir) {
    this.memory = memory;
    this.memoryDir = memoryDir;
    this.pids = pids;
    this.pidsDir = pidsDir;
  }

  /**
   * Finds this JVM's cgroups from {@code proc} (normally {@code /proc/self}: its {@code cgroup} and
   * {@code mountinfo}), and checks, by making and removing a cgroup, that a child can be made with each
   * controller.
   */
  static Place locate(Path proc) {
    List<String> cgroups;
    List<String> mounts;
    try {
      cgroups = Files.readAllLines(proc.resolve("cgroup"), StandardCharsets.UTF_8);
      mounts = Files.readAllLines(proc.resolve("mountinfo"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      String why = "missing: no cgroups to read at " + proc + " (" + e.getMessage() + ")";
      return new Place(null, null, why, why);
    }
    String[] why = new String[2];
    Controller memory = find("memory", cgroups, mounts, why, 0);
    Controller pids = find("pids", cgroups, mounts, why, 1);
    return new Place(memory, pids, why[0] == null ? "" : why[0], why[1] == null ? "" : why[1]);
  }

  private static Controller find(String name, List<String> cgroups, List<String> mounts, String[] why, int slot) {
    Controller c = findV1(name, cgroups, mounts);
    if (c == null) {
      c = findV2(name, cgroups, mounts);
    }
    if (c == null) {
      why[slot] = "missing: no cgroup " + name + " controller is mounted (mount cgroup v2, or cgroup v1's " + name
          + " hierarchy, under /sys/fs/cgroup)";
      return null;
    }
    if (c.v2()) {
      Set<String> delegated = words(c.parent().resolve("cgroup.subtree_control"));
      if (!delegated.contains(name)) {
        why[slot] = "missing: this JVM's cgroup v2 " + c.parent() + " does not delegate " + name
            + " to its children; run it in a delegated cgroup with " + name
            + " in cgroup.subtree_control (systemd: Delegate=yes)";
        return null;
      }
    }
    String failure = tryChild(c);
    if (!failure.isEmpty()) {
      why[slot] = "missing: cannot make a cgroup under " + c.parent() + " (" + failure
          + "); run the host JVM as root or in a cgroup it owns";
      return null;
    }
    return c;
  }

  private static Controller findV1(String name, List<String> cgroups, List<String> mounts) {
    String path = null;
    for (String line : cgroups) {
      String[] f = line.split(":", 3);
      if (f.length == 3 && !f[0].equals("0") && List.of(f[1].split(",")).contains(name)) {
        path = f[2];
      }
    }
    if (path == null) {
      return null;
    }
    for (String line : mounts) {
      Mount m = Mount.parse(line);
      if (m != null && m.type().equals("cgroup") && List.of(m.superOptions().split(",")).contains(name)) {
        Path dir = under(m, path);
        if (dir != null && Files.isDirectory(dir)) {
          return new Controller(name, dir, false);
        }
      }
    }
    return null;
  }

  private static Controller findV2(String name, List<String> cgroups, List<String> mounts) {
    String path = null;
    for (String line : cgroups) {
      if (line.startsWith("0::")) {
        path = line.substring(3);
      }
    }
    if (path == null) {
      return null;
    }
    for (String line : mounts) {
      Mount m = Mount.parse(line);
      if (m != null && m.type().equals("cgroup2")) {
        Path dir = under(m, path);
        if (dir != null && words(dir.resolve("cgroup.controllers")).contains(name)) {
          return new Controller(name, dir, true);
        }
      }
    }
    return null;
  }

  /** The directory of cgroup {@code path} in mount {@code m}, or null if the mount does not show it. */
  private static Path under(Mount m, String path) {
    String root = m.root();
    if (root.equals("/")) {
      return Path.of(m.mountPoint(), path.substring(1)).normalize();
    }
    if (path.equals(root)) {
      return Path.of(m.mountPoint());
    }
    if (path.startsWith(root + "/")) {
      return Path.of(m.mountPoint(), path.substring(root.length() + 1));
    }
    return null;
  }

  /** One line of {@code mountinfo}: root, mount point, file system type and super options. */
  private record Mount(String root, String mountPoint, String type, String superOptions) {
    static Mount parse(String line) {
      int dash = line.indexOf(" - ");
      if (dash < 0) {
        return null;
      }
      String[] before = line.substring(0, dash).split(" ");
      String[] after = line.substring(dash + 3).split(" ");
      if (before.length < 5 || after.length < 3) {
        return null;
      }
      return new Mount(unescape(before[3]), unescape(before[4]), after[0], after[2]);
    }

    /** mountinfo writes space, tab, newline and backslash as octal escapes. */
    private static String unescape(String s) {
      StringBuilder b = new StringBuilder(s.length());
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c == '\\' && i + 3 < s.length()) {
          try {
            b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
            i += 3;
            continue;
          } catch (NumberFormatException e) {
            // not an escape: keep the backslash
          }
        }
        b.append(c);
      }
      return b.toString();
    }
  }

  private static String tryChild(Controller c) {
    Path probe = c.parent().resolve("polyglot-sandbox-probe-" + ProcessHandle.current().pid() + "-"
        + SEQUENCE.incrementAndGet());
    try {
      Files.createDirectory(probe);
      try {
        Path limit = probe.resolve(limitFile(c));
        if (!Files.isRegularFile(limit)) {
          return "it has no " + limit.getFileName();
        }
        Files.writeString(limit, c.name().equals("memory") ? String.valueOf(256L << 20) : "64");
      } finally {
        Files.delete(probe);
      }
      return "";
    } catch (IOException | SecurityException e) {
      return e.toString();
    }
  }

  private static String limitFile(Controller c) {
    if (c.name().equals("memory")) {
      return c.v2() ? "memory.max" : "memory.limit_in_bytes";
    }
    return "pids.max";
  }

  /**
   * Makes a slot with a memory limit of {@code memoryBytes} (0: no memory cgroup) and a task cap of
   * {@code maxTasks} (0: no pids cgroup), in the controllers {@code place} found. A controller the place
   * lacks is left out; the caller decides whether that is acceptable.
   *
   * @return the slot, or null when neither controller is asked for or available
   */
  static CgroupSlot create(Place place, long memoryBytes, long maxTasks) {
    Controller mem = memoryBytes > 0 ? place.memory() : null;
    Controller pid = maxTasks > 0 ? place.pids() : null;
    if (mem == null && pid == null) {
      return null;
    }
    String name = "polyglot-sandbox-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
    Path memDir = null;
    Path pidsDir = null;
    try {
      if (mem != null) {
        memDir = mem.parent().resolve(name);
        Files.createDirectory(memDir);
      }
      if (pid != null) {
        pidsDir = pid.parent().resolve(name);
        if (!pidsDir.equals(memDir)) {
          Files.createDirectory(pidsDir);
        }
      }
      CgroupSlot slot = new CgroupSlot(mem, memDir, pid, pidsDir);
      try {
        if (mem != null) {
          Files.writeString(memDir.resolve(limitFile(mem)), String.valueOf(memoryBytes));
          // No swap: the limit is on memory, not on memory plus a swap file the host may have.
          Path swap = memDir.resolve(mem.v2() ? "memory.swap.max" : "memory.memsw.limit_in_bytes");
          if (Files.isRegularFile(swap)) {
            Files.writeString(swap, mem.v2() ? "0" : String.valueOf(memoryBytes));
          }
          // v2: an OOM kills the whole worker, never a thread-less half of it.
          Path group = memDir.resolve("memory.oom.group");
          if (mem.v2() && Files.isRegularFile(group)) {
            Files.writeString(group, "1");
          }
        }
        if (pid != null) {
          Files.writeString(pidsDir.resolve("pids.max"), String.valueOf(maxTasks));
        }
      } catch (IOException | RuntimeException e) {
        slot.close();
        throw e;
      }
      return slot;
    } catch (IOException e) {
      removeQuietly(memDir);
      removeQuietly(pidsDir);
      throw new UncheckedIOException("cannot make the worker's cgroup " + name + ": " + e.getMessage(), e);
    }
  }

  private static void removeQuietly(Path dir) {
    if (dir != null) {
      try {
        Files.deleteIfExists(dir);
      } catch (IOException e) {
        // best effort while already failing
      }
    }
  }

  /** The {@code cgroup.procs} files a process writes its PID into to join this slot, one per hierarchy. */
  List<Path> procsFiles() {
    Set<Path> dirs = new LinkedHashSet<>();
    if (memoryDir != null) {
      dirs.add(memoryDir);
    }
    if (pidsDir != null) {
      dirs.add(pidsDir);
    }
    return dirs.stream().map(d -> d.resolve("cgroup.procs")).toList();
  }

  /** Whether the slot limits memory (a memory cgroup was made). */
  boolean limitsMemory() {
    return memoryDir != null;
  }

  /** Whether the slot caps tasks (a pids cgroup was made). */
  boolean capsTasks() {
    return pidsDir != null;
  }

  /** The most memory the worker's cgroup held at once, in bytes; -1 when unknown (no memory cgroup, or a v2 kernel before 5.19). */
  public long memoryPeakBytes() {
    if (memoryDir == null) {
      return -1;
    }
    return readLong(memoryDir.resolve(memory.v2() ? "memory.peak" : "memory.max_usage_in_bytes")).orElse(-1L);
  }

  /** Whether the kernel's OOM killer killed a task of the worker for passing the memory limit. */
  public boolean oomKilled() {
    if (memoryDir == null) {
      return false;
    }
    return counter(memoryDir.resolve(memory.v2() ? "memory.events" : "memory.oom_control"), "oom_kill") > 0;
  }

  /** How many times the worker was refused a new task (thread or process) for the task cap; 0 without a pids cgroup. */
  public long tasksRefused() {
    if (pidsDir == null) {
      return 0;
    }
    return counter(pidsDir.resolve("pids.events"), "max");
  }

  /**
   * Kills every task left in the slot (SIGKILL) and removes its cgroups. Idempotent.
   *
   * @throws UncheckedIOException when a cgroup cannot be removed within 5 s
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    long deadline = System.nanoTime() + CLOSE_TIMEOUT_NANOS;
    List<String> failures = new ArrayList<>();
    for (Path procs : procsFiles()) {
      Path dir = procs.getParent();
      try {
        while (true) {
          List<Long> left = tasks(procs);
          if (left.isEmpty()) {
            break;
          }
          if (System.nanoTime() > deadline) {
            throw new IOException("tasks " + left + " are still in it");
          }
          left.forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly));
          Thread.sleep(5);
        }
        // A cgroup whose last task has just died may still be busy for a moment.
        while (true) {
          try {
            Files.deleteIfExists(dir);
            break;
          } catch (IOException e) {
            if (System.nanoTime() > deadline) {
              throw e;
            }
            Thread.sleep(5);
          }
        }
      } catch (IOException e) {
        failures.add(dir + ": " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failures.add(dir + ": interrupted while removing it");
      }
    }
    if (!failures.isEmpty()) {
      throw new UncheckedIOException(new IOException("cannot remove the worker's cgroup: " + String.join("; ", failures)));
    }
  }

  private static List<Long> tasks(Path procs) throws IOException {
    try {
      return Files.readAllLines(procs).stream().filter(s -> !s.isBlank()).map(s -> Long.parseLong(s.trim())).toList();
    } catch (NoSuchFileException e) {
      return List.of();
    }
  }

  private static Optional<Long> readLong(Path file) {
    try {
      return Optional.of(Long.parseLong(Files.readString(file).trim()));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** The value of {@code key} in a flat-keyed file ({@code key value} per line), 0 when absent. */
  private static long counter(Path file, String key) {
    try {
      for (String line : Files.readAllLines(file)) {
        String[] f = line.trim().split("\\s+");
        if (f.length == 2 && f[0].equals(key)) {
          return Long.parseLong(f[1]);
        }
      }
    } catch (IOException | NumberFormatException e) {
      // unknown counts as none
    }
    return 0;
  }

  private static Set<String> words(Path file) {
    try {
      return new HashSet<>(List.of(Files.readString(file).trim().split("\\s+")));
    } catch (IOException e) {
      return Set.of();
    }
  }

  @Override
  public String toString() {
    return "CgroupSlot" + procsFiles().stream().map(Path::getParent).toList();
  }
}
