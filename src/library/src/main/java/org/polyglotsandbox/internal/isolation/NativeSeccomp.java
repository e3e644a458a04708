package org.polyglotsandbox.internal.isolation;

/**
 * Installs a seccomp program in this JVM: the JDK 21 stand-in, which cannot. The working class is the
 * JDK 22 one under {@code META-INF/versions/22} of the library's multi-release jar (source set
 * {@code src/main/java22}), built on the foreign function API, which is final from JDK 22 on.
 *
 * <p>This class is loaded instead when the JVM is older than 22, when the library was built by a JDK
 * older than 22 (the build then has no JDK 22 class to add), or when the library is on the class path as
 * a directory (a build's {@code target/classes}): the JVM reads {@code META-INF/versions} only inside a
 * jar, which is why {@link WallCommand} puts such a directory's {@code META-INF/versions/22} ahead of it.
 */
final class NativeSeccomp {
  private NativeSeccomp() {}

  /** Whether {@link #install} can work in this JVM: never, for this class. */
  static boolean available() {
    return false;
  }

  /** Why {@link #install} cannot work here, in one sentence. */
  static String unavailableReason() {
    int feature = Runtime.version().feature();
    if (feature < 22) {
      return "seccomp needs JDK 22 or newer for the foreign function API (this is JDK " + feature + ")";
    }
    return "seccomp needs the JDK 22 class of " + NativeSeccomp.class.getName()
        + ", which was not loaded: the library is on the class path as a directory, not as its multi-release jar"
        + " (put its META-INF/versions/22 ahead of it), or it was built by a JDK older than 22";
  }

  /**
   * Sets {@code no_new_privs} and installs {@code program} on every thread of this JVM.
   *
   * @throws UnsupportedOperationException always, with {@link #unavailableReason()}
   */
  static void install(byte[] program) {
    throw new UnsupportedOperationException(unavailableReason());
  }
}
