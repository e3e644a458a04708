package org.polyglotsandbox.cli;

import org.polyglotsandbox.PolyglotSandbox.Isolation;
import picocli.CommandLine;

/**
 * {@code --isolation process|in-process} and {@code --weak-wall} of {@code run}, {@code probe}, {@code mcp}
 * and {@code policy explain}, and {@code --workers N}, which only {@code mcp} takes (the others use one
 * worker): where guest code runs, checked before anything is opened so that a bad combination exits 2
 * naming it. Each command declares {@code --isolation} itself, because each has its own default.
 */
final class IsolationOption {
  private IsolationOption() {}

  /** The two values of {@code --isolation}. */
  enum Mode {
    /** In worker JVMs behind the operating-system wall. */
    PROCESS("process"),
    /** In the command's own JVM. */
    IN_PROCESS("in-process");

    private final String id;

    Mode(String id) {
      this.id = id;
    }

    String id() {
      return id;
    }
  }

  /** Help text of {@code --weak-wall}, shared by the commands that take it. */
  static final String WEAK_WALL_HELP = "With --isolation process: where the OS cannot give the whole wall"
      + " (bubblewrap namespaces, seccomp filter, rlimits), run the workers as child JVMs without namespaces"
      + " (rlimits, heap caps, the seccomp filter where it loads)"
      + " instead of refusing to start.";

  /** Help text of {@code --workers}. */
  static final String WORKERS_HELP = "With --isolation process: worker JVMs that take runs, 1 to "
      + Isolation.Builder.MAX_WORKERS + " (default: 2, plus 1 spare started ahead).";

  /**
   * The isolation asked for: {@code mode}, or {@code byDefault} when {@code --isolation} was not given.
   *
   * @param command the command's name, for messages
   * @param workers {@code --workers}, or null when not given (or the command has no such option)
   * @param defaultWorkers workers when {@code --workers} was not given
   * @param spareWorkers spare workers to keep with process isolation
   * @throws UsageException naming the value if {@code --workers} is out of range, or {@code --workers} or
   *     {@code --weak-wall} is given while the isolation is in-process
   */
  static Isolation resolve(String command, Mode mode, Mode byDefault, Integer workers, int defaultWorkers,
      boolean weakWall, int spareWorkers) {
    Mode m = mode != null ? mode : byDefault;
    if (m == Mode.IN_PROCESS) {
      String stray = workers != null ? "--workers " + workers : weakWall ? "--weak-wall" : null;
      if (stray != null) {
        throw new UsageException(stray + " applies to --isolation process only; " + command
            + (mode == null ? " runs in-process unless --isolation process is given" : " was given --isolation in-process"));
      }
      return Isolation.inProcess();
    }
    Isolation.Builder b = Isolation.processBuilder().spareWorkers(spareWorkers);
    try {
      b.workers(workers != null ? workers : defaultWorkers);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--workers " + workers + ": " + e.getMessage());
    }
    if (weakWall) {
      b.weakWall();
    }
    return b.build();
  }

  /** One line for a human: where guest code runs under {@code isolation}, as asked (not as the host gives it). */
  static String describe(Isolation isolation) {
    if (!isolation.isProcess()) {
      return "in-process: guest code runs in the sandbox's own JVM, behind GraalVM's sandbox policy and the"
          + " sandbox's own layers";
    }
    return "process: guest code runs in worker JVMs behind the OS wall (bubblewrap namespaces, seccomp filter, rlimits; cgroups where the host allows)"
        + (isolation.acceptsWeakWall() ? ", or child JVMs without namespaces where the host cannot give the wall"
            : "; refused where the host cannot give the wall");
  }

  /** Converts {@code --isolation}'s value, naming a bad one and the two good ones. */
  static final class ModeConverter implements CommandLine.ITypeConverter<Mode> {
    @Override
    public Mode convert(String value) {
      for (Mode m : Mode.values()) {
        if (m.id().equals(value)) {
          return m;
        }
      }
      throw new CommandLine.TypeConversionException(Text.quote(value)
          + " is not an isolation; use process (worker JVMs behind the OS wall) or in-process");
    }
  }
}
