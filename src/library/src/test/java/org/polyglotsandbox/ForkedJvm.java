package org.polyglotsandbox;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a test main class in a fresh JVM with this JVM's class path and JIT flags. */
public final class ForkedJvm {
  /** What the forked JVM did: whether it finished in time, its exit status and its combined output. */
  public record Result(boolean finished, int exitStatus, String output) {}

  private ForkedJvm() {}

  public static Result run(Class<?> mainClass, String heap, long timeoutMinutes) throws IOException, InterruptedException {
    return run(mainClass, heap, timeoutMinutes, List.of(), List.of());
  }

  /** As {@link #run(Class, String, long)}, with more JVM options before the class and arguments after it. */
  public static Result run(Class<?> mainClass, String heap, long timeoutMinutes, List<String> jvmOptions,
      List<String> args) throws IOException, InterruptedException {
    List<String> command = command(mainClass, heap, jvmOptions);
    command.addAll(args);
    // Output goes to a file, so a hung child can be timed out and a full pipe never stalls it.
    Path log = Files.createTempFile("forked-jvm", ".log");
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      boolean finished = p.waitFor(timeoutMinutes, TimeUnit.MINUTES);
      if (!finished) {
        p.destroyForcibly().waitFor();
      }
      return new Result(finished, finished ? p.exitValue() : -1, Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** A forked JVM still running: its process and the file its output goes to (deleted by the caller). */
  record Running(Process process, Path log) {
    String output() throws IOException {
      return Files.readString(log, StandardCharsets.UTF_8);
    }
  }

  /**
   * Starts {@code mainClass} with {@code args} in a fresh JVM and returns at once. The JVM starts with
   * every signal's default action ({@code env --default-signal}, GNU coreutils 8.31 or later): a process
   * started with {@code nohup} or {@code &} from a script ignores SIGHUP and SIGINT, its children inherit
   * that, and the JVM then installs no handler of its own for them, so a signal test would compare two
   * JVMs that both ignore the signal.
   */
  static Running start(Class<?> mainClass, String heap, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("env", "--default-signal"));
    command.addAll(command(mainClass, heap, List.of()));
    command.addAll(List.of(args));
    Path log = Files.createTempFile("forked-jvm", ".log");
    return new Running(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start(), log);
  }

  private static List<String> command(Class<?> mainClass, String heap, List<String> jvmOptions) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("-XX:+") || arg.startsWith("--upgrade-module-path") || arg.startsWith("--enable-native-access")
          || arg.startsWith("--sun-misc") || arg.startsWith("-Xss") || arg.startsWith("-da:")) {
        command.add(arg);
      }
    }
    command.add("-Xmx" + heap);
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass.getName());
    return command;
  }
}
