package org.polyglotsandbox.internal.isolation;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The worker's seccomp program: a classic-BPF denylist for x86_64 Linux, installed by {@link WalledMain}
 * after the JVM has started and before any guest code runs.
 *
 * <p>In order, the program:
 * <ol>
 *   <li>kills the process ({@code SECCOMP_RET_KILL_PROCESS}) on any call whose audit architecture is not
 *       {@code AUDIT_ARCH_X86_64}: the 32-bit entry points ({@code int 0x80}) number their calls
 *       differently and would walk around every rule below;
 *   <li>refuses every x32 call (number with bit 30 set) with {@code EPERM}, for the same reason;
 *   <li>refuses {@code clone} unless it makes a thread ({@code CLONE_THREAD}) and asks for no new
 *       namespace: a worker may start threads, never a process;
 *   <li>answers {@code clone3} with {@code ENOSYS}: its flags sit in memory, out of a filter's reach, and
 *       glibc falls back to {@code clone} on {@code ENOSYS} when it starts a thread;
 *   <li>refuses {@code socket} for every family but {@code AF_UNIX} (the worker talks over its standard
 *       streams; the JVM's attach mechanism uses {@code AF_UNIX});
 *   <li>refuses the terminal-injecting {@code ioctl}s {@code TIOCSTI} and {@code TIOCLINUX};
 *   <li>refuses each call of {@link #deniedCalls()} with {@code EPERM}, and allows everything else.
 * </ol>
 *
 * <p>It is a denylist: a system call added to the kernel after this list was written is allowed. The
 * denied calls are the ones container runtimes refuse by default (Docker's and Podman's profiles) plus
 * {@code ptrace}, {@code process_vm_*}, {@code io_uring_*}, {@code userfaultfd} and the new mount API.
 * Refusals answer with an error number rather than killing the JVM so that the host sees a worker that
 * reports its failure instead of one that vanished.
 */
final class SeccompFilter {
  /** {@code AUDIT_ARCH_X86_64}: {@code EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE}. */
  static final int AUDIT_ARCH_X86_64 = 0xC000003E;
  static final int X32_SYSCALL_BIT = 0x40000000;

  static final int RET_KILL_PROCESS = 0x80000000;
  static final int RET_ERRNO = 0x00050000;
  static final int RET_ALLOW = 0x7FFF0000;
  static final int EPERM = 1;
  static final int ENOSYS = 38;

  static final int NR_IOCTL = 16;
  static final int NR_SOCKET = 41;
  static final int NR_CLONE = 56;
  static final int NR_CLONE3 = 435;

  static final int CLONE_THREAD = 0x00010000;
  /** Every namespace flag {@code clone} accepts in its 32-bit flags word (not {@code CLONE_NEWTIME}, which is clone3-only). */
  static final int CLONE_NAMESPACES = 0x00020000 /* NEWNS */ | 0x02000000 /* NEWCGROUP */ | 0x04000000 /* NEWUTS */
      | 0x08000000 /* NEWIPC */ | 0x10000000 /* NEWUSER */ | 0x20000000 /* NEWPID */ | 0x40000000 /* NEWNET */;
  static final int AF_UNIX = 1;
  static final int TIOCSTI = 0x5412;
  static final int TIOCLINUX = 0x541C;

  /** Offsets into {@code struct seccomp_data}: nr, arch, then six 64-bit arguments (low word first on x86_64). */
  static final int OFFSET_NR = 0;
  static final int OFFSET_ARCH = 4;
  static final int OFFSET_ARG0_LOW = 16;
  static final int OFFSET_ARG1_LOW = 24;

  // Classic BPF opcodes the program uses.
  static final int LD_W_ABS = 0x20;
  static final int JEQ_K = 0x15;
  static final int JGE_K = 0x35;
  static final int JSET_K = 0x45;
  static final int RET_K = 0x06;

  private static final Map<String, Integer> DENIED = deniedTable();

  /** One BPF instruction ({@code struct sock_filter}). */
  record Instruction(int code, int jumpIfTrue, int jumpIfFalse, int k) {
    Instruction {
      if (jumpIfTrue < 0 || jumpIfTrue > 255 || jumpIfFalse < 0 || jumpIfFalse > 255) {
        throw new IllegalArgumentException("jump offsets (" + jumpIfTrue + ", " + jumpIfFalse + ") must be 0..255");
      }
    }
  }

  private final List<Instruction> program;

  private SeccompFilter(List<Instruction> program) {
    this.program = List.copyOf(program);
  }

  /** The worker's denylist. */
  static SeccompFilter denylist() {
    Assembler a = new Assembler();
    a.load(OFFSET_ARCH);
    a.jumpIfEqual(AUDIT_ARCH_X86_64, Assembler.NEXT, "kill");
    a.load(OFFSET_NR);
    a.jumpIfAtLeast(X32_SYSCALL_BIT, "eperm", Assembler.NEXT);
    a.jumpIfEqual(NR_CLONE, "clone", Assembler.NEXT);
    a.jumpIfEqual(NR_CLONE3, "enosys", Assembler.NEXT);
    a.jumpIfEqual(NR_SOCKET, "socket", Assembler.NEXT);
    a.jumpIfEqual(NR_IOCTL, "ioctl", Assembler.NEXT);
    for (int nr : DENIED.values()) {
      a.jumpIfEqual(nr, "eperm", Assembler.NEXT);
    }
    a.ret(RET_ALLOW);

    // The argument checks; classic BPF jumps only forward, so the shared returns come last.
    a.label("clone");
    a.load(OFFSET_ARG0_LOW);
    a.jumpIfAnyBit(CLONE_THREAD, Assembler.NEXT, "eperm");
    a.jumpIfAnyBit(CLONE_NAMESPACES, "eperm", "allow");

    a.label("socket");
    a.load(OFFSET_ARG0_LOW);
    a.jumpIfEqual(AF_UNIX, "allow", "eperm");

    a.label("ioctl");
    a.load(OFFSET_ARG1_LOW);
    a.jumpIfEqual(TIOCSTI, "eperm", Assembler.NEXT);
    a.jumpIfEqual(TIOCLINUX, "eperm", "allow");

    a.label("allow");
    a.ret(RET_ALLOW);
    a.label("eperm");
    a.ret(RET_ERRNO | EPERM);
    a.label("enosys");
    a.ret(RET_ERRNO | ENOSYS);
    a.label("kill");
    a.ret(RET_KILL_PROCESS);
    return new SeccompFilter(a.assemble());
  }

  /** The calls refused outright with {@code EPERM}, by name, with their x86_64 numbers, in the order checked. */
  static Map<String, Integer> deniedCalls() {
    return DENIED;
  }

  List<Instruction> instructions() {
    return program;
  }

  /** The program as the kernel reads it: an array of 8-byte {@code struct sock_filter}, native (little-endian) order. */
  byte[] toBytes() {
    ByteBuffer b = ByteBuffer.allocate(program.size() * 8).order(ByteOrder.LITTLE_ENDIAN);
    for (Instruction i : program) {
      b.putShort((short) i.code()).put((byte) i.jumpIfTrue()).put((byte) i.jumpIfFalse()).putInt(i.k());
    }
    return b.array();
  }

  private static Map<String, Integer> deniedTable() {
    Map<String, Integer> m = new LinkedHashMap<>();
    // Starting another program or process: the worker is one JVM and nothing else.
    m.put("execve", 59);
    m.put("execveat", 322);
    m.put("fork", 57);
    m.put("vfork", 58);
    // Reaching into other processes.
    m.put("ptrace", 101);
    m.put("process_vm_readv", 310);
    m.put("process_vm_writev", 311);
    m.put("process_madvise", 440);
    m.put("pidfd_getfd", 438);
    m.put("kcmp", 312);
    // Namespaces and mounts: the wall bwrap built stays as built.
    m.put("unshare", 272);
    m.put("setns", 308);
    m.put("mount", 165);
    m.put("umount2", 166);
    m.put("pivot_root", 155);
    m.put("chroot", 161);
    m.put("open_tree", 428);
    m.put("move_mount", 429);
    m.put("fsopen", 430);
    m.put("fsconfig", 431);
    m.put("fsmount", 432);
    m.put("fspick", 433);
    m.put("mount_setattr", 442);
    // Kernel attack surface that a JVM never needs.
    m.put("bpf", 321);
    m.put("userfaultfd", 323);
    m.put("perf_event_open", 298);
    m.put("io_uring_setup", 425);
    m.put("io_uring_enter", 426);
    m.put("io_uring_register", 427);
    m.put("keyctl", 250);
    m.put("add_key", 248);
    m.put("request_key", 249);
    m.put("open_by_handle_at", 304);
    m.put("name_to_handle_at", 303);
    m.put("personality", 135);
    m.put("modify_ldt", 154);
    m.put("uselib", 134);
    m.put("fanotify_init", 300);
    m.put("lookup_dcookie", 212);
    // The machine's state: modules, power, swap, clocks, accounting, log, host names.
    m.put("init_module", 175);
    m.put("finit_module", 313);
    m.put("delete_module", 176);
    m.put("create_module", 174);
    m.put("get_kernel_syms", 177);
    m.put("query_module", 178);
    m.put("kexec_load", 246);
    m.put("kexec_file_load", 320);
    m.put("reboot", 169);
    m.put("swapon", 167);
    m.put("swapoff", 168);
    m.put("acct", 163);
    m.put("quotactl", 179);
    m.put("quotactl_fd", 443);
    m.put("settimeofday", 164);
    m.put("clock_settime", 227);
    m.put("clock_adjtime", 305);
    m.put("adjtimex", 159);
    m.put("syslog", 103);
    m.put("sethostname", 170);
    m.put("setdomainname", 171);
    m.put("iopl", 172);
    m.put("ioperm", 173);
    m.put("vhangup", 153);
    m.put("nfsservctl", 180);
    m.put("_sysctl", 156);
    m.put("ustat", 136);
    m.put("sysfs", 139);
    // NUMA placement that reaches other processes' memory (Docker allows it only with CAP_SYS_NICE).
    m.put("mbind", 237);
    m.put("set_mempolicy", 238);
    m.put("migrate_pages", 256);
    m.put("move_pages", 279);
    // Unimplemented entry points that still have numbers.
    m.put("afs_syscall", 183);
    m.put("tuxcall", 184);
    m.put("security", 185);
    m.put("getpmsg", 181);
    m.put("putpmsg", 182);
    m.put("vserver", 236);
    return Collections.unmodifiableMap(m);
  }

  /** A two-pass assembler: jumps name labels, resolved to forward offsets (classic BPF jumps only forward). */
  private static final class Assembler {
    static final String NEXT = "";
    private record Pending(int code, String ifTrue, String ifFalse, int k) {}

    private final List<Pending> pending = new ArrayList<>();
    private final Map<String, Integer> labels = new HashMap<>();

    void label(String name) {
      if (labels.putIfAbsent(name, pending.size()) != null) {
        throw new IllegalStateException("label " + name + " defined twice");
      }
    }

    void load(int offset) {
      pending.add(new Pending(LD_W_ABS, NEXT, NEXT, offset));
    }

    void jumpIfEqual(int k, String ifTrue, String ifFalse) {
      pending.add(new Pending(JEQ_K, ifTrue, ifFalse, k));
    }

    void jumpIfAtLeast(int k, String ifTrue, String ifFalse) {
      pending.add(new Pending(JGE_K, ifTrue, ifFalse, k));
    }

    void jumpIfAnyBit(int k, String ifTrue, String ifFalse) {
      pending.add(new Pending(JSET_K, ifTrue, ifFalse, k));
    }

    void ret(int action) {
      pending.add(new Pending(RET_K, NEXT, NEXT, action));
    }

    List<Instruction> assemble() {
      List<Instruction> out = new ArrayList<>(pending.size());
      for (int pc = 0; pc < pending.size(); pc++) {
        Pending p = pending.get(pc);
        out.add(new Instruction(p.code(), offset(pc, p.ifTrue()), offset(pc, p.ifFalse()), p.k()));
      }
      return out;
    }

    private int offset(int pc, String label) {
      if (label.equals(NEXT)) {
        return 0;
      }
      Integer target = labels.get(label);
      if (target == null) {
        throw new IllegalStateException("jump to undefined label " + label);
      }
      int offset = target - pc - 1;
      if (offset < 0) {
        throw new IllegalStateException("backward jump to " + label + " at " + pc);
      }
      return offset;
    }
  }
}
