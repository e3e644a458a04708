package org.polyglotsandbox.internal.isolation;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * Installs a seccomp program in this JVM through the foreign function API (JDK 22+): libc's
 * {@code syscall(2)} for {@code prctl(PR_SET_NO_NEW_PRIVS)} and then
 * {@code seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC)}, so that the filter holds on every
 * thread the JVM already runs (compiler, GC, signal dispatcher, ...) as well as on every later one.
 *
 * <p>The JVM must run with {@code --enable-native-access=ALL-UNNAMED} (class path) or
 * {@code --enable-native-access=org.polyglotsandbox} (module path); without it, JDK 22 to 25 print a warning
 * on the first call and a later JDK refuses it.
 */
final class NativeSeccomp {
  private static final long SYS_PRCTL = 157;
  private static final long SYS_SECCOMP = 317;
  private static final long PR_SET_NO_NEW_PRIVS = 38;
  private static final long SECCOMP_SET_MODE_FILTER = 1;
  private static final long SECCOMP_FILTER_FLAG_TSYNC = 1;

  private NativeSeccomp() {}

  /** Whether {@link #install} can work in this JVM: on x86_64 Linux. */
  static boolean available() {
    return unavailableReason().isEmpty();
  }

  /** Why {@link #install} cannot work here, in one sentence; empty when it can. */
  static String unavailableReason() {
    String os = System.getProperty("os.name", "");
    String arch = System.getProperty("os.arch", "");
    if (!os.equals("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      return "seccomp filters are built for x86_64 Linux only (this is " + os + " on " + arch + ")";
    }
    return "";
  }

  /**
   * Sets {@code no_new_privs} and installs {@code program} (8-byte {@code struct sock_filter}s) on every
   * thread of this JVM.
   *
   * @throws UnsupportedOperationException when {@link #available()} is false
   * @throws IllegalStateException when the kernel refuses, with its error
   */
  @SuppressWarnings("restricted") // the reason this class exists; the worker runs with --enable-native-access
  static void install(byte[] program) {
    String reason = unavailableReason();
    if (!reason.isEmpty()) {
      throw new UnsupportedOperationException(reason);
    }
    if (program.length == 0 || program.length % 8 != 0 || program.length / 8 > 4096) {
      throw new IllegalArgumentException("a seccomp program is 1 to 4096 8-byte instructions, not " + program.length + " bytes");
    }
    Linker linker = Linker.nativeLinker();
    MemorySegment syscall = linker.defaultLookup().find("syscall")
        .orElseThrow(() -> new IllegalStateException("libc has no syscall(2) symbol"));
    Linker.Option errno = Linker.Option.captureCallState("errno");
    StructLayout stateLayout = Linker.Option.captureStateLayout();
    VarHandle errnoOf = stateLayout.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    // syscall(long number, ...): everything after the number is variadic. One handle for both calls (each
    // handle costs some 15 ms of class generation at start-up); all six argument registers are passed,
    // because prctl(PR_SET_NO_NEW_PRIVS) fails unless its unused arguments are zero.
    MethodHandle call = linker.downcallHandle(syscall,
        FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
        Linker.Option.firstVariadicArg(1), errno);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(stateLayout);
      long r = (long) call.invokeExact(state, SYS_PRCTL, PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L);
      if (r != 0) {
        throw new IllegalStateException("prctl(PR_SET_NO_NEW_PRIVS) failed: " + describe((int) errnoOf.get(state, 0L)));
      }
      MemorySegment filter = arena.allocate(program.length, 8);
      MemorySegment.copy(program, 0, filter, JAVA_BYTE, 0, program.length);
      // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
      MemorySegment fprog = arena.allocate(MemoryLayout.structLayout(JAVA_SHORT, MemoryLayout.paddingLayout(6), ADDRESS));
      fprog.set(JAVA_SHORT, 0, (short) (program.length / 8));
      fprog.set(ADDRESS, 8, filter);
      r = (long) call.invokeExact(state, SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, fprog.address(),
          0L, 0L);
      if (r > 0) {
        throw new IllegalStateException("seccomp(SECCOMP_FILTER_FLAG_TSYNC) failed: thread " + r
            + " cannot take the filter");
      }
      if (r != 0) {
        throw new IllegalStateException("seccomp(SECCOMP_SET_MODE_FILTER) failed: " + describe((int) errnoOf.get(state, 0L)));
      }
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("calling libc's syscall(2) failed: " + t, t);
    }
  }

  @SuppressWarnings("restricted")
  private static String describe(int errno) {
    try {
      Linker linker = Linker.nativeLinker();
      MethodHandle strerror = linker.downcallHandle(linker.defaultLookup().find("strerror").orElseThrow(),
          FunctionDescriptor.of(ADDRESS, JAVA_INT));
      MemorySegment s = (MemorySegment) strerror.invokeExact(errno);
      return String.format(Locale.ROOT, "errno %d (%s)", errno, s.reinterpret(256).getString(0));
    } catch (Throwable t) {
      return "errno " + errno;
    }
  }
}
