package org.polyglotsandbox.internal.isolation;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;

/**
 * The main class of a walled worker JVM: installs the seccomp filter ({@link SeccompFilter}) on every
 * thread of the JVM, then runs the real main class. Usage: {@code WalledMain <main class> <args...>}.
 *
 * <p>The system property {@code polyglotsandbox.wall} (set by {@link WallCommand}) says how hard to try:
 * {@code weak} installs the filter where it can and runs the main class either way; anything else, its
 * absence included, is strict: when the filter cannot be installed the JVM prints one line on stderr,
 * starting {@code polyglot-sandbox wall:}, and exits with status 70 before any of the main class's code
 * runs. The JVM needs {@code --enable-native-access=ALL-UNNAMED} (added by {@link WallCommand}).
 *
 * <p>The filter is in place before the main class is loaded: its static initialisers run under it.
 */
public final class WalledMain {
  private WalledMain() {}

  /**
   * Installs the filter and calls {@code args[0]}'s {@code public static void main(String[])} with the
   * rest of {@code args}; what that main throws propagates.
   */
  public static void main(String[] args) throws Throwable {
    if (args.length == 0) {
      fail("usage: WalledMain <main class> <args...>", 64);
    }
    boolean weak = "weak".equals(System.getProperty(WallCommand.WALL_PROPERTY));
    try {
      NativeSeccomp.install(SeccompFilter.denylist().toBytes());
    } catch (RuntimeException e) {
      if (!weak) {
        fail("cannot install the seccomp filter: " + e.getMessage(), WallCommand.WALL_FAILED);
      }
    }
    MethodHandle main;
    try {
      Class<?> c = Class.forName(args[0], false, ClassLoader.getSystemClassLoader());
      main = MethodHandles.publicLookup().findStatic(c, "main", MethodType.methodType(void.class, String[].class));
    } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException e) {
      fail("no public static void main(String[]) in " + args[0] + " (" + e + ")", 64);
      return;
    }
    main.invokeExact(Arrays.copyOfRange(args, 1, args.length));
  }

  private static void fail(String message, int status) {
    System.err.println("polyglot-sandbox wall: " + message.replace('\n', ' '));
    System.err.flush();
    System.exit(status);
  }
}
