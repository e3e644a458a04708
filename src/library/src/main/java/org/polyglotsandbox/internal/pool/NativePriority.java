package org.polyglotsandbox.internal.pool;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Optional;

/**
 * Raises a thread's nice value (lowers its scheduling priority) through the C library: {@code gettid}
 * and {@code setpriority}, called with the Foreign Function API. Available on Linux, on Java 22 or later,
 * and only where the JVM grants this library native access ({@code --enable-native-access}); elsewhere
 * {@link #whyUnavailable()} says why and nothing is called, so the JDK never prints its restricted-method
 * warning on an embedder's console. The library is compiled for Java 21, where that API is a preview, so
 * it is reached through reflection once, here; the two calls themselves are plain method handles.
 *
 * <p>An unprivileged process may raise a thread's nice value but never lower it again, and a thread
 * started by a thread inherits its nice value: what a caller lowers stays lowered.
 */
final class NativePriority {
  /** setpriority's "which" for a single thread (Linux treats a thread id as a process id here). */
  private static final int PRIO_PROCESS = 0;

  private static final NativePriority INSTANCE = load();

  private final MethodHandle gettid;
  private final MethodHandle setpriority;
  private final String unavailable;

  private NativePriority(MethodHandle gettid, MethodHandle setpriority, String unavailable) {
    this.gettid = gettid;
    this.setpriority = setpriority;
    this.unavailable = unavailable;
  }

  static NativePriority get() {
    return INSTANCE;
  }

  /** Why threads' priorities cannot be lowered here, or null if they can. */
  String whyUnavailable() {
    return unavailable;
  }

  /** The calling thread's kernel thread id, or -1 if unavailable. */
  int currentThreadId() {
    if (unavailable != null) {
      return -1;
    }
    try {
      return (int) gettid.invokeExact();
    } catch (Throwable e) {
      return -1;
    }
  }

  /**
   * Sets thread {@code tid}'s nice value to {@code nice}, which must not be below its current one.
   *
   * @return whether the kernel did it
   */
  boolean setNice(int tid, int nice) {
    if (unavailable != null || tid <= 0) {
      return false;
    }
    try {
      return (int) setpriority.invokeExact(PRIO_PROCESS, tid, nice) == 0;
    } catch (Throwable e) {
      return false;
    }
  }

  private static NativePriority load() {
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
      return unavailable("the operating system is not Linux");
    }
    if (Runtime.version().feature() < 22) {
      return unavailable("Java " + Runtime.version().feature() + " has no final Foreign Function API (22 or later)");
    }
    try {
      Module module = NativePriority.class.getModule();
      if (!(boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(module)) {
        return unavailable("the JVM does not grant polyglot-sandbox native access (--enable-native-access="
            + (module.isNamed() ? module.getName() : "ALL-UNNAMED") + ")");
      }
      Class<?> linkerType = Class.forName("java.lang.foreign.Linker");
      Class<?> lookupType = Class.forName("java.lang.foreign.SymbolLookup");
      Class<?> layoutType = Class.forName("java.lang.foreign.MemoryLayout");
      Class<?> descriptorType = Class.forName("java.lang.foreign.FunctionDescriptor");
      Class<?> segmentType = Class.forName("java.lang.foreign.MemorySegment");
      Class<?> optionType = Class.forName("java.lang.foreign.Linker$Option");
      Object linker = linkerType.getMethod("nativeLinker").invoke(null);
      Object lookup = linkerType.getMethod("defaultLookup").invoke(linker);
      Object javaInt = Class.forName("java.lang.foreign.ValueLayout").getField("JAVA_INT").get(null);
      Method descriptorOf = descriptorType.getMethod("of", layoutType, layoutType.arrayType());
      Method find = lookupType.getMethod("find", String.class);
      Method downcall = linkerType.getMethod("downcallHandle", segmentType, descriptorType, optionType.arrayType());
      Object noOptions = Array.newInstance(optionType, 0);

      Object[] threeInts = (Object[]) Array.newInstance(layoutType, 3);
      java.util.Arrays.fill(threeInts, javaInt);
      Optional<?> gettid = (Optional<?>) find.invoke(lookup, "gettid");
      Optional<?> setpriority = (Optional<?>) find.invoke(lookup, "setpriority");
      if (gettid.isEmpty() || setpriority.isEmpty()) {
        return unavailable("the C library has no " + (gettid.isEmpty() ? "gettid" : "setpriority"));
      }
      MethodHandle tid = (MethodHandle) downcall.invoke(linker, gettid.get(),
          descriptorOf.invoke(null, javaInt, Array.newInstance(layoutType, 0)), noOptions);
      MethodHandle nice = (MethodHandle) downcall.invoke(linker, setpriority.get(),
          descriptorOf.invoke(null, javaInt, threeInts), noOptions);
      return new NativePriority(tid, nice, null);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      Throwable cause = e instanceof java.lang.reflect.InvocationTargetException t && t.getCause() != null ? t.getCause() : e;
      return unavailable("the Foreign Function API refused: " + cause);
    }
  }

  private static NativePriority unavailable(String why) {
    return new NativePriority(null, null, why);
  }
}
