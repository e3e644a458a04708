package org.polyglotsandbox;

import java.io.IOException;

/** {@link ForkedJvm} for tests in other packages. */
public final class ForkedJvmAccess {
  private ForkedJvmAccess() {}

  /** A forked JVM still running; see {@link ForkedJvm.Running}. */
  public record Running(Process process, java.nio.file.Path log) {
    public String output() throws IOException {
      return java.nio.file.Files.readString(log, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  public static Running start(Class<?> mainClass, String heap, String... args) throws IOException {
    ForkedJvm.Running r = ForkedJvm.start(mainClass, heap, args);
    return new Running(r.process(), r.log());
  }
}
