package org.polyglotsandbox.internal.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.polyglotsandbox.internal.isolation.SeccompFilter.RET_ALLOW;
import static org.polyglotsandbox.internal.isolation.SeccompFilter.RET_ERRNO;
import static org.polyglotsandbox.internal.isolation.SeccompFilter.RET_KILL_PROCESS;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The worker's seccomp program, run by a classic-BPF interpreter over {@code struct seccomp_data}: the
 * architecture is checked first, each denied call gets its answer, every other call passes.
 */
class SeccompFilterTest {
  private static final int AUDIT_ARCH_I386 = 0x40000003;
  private static final int AUDIT_ARCH_AARCH64 = 0xC00000B7;
  private static final int EPERM = RET_ERRNO | 1;
  private static final int ENOSYS = RET_ERRNO | 38;
  private static final SeccompFilter FILTER = SeccompFilter.denylist();

  /** What glibc's pthread_create passes to clone. */
  private static final long THREAD_FLAGS = 0x3d0f00;
  /** What glibc's fork passes: SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID. */
  private static final long FORK_FLAGS = 0x1200011;
  /** What posix_spawn (the JDK's process launch) passes: CLONE_VM | CLONE_VFORK | SIGCHLD. */
  private static final long SPAWN_FLAGS = 0x4111;

  @Test
  void theArchitectureIsCheckedFirst_andAnyOtherArchitectureKillsTheProcess() {
    SeccompFilter.Instruction first = FILTER.instructions().get(0);
    assertThat(first.code()).isEqualTo(SeccompFilter.LD_W_ABS);
    assertThat(first.k()).isEqualTo(SeccompFilter.OFFSET_ARCH);
    SeccompFilter.Instruction second = FILTER.instructions().get(1);
    assertThat(second.code()).isEqualTo(SeccompFilter.JEQ_K);
    assertThat(second.k()).isEqualTo(SeccompFilter.AUDIT_ARCH_X86_64);
    // read(2) on i386 is 3, on x86_64 it is 0: numbers from another table must never reach the denylist.
    for (int arch : new int[] {AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64, 0}) {
      assertThat(runOn(arch, 0)).as("read under arch %x", arch).isEqualTo(RET_KILL_PROCESS);
      assertThat(runOn(arch, 11)).as("execve's i386 number under arch %x", arch).isEqualTo(RET_KILL_PROCESS);
    }
  }

  @Test
  void x32SystemCalls_areRefused() {
    assertThat(run(0x40000000 | 59)).isEqualTo(EPERM);
    assertThat(run(0x40000000)).isEqualTo(EPERM);
    assertThat(run(-1)).isEqualTo(EPERM);
  }

  @Test
  void eachDeniedCall_isRefusedWithEperm() {
    assertThat(SeccompFilter.deniedCalls()).hasSizeGreaterThan(60);
    SeccompFilter.deniedCalls().forEach((name, nr) -> assertThat(run(nr)).as(name).isEqualTo(EPERM));
  }

  @Test
  void theCallsTheWallMustDeny_areAllOnTheList() {
    assertThat(SeccompFilter.deniedCalls()).containsKeys("execve", "execveat", "ptrace", "mount", "umount2",
        "pivot_root", "bpf", "keyctl", "add_key", "request_key", "perf_event_open", "kexec_load", "kexec_file_load",
        "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff", "unshare", "setns",
        "userfaultfd", "open_by_handle_at", "name_to_handle_at", "process_vm_readv", "process_vm_writev", "kcmp",
        "io_uring_setup", "io_uring_enter", "io_uring_register", "personality", "acct", "quotactl", "settimeofday",
        "clock_settime", "adjtimex", "syslog", "fork", "vfork");
  }

  /** A wrong number would deny some harmless call and allow the dangerous one: check them against the kernel's header. */
  @Test
  void theDeniedNumbers_matchTheKernelsX8664Table() throws IOException {
    Path header = Path.of("/usr/include/x86_64-linux-gnu/asm/unistd_64.h");
    if (!Files.exists(header)) {
      header = Path.of("/usr/include/asm/unistd_64.h");
    }
    assumeThat(header).as("the kernel's system call header (Debian: linux-libc-dev)").exists();
    Map<String, Integer> kernel = new HashMap<>();
    Matcher m = Pattern.compile("(?m)^#define __NR_(\\w+) (\\d+)$").matcher(Files.readString(header));
    while (m.find()) {
      kernel.put(m.group(1), Integer.parseInt(m.group(2)));
    }
    SeccompFilter.deniedCalls().forEach((name, nr) -> {
      if (kernel.containsKey(name)) {
        assertThat(nr).as(name).isEqualTo(kernel.get(name));
      }
    });
    assertThat(SeccompFilter.deniedCalls().keySet().stream().filter(kernel::containsKey).count())
        .as("names the header knows").isGreaterThan(60);
    assertThat(kernel).containsEntry("clone", SeccompFilter.NR_CLONE).containsEntry("clone3", SeccompFilter.NR_CLONE3)
        .containsEntry("socket", SeccompFilter.NR_SOCKET).containsEntry("ioctl", SeccompFilter.NR_IOCTL);
  }

  @Test
  void everyOtherCall_isAllowed() {
    List<Integer> special = List.of(SeccompFilter.NR_CLONE, SeccompFilter.NR_CLONE3, SeccompFilter.NR_SOCKET, SeccompFilter.NR_IOCTL);
    for (int nr = 0; nr < 600; nr++) {
      if (!SeccompFilter.deniedCalls().containsValue(nr) && !special.contains(nr)) {
        assertThat(run(nr)).as("call %d", nr).isEqualTo(RET_ALLOW);
      }
    }
    assertThat(run(0)).as("read").isEqualTo(RET_ALLOW);
    assertThat(run(9)).as("mmap").isEqualTo(RET_ALLOW);
    assertThat(run(202)).as("futex").isEqualTo(RET_ALLOW);
    assertThat(run(317)).as("seccomp: a worker may only narrow its filter").isEqualTo(RET_ALLOW);
  }

  @Test
  void clone_makesThreads_butNeverProcessesOrNamespaces() {
    assertThat(run(SeccompFilter.NR_CLONE, THREAD_FLAGS)).as("pthread_create").isEqualTo(RET_ALLOW);
    assertThat(run(SeccompFilter.NR_CLONE, 0xFFFFFFFF00000000L | THREAD_FLAGS)).as("high word ignored, as the kernel does")
        .isEqualTo(RET_ALLOW);
    assertThat(run(SeccompFilter.NR_CLONE, FORK_FLAGS)).as("fork").isEqualTo(EPERM);
    assertThat(run(SeccompFilter.NR_CLONE, SPAWN_FLAGS)).as("posix_spawn").isEqualTo(EPERM);
    assertThat(run(SeccompFilter.NR_CLONE, 0)).isEqualTo(EPERM);
    for (long ns : new long[] {0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000}) {
      assertThat(run(SeccompFilter.NR_CLONE, THREAD_FLAGS | ns)).as("thread with namespace flag %x", ns).isEqualTo(EPERM);
    }
  }

  @Test
  void clone3_answersEnosys_soThatGlibcFallsBackToClone() {
    assertThat(run(SeccompFilter.NR_CLONE3, 0)).isEqualTo(ENOSYS);
  }

  @Test
  void socket_opensOnlyUnixSockets() {
    assertThat(run(SeccompFilter.NR_SOCKET, 1)).as("AF_UNIX").isEqualTo(RET_ALLOW);
    for (int family : new int[] {2, 10, 16, 17, 0, 3, 40, 44}) {
      assertThat(run(SeccompFilter.NR_SOCKET, family)).as("family %d", family).isEqualTo(EPERM);
    }
    assertThat(run(SeccompFilter.NR_SOCKET, 0x100000001L)).as("AF_UNIX in the low word").isEqualTo(RET_ALLOW);
  }

  @Test
  void ioctl_refusesTerminalInjection_only() {
    assertThat(run(SeccompFilter.NR_IOCTL, 0, SeccompFilter.TIOCSTI)).isEqualTo(EPERM);
    assertThat(run(SeccompFilter.NR_IOCTL, 0, SeccompFilter.TIOCLINUX)).isEqualTo(EPERM);
    assertThat(run(SeccompFilter.NR_IOCTL, 0, 0x541B)).as("FIONREAD").isEqualTo(RET_ALLOW);
    assertThat(run(SeccompFilter.NR_IOCTL, 0, 0x5401)).as("TCGETS").isEqualTo(RET_ALLOW);
  }

  @Test
  void theProgram_fitsTheKernelsLimits_andEndsInReturns() {
    List<SeccompFilter.Instruction> p = FILTER.instructions();
    assertThat(p.size()).isBetween(1, 4096);
    assertThat(p.get(p.size() - 1).code()).isEqualTo(SeccompFilter.RET_K);
    for (int pc = 0; pc < p.size(); pc++) {
      SeccompFilter.Instruction i = p.get(pc);
      if (i.code() != SeccompFilter.RET_K && i.code() != SeccompFilter.LD_W_ABS) {
        assertThat(pc + 1 + Math.max(i.jumpIfTrue(), i.jumpIfFalse())).as("jump target of %d", pc).isLessThan(p.size());
      }
    }
  }

  @Test
  void toBytes_isTheKernelsLittleEndianSockFilterArray() {
    byte[] bytes = FILTER.toBytes();
    assertThat(bytes).hasSize(FILTER.instructions().size() * 8);
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    for (SeccompFilter.Instruction i : FILTER.instructions()) {
      assertThat(b.getShort() & 0xFFFF).isEqualTo(i.code());
      assertThat(b.get() & 0xFF).isEqualTo(i.jumpIfTrue());
      assertThat(b.get() & 0xFF).isEqualTo(i.jumpIfFalse());
      assertThat(b.getInt()).isEqualTo(i.k());
    }
    assertThat(List.of(bytes[0], bytes[1], bytes[4])).containsExactly((byte) 0x20, (byte) 0, (byte) 4);
  }

  private static int run(int nr, long... args) {
    return runOn(SeccompFilter.AUDIT_ARCH_X86_64, nr, args);
  }

  /** Runs the filter over one {@code struct seccomp_data} (nr, arch, instruction pointer, six arguments). */
  private static int runOn(int arch, int nr, long... args) {
    ByteBuffer data = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
    data.putInt(0, nr).putInt(4, arch).putLong(8, 0x401000L);
    for (int i = 0; i < args.length; i++) {
      data.putLong(16 + 8 * i, args[i]);
    }
    return interpret(FILTER.instructions(), data);
  }

  /** The subset of classic BPF the filter may use; any other opcode fails the test. */
  static int interpret(List<SeccompFilter.Instruction> program, ByteBuffer data) {
    int acc = 0;
    int pc = 0;
    for (int steps = 0; steps <= program.size(); steps++) {
      SeccompFilter.Instruction i = program.get(pc);
      switch (i.code()) {
        case SeccompFilter.LD_W_ABS -> {
          assertThat(i.k() % 4).as("aligned load at %d", pc).isZero();
          assertThat(i.k()).as("load within seccomp_data at %d", pc).isBetween(0, 60);
          acc = data.getInt(i.k());
          pc++;
        }
        case SeccompFilter.JEQ_K -> pc += 1 + (acc == i.k() ? i.jumpIfTrue() : i.jumpIfFalse());
        case SeccompFilter.JGE_K -> pc += 1 + (Integer.compareUnsigned(acc, i.k()) >= 0 ? i.jumpIfTrue() : i.jumpIfFalse());
        case SeccompFilter.JSET_K -> pc += 1 + ((acc & i.k()) != 0 ? i.jumpIfTrue() : i.jumpIfFalse());
        case SeccompFilter.RET_K -> {
          return i.k();
        }
        default -> throw new AssertionError("opcode " + Integer.toHexString(i.code()) + " at " + pc);
      }
      assertThat(pc).as("program counter").isLessThan(program.size());
    }
    throw new AssertionError("the program did not return: a loop");
  }
}
