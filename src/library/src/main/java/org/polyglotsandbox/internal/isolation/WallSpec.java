package org.polyglotsandbox.internal.isolation;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one worker's wall holds: the JDK it runs, the host paths it may read, its whole environment and
 * its resource caps. Immutable; every value is checked here, and the paths' existence when
 * {@link WallCommand#wrap} builds the command.
 *
 * @param javaHome the JDK the worker runs (its {@code bin/java} must be the command's first word); bound
 *     read-only at the same path, with the files outside it that its symbolic links name
 *     ({@code lib/security/cacerts} of a Debian-packaged JDK, say). JDK 22 or newer unless {@code weak}.
 * @param readOnlyPaths the host files and directories the worker must read, each bound read-only at the
 *     same path: class path entries, mounted host paths, GraalPy's extracted home cache. Absolute; never
 *     {@code /} and nothing under {@code /proc}, {@code /sys} or {@code /dev}.
 * @param environment the only environment variables the worker gets; names are non-empty and hold no
 *     {@code =} and no NUL, values no NUL
 * @param maxOpenFiles {@code RLIMIT_NOFILE}, at least 64 (a JVM opens some 20 files before {@code main})
 * @param maxFileBytes {@code RLIMIT_FSIZE}: the largest file the worker may write; also the size of its
 *     private {@code /tmp}, so that many files under the cap cannot fill the host's memory. Positive
 * @param cgroupMemoryBytes the worker's memory cgroup limit (heap, metaspace, code, threads and its
 *     {@code /tmp} together), 0 for none; the kernel kills the worker past it, so keep {@code -Xmx} well
 *     below it. Needs {@link OsWall.Report#cgroupMemory()}
 * @param maxTasks the most tasks (threads included) the worker may run at once: the {@code pids} cgroup's
 *     {@code pids.max} where the host lets one be made, and {@code RLIMIT_NPROC} always (which Linux ignores
 *     for root, even inside a user namespace, and counts over all the user's processes otherwise); 0 for
 *     no cap. A JVM runs some 20 threads before {@code main}
 * @param weak a plain child JVM with rlimits only: no bwrap, no namespaces; {@link WalledMain} still
 *     installs the seccomp filter where it can, and runs the worker anyway where it cannot
 */
public record WallSpec(Path javaHome, List<Path> readOnlyPaths, Map<String, String> environment, long maxOpenFiles,
    long maxFileBytes, long cgroupMemoryBytes, long maxTasks, boolean weak) {

  /** Checks every value; copies the collections (the environment sorted by name). */
  public WallSpec {
    if (javaHome == null || !javaHome.isAbsolute()) {
      throw new IllegalArgumentException("javaHome (" + javaHome + ") must be an absolute path");
    }
    javaHome = javaHome.normalize();
    if (readOnlyPaths == null) {
      throw new IllegalArgumentException("readOnlyPaths must not be null");
    }
    for (Path p : readOnlyPaths) {
      checkReadOnlyPath(p);
    }
    readOnlyPaths = readOnlyPaths.stream().map(Path::normalize).distinct().toList();
    if (environment == null) {
      throw new IllegalArgumentException("environment must not be null");
    }
    for (Map.Entry<String, String> e : environment.entrySet()) {
      String name = e.getKey();
      if (name == null || name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0) {
        throw new IllegalArgumentException("environment variable name (" + name + ") must be non-empty, without '=' or NUL");
      }
      if (e.getValue() == null || e.getValue().indexOf('\0') >= 0) {
        throw new IllegalArgumentException("environment variable " + name + " must have a value without NUL");
      }
    }
    environment = Collections.unmodifiableMap(new TreeMap<>(environment));
    if (maxOpenFiles < 64) {
      throw new IllegalArgumentException("maxOpenFiles (" + maxOpenFiles + ") must be at least 64: the JVM opens about 20 files before main");
    }
    if (maxFileBytes <= 0) {
      throw new IllegalArgumentException("maxFileBytes (" + maxFileBytes + ") must be positive");
    }
    if (cgroupMemoryBytes < 0) {
      throw new IllegalArgumentException("cgroupMemoryBytes (" + cgroupMemoryBytes + ") must be 0 (none) or positive");
    }
    if (cgroupMemoryBytes > 0 && cgroupMemoryBytes < 64L << 20) {
      throw new IllegalArgumentException("cgroupMemoryBytes (" + cgroupMemoryBytes + ") must be 0 (none) or at least 64 MiB: a JVM needs that much to start");
    }
    if (maxTasks < 0) {
      throw new IllegalArgumentException("maxTasks (" + maxTasks + ") must be 0 (no cap) or positive");
    }
    if (maxTasks > 0 && maxTasks < 32) {
      throw new IllegalArgumentException("maxTasks (" + maxTasks + ") must be 0 (no cap) or at least 32: a JVM runs about 20 threads before main");
    }
  }

  private static void checkReadOnlyPath(Path p) {
    if (p == null || !p.isAbsolute()) {
      throw new IllegalArgumentException("read-only path (" + p + ") must be an absolute path");
    }
    Path n = p.normalize();
    if (n.getNameCount() == 0) {
      throw new IllegalArgumentException("read-only path (" + p + ") is the root: binding the host's whole file system would undo the wall");
    }
    for (String kernel : List.of("/proc", "/sys", "/dev")) {
      if (n.startsWith(kernel)) {
        throw new IllegalArgumentException("read-only path (" + p + ") is under " + kernel
            + ": the wall gives the worker its own " + kernel + " or none");
      }
    }
  }
}
