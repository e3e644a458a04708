package org.polyglotsandbox.internal.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The walled command, built against a host that has every layer (tool paths as on Debian), read flag by
 * flag; and every way a caller can get the command or the spec wrong.
 */
class WallCommandTest {
  private static final Path JAVA_HOME = Path.of(System.getProperty("java.home"));
  private static final String JAVA = JAVA_HOME.resolve("bin/java").toString();
  private static final String MAIN = "com.example.Worker";

  @TempDir
  Path dir;

  private static OsWall.Host host(CgroupSlot.Place place) {
    OsWall.Report full = new OsWall.Report(List.of(
        new OsWall.Layer(OsWall.BWRAP, true, "bubblewrap 0.8.0"),
        new OsWall.Layer(OsWall.NAMESPACES, true, "all"),
        new OsWall.Layer(OsWall.SECCOMP, true, "filter"),
        new OsWall.Layer(OsWall.RLIMITS, true, "prlimit"),
        new OsWall.Layer(OsWall.CGROUP_MEMORY, place.memory() != null, place.whyNoMemory()),
        new OsWall.Layer(OsWall.CGROUP_PIDS, place.pids() != null, place.whyNoPids())));
    return new OsWall.Host(full, Path.of("/usr/bin/bwrap"), Set.of("--disable-userns", "--size"), Path.of("/usr/bin/prlimit"),
        Path.of("/usr/bin/env"), Path.of("/bin/sh"), place, OsWall.systemLibraries());
  }

  private static final OsWall.Host HOST = host(new CgroupSlot.Place(null, null, "missing: no memory", "missing: no pids"));

  private WallSpec spec(boolean weak, Path... readOnly) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("LANG", "C.UTF-8");
    env.put("TZ", "UTC");
    return new WallSpec(JAVA_HOME, List.of(readOnly), env, 256, 1L << 20, 0, 200, weak);
  }

  private List<String> worker(Path... classPath) {
    List<String> c = new ArrayList<>(List.of(JAVA, "-Xmx256m", "-cp",
        String.join(":", List.of(classPath).stream().map(Path::toString).toList()), WalledMain.class.getName(), MAIN,
        "-cp", "not-a-class-path", "--flag"));
    return c;
  }

  private Path jar() throws IOException {
    return Files.writeString(dir.resolve("worker.jar"), "not really a jar");
  }

  @Test
  void theFullWall_holdsEveryLayer_inOrder() throws IOException {
    Path jar = jar();
    List<String> c = WallCommand.command(worker(jar), spec(false, jar), HOST, null);
    int env = c.indexOf("/usr/bin/env");
    int prlimit = c.indexOf("/usr/bin/prlimit");
    int bwrap = c.indexOf("/usr/bin/bwrap");
    int java = c.indexOf(JAVA);
    assertThat(List.of(env, prlimit, bwrap, java)).as("env -i, prlimit, bwrap, java").isSorted().doesNotContain(-1);
    assertThat(c.get(env + 1)).isEqualTo("-i");
    assertThat(c.subList(prlimit, bwrap)).containsExactly("/usr/bin/prlimit", "--nofile=256:256", "--fsize=1048576:1048576",
        "--core=0:0", "--nproc=200:200", "--");
    List<String> b = c.subList(bwrap, java);
    assertThat(b).contains("--unshare-all", "--unshare-user", "--unshare-cgroup", "--disable-userns", "--die-with-parent",
        "--new-session", "--clearenv");
    assertThat(b).containsSubsequence("--cap-drop", "ALL").containsSubsequence("--hostname", WallCommand.HOSTNAME)
        .containsSubsequence("--size", "1048576", "--tmpfs", "/tmp").containsSubsequence("--proc", "/proc", "--remount-ro", "/proc")
        .containsSubsequence("--dev", "/dev").containsSubsequence("--chdir", "/tmp")
        .containsSubsequence("--remount-ro", "/", "--");
    assertThat(b.get(b.size() - 1)).isEqualTo("--");
    assertThat(b).as("never a writable or device bind").doesNotContain("--bind", "--bind-try", "--dev-bind",
        "--dev-bind-try", "--share-net", "--unshare-user-try", "--unshare-cgroup-try");
    assertThat(c.subList(java, c.size())).containsExactly(JAVA, WallCommand.NATIVE_ACCESS, "-Dpolyglotsandbox.wall=strict",
        "-Xmx256m", "-cp", jar.toString(), WalledMain.class.getName(), MAIN, "-cp", "not-a-class-path", "--flag");
  }

  @Test
  void readOnlyPaths_theJdkAndTheSystemLibraries_areBoundReadOnlyAtTheirOwnPaths() throws IOException {
    Path jar = jar();
    Path data = Files.createDirectory(dir.resolve("graalpy-home"));
    List<String> c = WallCommand.command(worker(jar), spec(false, jar, data), HOST, null);
    List<String> binds = binds(c);
    assertThat(binds).contains(jar.toString(), data.toString(), JAVA_HOME.toString());
    for (int i = 0; i < c.size(); i++) {
      if (c.get(i).equals("--ro-bind") && c.get(i + 1).equals("/dev/null")) {
        assertThat(c.get(i + 2)).as("only /proc files are masked").startsWith("/proc/");
      } else if (c.get(i).equals("--ro-bind")) {
        assertThat(c.get(i + 2)).as("bound at its own path").isEqualTo(c.get(i + 1));
      }
    }
    assertThat(binds).as("glibc").anyMatch(p -> Files.exists(Path.of(p, "libc.so.6")));
    // Binds under /tmp must land on the private tmpfs, so the tmpfs comes first.
    assertThat(c.indexOf("--tmpfs")).isLessThan(c.indexOf("--ro-bind"));
  }

  @Test
  void procIsReadOnly_andItsKernelRevealingFilesAreMasked() throws IOException {
    Path jar = jar();
    List<String> c = WallCommand.command(worker(jar), spec(false, jar), HOST, null);
    assertThat(c).containsSubsequence("--proc", "/proc", "--remount-ro", "/proc");
    for (String f : List.of("kallsyms", "kcore", "keys", "timer_list", "slabinfo")) {
      if (Files.exists(Path.of("/proc", f))) {
        assertThat(c).containsSubsequence("--ro-bind", "/dev/null", "/proc/" + f);
      }
    }
    assertThat(c.indexOf("/proc/kallsyms")).as("after /proc is mounted").isGreaterThan(c.indexOf("--proc"));
  }

  @Test
  void neitherTheHostsHomeNorTheProjectDirectory_isBound() throws IOException {
    Path jar = jar();
    Path home = Path.of(System.getProperty("user.home"));
    Path project = Path.of("").toAbsolutePath();
    for (String bound : binds(WallCommand.command(worker(jar), spec(false, jar), HOST, null))) {
      assertThat(home.startsWith(Path.of(bound))).as("%s holds the home %s", bound, home).isFalse();
      assertThat(project.startsWith(Path.of(bound))).as("%s holds the project %s", bound, project).isFalse();
    }
  }

  @Test
  void theEnvironment_isClearedTwice_andHoldsOnlyTheSpecsVariables() throws IOException {
    Path jar = jar();
    List<String> c = WallCommand.command(worker(jar), spec(false, jar), HOST, null);
    int clear = c.indexOf("--clearenv");
    List<String> set = new ArrayList<>();
    for (int i = 0; i < c.size(); i++) {
      if (c.get(i).equals("--setenv")) {
        assertThat(i).isGreaterThan(clear);
        set.add(c.get(i + 1) + "=" + c.get(i + 2));
      }
    }
    assertThat(set).containsExactly("LANG=C.UTF-8", "TZ=UTC");
    // env -i before bwrap: bwrap's own reaper is PID 1 inside, and a worker can read /proc/1/environ.
    assertThat(c.subList(0, 2)).containsExactly("/usr/bin/env", "-i");
    assertThat(c).doesNotContain("--unsetenv");
  }

  @Test
  void aWeakWall_isThePlainJavaCommand_withRlimitsAndOnlyTheSpecsEnvironment() throws IOException {
    Path jar = jar();
    List<String> command = new ArrayList<>(List.of(JAVA, "-cp", jar.toString(), MAIN, "arg"));
    List<String> c = WallCommand.command(command, spec(true), HOST, null);
    assertThat(c).containsExactly("/usr/bin/env", "-i", "LANG=C.UTF-8", "TZ=UTC", "/usr/bin/prlimit", "--nofile=256:256",
        "--fsize=1048576:1048576", "--core=0:0", "--nproc=200:200", "--", JAVA, WallCommand.NATIVE_ACCESS,
        "-Dpolyglotsandbox.wall=weak", "-cp", jar.toString(), MAIN, "arg");
    assertThat(c).doesNotContain("/usr/bin/bwrap");
  }

  @Test
  void aWeakWall_withoutPrlimit_stillClearsTheEnvironment() throws IOException {
    Path jar = jar();
    OsWall.Host macLike = new OsWall.Host(HOST.report(), null, Set.of(), null, Path.of("/usr/bin/env"), Path.of("/bin/sh"),
        HOST.cgroups(), List.of());
    assertThat(WallCommand.command(List.of(JAVA, "-cp", jar.toString(), MAIN), spec(true), macLike, null))
        .containsExactly("/usr/bin/env", "-i", "LANG=C.UTF-8", "TZ=UTC", JAVA, WallCommand.NATIVE_ACCESS,
            "-Dpolyglotsandbox.wall=weak", "-cp", jar.toString(), MAIN);
  }

  @Test
  void aClassDirectoryWithJdk22Classes_getsThemAheadOfIt() throws IOException {
    Path classes = Files.createDirectories(dir.resolve("classes"));
    Path versioned = Files.createDirectories(classes.resolve("META-INF/versions/22"));
    Path jar = jar();
    List<String> c = WallCommand.command(worker(classes, jar), spec(false, classes, jar), HOST, null);
    assertThat(c).containsSubsequence("-cp", versioned + ":" + classes + ":" + jar, WalledMain.class.getName());
    assertThat(c).as("the worker's own arguments are left alone").endsWith(MAIN, "-cp", "not-a-class-path", "--flag");
  }

  /** The cgroup join script, run for real on files that stand in for cgroup.procs. */
  @Test
  void theCgroupScript_writesTheWorkersPidIntoEachSlot_thenRunsIt() throws Exception {
    Path a = dir.resolve("a.procs");
    Path b = dir.resolve("b.procs");
    Process p = new ProcessBuilder("/bin/sh", "-c", WallCommand.JOIN_CGROUPS, "polyglot-sandbox-cgroup", "2", a.toString(),
        b.toString(), "/bin/sh", "-c", "echo $$").redirectErrorStream(true).start();
    String pid = new String(p.getInputStream().readAllBytes()).strip();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(pid).isEqualTo(String.valueOf(p.pid()));
    assertThat(Files.readString(a).strip()).isEqualTo(pid);
    assertThat(Files.readString(b).strip()).isEqualTo(pid);

    Process refused = new ProcessBuilder("/bin/sh", "-c", WallCommand.JOIN_CGROUPS, "polyglot-sandbox-cgroup", "1",
        dir.resolve("missing/cgroup.procs").toString(), "/bin/echo", "ran").redirectErrorStream(true).start();
    String out = new String(refused.getInputStream().readAllBytes());
    assertThat(refused.waitFor()).isEqualTo(WallCommand.WALL_FAILED);
    assertThat(out).doesNotContain("ran").contains("polyglot-sandbox wall: cannot join the cgroup");
  }

  @Test
  void aCommandThatDoesNotRunTheSpecsJdk_isRejected() throws IOException {
    Path jar = jar();
    List<String> other = new ArrayList<>(worker(jar));
    other.set(0, "/usr/bin/java");
    assertThatThrownBy(() -> WallCommand.wrap(other, spec(false, jar), HOST)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/usr/bin/java").hasMessageContaining(JAVA);
    assertThatThrownBy(() -> WallCommand.wrap(List.of(), spec(false, jar), HOST)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
  }

  @Test
  void aStrictWallWithoutWalledMain_isRejected() throws IOException {
    Path jar = jar();
    assertThatThrownBy(() -> WallCommand.wrap(List.of(JAVA, "-cp", jar.toString(), MAIN), spec(false, jar), HOST))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(MAIN).hasMessageContaining("WalledMain");
  }

  @Test
  void aClassPathEntryOutsideTheReadOnlyPaths_isRejected() throws IOException {
    Path jar = jar();
    Path other = Files.writeString(dir.resolve("other.jar"), "x");
    assertThatThrownBy(() -> WallCommand.wrap(worker(jar, other), spec(false, jar), HOST))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(other.toString());
    assertThatThrownBy(() -> WallCommand.wrap(worker(jar, Path.of("relative.jar")), spec(false, jar), HOST))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("relative.jar is relative");
  }

  @Test
  void aReadOnlyPathThatDoesNotExist_isRejected() throws IOException {
    Path jar = jar();
    Path gone = dir.resolve("gone");
    assertThatThrownBy(() -> WallCommand.wrap(worker(jar), spec(false, jar, gone), HOST))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("read-only path " + gone + " does not exist");
  }

  @Test
  void aStrictWallOnAHostThatLacksALayer_isRefused_namingWhatIsMissing() throws IOException {
    Path jar = jar();
    OsWall.Report lacking = new OsWall.Report(List.of(new OsWall.Layer(OsWall.BWRAP, false, "missing: apt-get install bubblewrap"),
        new OsWall.Layer(OsWall.NAMESPACES, false, "missing: needs bwrap"), new OsWall.Layer(OsWall.SECCOMP, true, "ok"),
        new OsWall.Layer(OsWall.RLIMITS, true, "ok")));
    OsWall.Host h = new OsWall.Host(lacking, null, Set.of(), Path.of("/usr/bin/prlimit"), Path.of("/usr/bin/env"),
        Path.of("/bin/sh"), HOST.cgroups(), List.of());
    assertThat(lacking.full()).isFalse();
    assertThat(lacking.missing()).isEqualTo("The worker's wall lacks bwrap (missing: apt-get install bubblewrap);"
        + " namespaces (missing: needs bwrap).");
    assertThatThrownBy(() -> WallCommand.wrap(worker(jar), spec(false, jar), h)).isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(lacking.missing()).hasMessageContaining("weak");
    assertThat(WallCommand.wrap(List.of(JAVA, "-cp", jar.toString(), MAIN), spec(true), h).command()).doesNotContain("/usr/bin/bwrap");
  }

  @Test
  void aMemoryLimitWhereNoMemoryCgroupCanBeMade_isRefused() throws IOException {
    Path jar = jar();
    WallSpec limited = new WallSpec(JAVA_HOME, List.of(jar), Map.of(), 256, 1L << 20, 256L << 20, 0, false);
    assertThatThrownBy(() -> WallCommand.wrap(worker(jar), limited, HOST)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cgroupMemoryBytes is 268435456").hasMessageContaining("missing: no memory");
  }

  @Test
  void badSpecs_areRejected_namingTheValue() {
    List<Path> none = List.of();
    Map<String, String> env = Map.of();
    assertThatThrownBy(() -> new WallSpec(Path.of("jdk"), none, env, 256, 1, 0, 0, false)).hasMessageContaining("javaHome (jdk)");
    assertThatThrownBy(() -> new WallSpec(JAVA_HOME, List.of(Path.of("/")), env, 256, 1, 0, 0, false))
        .hasMessageContaining("read-only path (/) is the root");
    assertThatThrownBy(() -> new WallSpec(JAVA_HOME, List.of(Path.of("/proc/1/root")), env, 256, 1, 0, 0, false))
        .hasMessageContaining("(/proc/1/root) is under /proc");
    assertThatThrownBy(() -> new WallSpec(JAVA_HOME, List.of(Path.of("lib.jar")), env, 256, 1, 0, 0, false))
        .hasMessageContaining("(lib.jar) must be an absolute path");
    assertThatThrownBy(() -> new WallSpec(JAVA_HOME, none, Map.of("A=B", "c"), 256, 1, 0, 0, false))
        .hasMessageContaining("name (A=B)");
    assertThatThrownBy(() -> new WallSpec(JAVA_HOME, none, env, 10, 1, 0, 0, false)).hasMessageContaining("maxOpenFiles (10)");
    assertThatThrownBy(() -> new WallSpec(JAVA_HOME, none, env, 256, 0, 0, 0, false)).hasMessageContaining("maxFileBytes (0)");
    assertThatThrownBy(() -> new WallSpec(JAVA_HOME, none, env, 256, 1, 1000, 0, false))
        .hasMessageContaining("cgroupMemoryBytes (1000)");
    assertThatThrownBy(() -> new WallSpec(JAVA_HOME, none, env, 256, 1, 0, 5, false)).hasMessageContaining("maxTasks (5)");
    assertThatThrownBy(() -> new WallSpec(JAVA_HOME, none, env, 256, 1, 0, -1, false)).hasMessageContaining("maxTasks (-1)");
  }

  @Test
  void theMainClass_isFoundPastOptionsThatTakeAValue() {
    assertThat(WallCommand.mainIndex(List.of(JAVA, "-cp", "a", "--add-opens", "x/y=ALL-UNNAMED", "-Dk=v", "Main", "-cp")))
        .isEqualTo(6);
    assertThat(WallCommand.mainIndex(List.of(JAVA, "-jar", "app.jar"))).isEqualTo(2);
    assertThat(WallCommand.mainIndex(List.of(JAVA, "-version"))).isEqualTo(-1);
  }

  /** The source paths of every --ro-bind in a command. */
  private static List<String> binds(List<String> c) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < c.size(); i++) {
      if (c.get(i).equals("--ro-bind") && !c.get(i + 1).equals("/dev/null")) {
        out.add(c.get(i + 1));
      }
    }
    return out;
  }
}
