package org.polyglotsandbox.internal.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a worker's cgroup goes: this JVM's own cgroup found from {@code /proc/self/cgroup} and
 * {@code mountinfo} (on stand-in files, fast), and a real slot's life on this host (slow).
 */
class CgroupSlotTest {
  @TempDir
  Path dir;

  private Path proc(String cgroup, String... mountinfo) throws IOException {
    Path proc = Files.createDirectories(dir.resolve("proc"));
    Files.writeString(proc.resolve("cgroup"), cgroup);
    Files.write(proc.resolve("mountinfo"), List.of(mountinfo));
    return proc;
  }

  @Test
  void v1_findsEachControllersHierarchy_underItsMountPoint() throws IOException {
    Path memory = Files.createDirectories(dir.resolve("cg/memory/process_api/abc"));
    Path pids = Files.createDirectories(dir.resolve("cg/pids"));
    Path proc = proc("9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n1:cpu,cpuacct:/\n0::/\n",
        "30 25 0:26 / " + dir.resolve("cg/memory") + " rw,relatime shared:9 - cgroup cgroup rw,memory",
        "31 25 0:27 / " + dir.resolve("cg/pids") + " rw,relatime - cgroup cgroup rw,pids",
        "32 25 0:28 / /proc rw - proc proc rw");
    CgroupSlot.Place place = CgroupSlot.locate(proc);
    // Stand-in directories have no limit files, so the trial child fails; its message names where it looked.
    assertThat(place.memory()).isNull();
    assertThat(place.whyNoMemory()).startsWith("missing: cannot make a cgroup under " + memory)
        .contains("no memory.limit_in_bytes");
    assertThat(place.whyNoPids()).startsWith("missing: cannot make a cgroup under " + pids).contains("no pids.max");
    try (Stream<Path> left = Files.list(memory)) {
      assertThat(left).as("the trial child is removed").isEmpty();
    }
  }

  @Test
  void v1_aMountOfASubtree_isResolvedAgainstItsRoot() throws IOException {
    Path memory = Files.createDirectories(dir.resolve("ns-memory/abc"));
    Path proc = proc("4:memory:/process_api/abc\n",
        "30 25 0:26 /process_api " + dir.resolve("ns-memory") + " rw - cgroup cgroup rw,memory");
    assertThat(CgroupSlot.locate(proc).whyNoMemory()).contains("under " + memory + " ");
  }

  @Test
  void v2_isUsedOnlyWhereThisJvmsCgroupDelegatesTheController() throws IOException {
    Path own = Files.createDirectories(dir.resolve("unified/user.slice/app"));
    Files.writeString(own.resolve("cgroup.controllers"), "cpu memory pids\n");
    Files.writeString(own.resolve("cgroup.subtree_control"), "pids\n");
    Path proc = proc("0::/user.slice/app\n", "40 25 0:30 / " + dir.resolve("unified") + " rw - cgroup2 cgroup2 rw");
    CgroupSlot.Place place = CgroupSlot.locate(proc);
    assertThat(place.whyNoMemory()).contains(own + " does not delegate memory").contains("Delegate=yes");
    assertThat(place.whyNoPids()).startsWith("missing: cannot make a cgroup under " + own).contains("no pids.max");
  }

  @Test
  void aHostWithoutTheController_saysHowToGetIt() throws IOException {
    Path proc = proc("0::/\n", "32 25 0:28 / /proc rw - proc proc rw");
    CgroupSlot.Place place = CgroupSlot.locate(proc);
    assertThat(place.memory()).isNull();
    assertThat(place.whyNoMemory()).startsWith("missing: no cgroup memory controller is mounted");
  }

  /** A real slot on this host: limits written, a task put in by the join script, killed and removed by close. */
  @Test
  @Tag("slow")
  void close_killsWhatIsLeftInTheSlot_andRemovesIt() throws Exception {
    OsWall.Host host = OsWall.host();
    assertThat(host.report().cgroupMemory() && host.report().cgroupPids()).as(host.report().missing()).isTrue();
    CgroupSlot slot = CgroupSlot.create(host.cgroups(), 128L << 20, 50);
    List<Path> dirs = slot.procsFiles().stream().map(Path::getParent).toList();
    assertThat(dirs).hasSize(host.cgroups().memory().parent().equals(host.cgroups().pids().parent()) ? 1 : 2);
    Path memory = dirs.get(0);
    assertThat(Files.readString(memory.resolve(host.cgroups().memory().v2() ? "memory.max" : "memory.limit_in_bytes")).strip())
        .isEqualTo(String.valueOf(128L << 20));
    assertThat(Files.readString(dirs.get(dirs.size() - 1).resolve("pids.max")).strip()).isEqualTo("50");

    List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", WallCommand.JOIN_CGROUPS, "polyglot-sandbox-cgroup",
        String.valueOf(slot.procsFiles().size())));
    slot.procsFiles().forEach(f -> command.add(f.toString()));
    command.addAll(List.of("sleep", "600"));
    Process p = new ProcessBuilder(command).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!Files.readString(slot.procsFiles().get(0)).contains(String.valueOf(p.pid())) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    for (Path procs : slot.procsFiles()) {
      assertThat(Files.readString(procs).strip()).isEqualTo(String.valueOf(p.pid()));
    }
    slot.close();
    assertThat(p.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(dirs).allSatisfy(d -> assertThat(d).doesNotExist());
    slot.close();
  }
}
