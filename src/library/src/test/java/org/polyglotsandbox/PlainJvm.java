package org.polyglotsandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A fresh JVM started as an embedder's would be: the test's JDK and class path, and only the JVM options
 * given (unlike {@link ForkedJvm}, none of this JVM's JIT wiring is passed on).
 */
final class PlainJvm {
  record Result(int exitStatus, String stdout, String stderr) {}

  private PlainJvm() {}

  static Result run(Path workingDirectory, String classPath, List<String> jvmOptions, String mainClass, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath);
    command.add(mainClass);
    command.addAll(List.of(args));
    Path out = Files.createTempFile("plain-jvm", ".out");
    Path err = Files.createTempFile("plain-jvm", ".err");
    try {
      Process p = new ProcessBuilder(command).directory(workingDirectory.toFile())
          .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly().waitFor();
        throw new AssertionError("did not finish in 5 minutes: " + command + "\n" + Files.readString(err));
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** This JVM's class path: the library, its dependencies and the tests' classes. */
  static String classPath() {
    return System.getProperty("java.class.path");
  }

  /** The project's root directory (holding README.md), found upwards from the working directory. */
  static Path projectRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("guest-samples"))) {
        return p;
      }
    }
    throw new AssertionError("no project root above " + Path.of("").toAbsolutePath());
  }
}
