package org.polyglotsandbox;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * A class of operation guest code could attempt: the catalogue that {@link PolicyReport} lays out as
 * allowed or denied for a policy, and the operation a {@link SandboxEvent.DeniedOperation} names when a
 * layer refuses one.
 *
 * <p>Every constant has a stable {@link #id()} for reports, JSON and audit logs. Not every operation
 * is ever reported as a denial event: some are refused where no layer can see the attempt (GraalJS has
 * no {@code process} object to call, for one); {@link PolicyReport.Entry#layers()} names what
 * enforces each.
 *
 * @since 0.1.0
 */
public enum Operation {
  FILE_READ("file.read"),
  FILE_WRITE("file.write"),
  FILE_CREATE("file.create"),
  FILE_DELETE("file.delete"),
  FILE_LIST("file.list"),
  /** Creating a hard or symbolic link; never allowed, so no link can lead out of a mount. */
  FILE_LINK("file.link"),
  /** Starting a host program ({@code os.system}, {@code subprocess}, {@code posix_spawn}). */
  PROCESS_SPAWN("process.spawn"),
  /**
   * Sending a signal to a host process or to the JVM itself ({@code os.kill}, {@code signal.raise_signal},
   * {@code _thread.interrupt_main}).
   */
  PROCESS_SIGNAL("process.signal"),
  /**
   * Changing state the whole JVM process shares: signal handlers, interval timers and alarms, the umask,
   * the working directory, the locale, the default time zone, system properties and environment
   * variables. Each is either virtual (kept per run, gone with it) or refused; the target names the
   * function, such as {@code signal.setitimer}.
   */
  PROCESS_STATE("process.state"),
  /** Opening a network socket: connecting, listening, or resolving a host name. */
  NETWORK_SOCKET("network.socket"),
  THREAD_CREATE("thread.create"),
  /** Looking up or loading a host (Java) class: {@code Java.type}, {@code java.type}, {@code add_to_classpath}. */
  HOST_ACCESS("host.access"),
  /**
   * Reaching a host object, a Java class or Java reflection through a value the guest holds: the
   * {@code tools} object, what tools return, {@code readText}, inputs, frames and tracebacks.
   */
  HOST_REFLECTION("host.reflection"),
  /** Reading facts about the host process: its process id, the kernel release, the CPU count, paths. */
  HOST_INFO("host.info"),
  /** Loading native code: {@code ctypes}, C extensions, WebAssembly, {@code System.loadLibrary}. */
  NATIVE_ACCESS("native.access"),
  /** Reading the host's environment variables. */
  ENVIRONMENT_READ("environment.read"),
  /** Evaluating code of another language ({@code Polyglot.eval}, {@code polyglot.eval}) or sharing values with one. */
  POLYGLOT_EVAL("polyglot.eval"),
  /** Reading the host process's standard input. */
  STDIN_READ("stdin.read"),
  /** Ending the host JVM ({@code exit}, {@code sys.exit}, {@code os._exit}); these end the run instead. */
  JVM_EXIT("jvm.exit"),
  /** Reading the time ({@code Date.now}, {@code performance.now}, {@code time.perf_counter_ns}). */
  CLOCK_READ("clock.read"),
  /** Writing to standard output and standard error. */
  OUTPUT_WRITE("output.write"),
  /** Leaving state behind (globals, patched builtins, files) that a later run can see. */
  STATE_PERSIST("state.persist"),
  /** Using more of a resource than a {@link Limit} allows; the target is the limit's {@link Limit#id()}. */
  LIMIT_EXCEED("limit.exceed"),
  /**
   * Calling a tool; the target is the tool's name. Reported as a denial when the policy does not allow
   * the name or no tool of that name exists.
   */
  TOOL_CALL("tool.call");

  private final String id;

  Operation(String id) {
    this.id = id;
  }

  /**
   * A stable name for reports and JSON, such as {@code file.read}.
   *
   * @since 0.1.0
   */
  public String id() {
    return id;
  }

  /**
   * The five file operations a {@link Mount} can allow: {@link #FILE_READ}, {@link #FILE_WRITE},
   * {@link #FILE_CREATE}, {@link #FILE_DELETE} and {@link #FILE_LIST}. ({@link #FILE_LINK} is never
   * allowed.) An unmodifiable set in declaration order.
   *
   * @since 0.1.0
   */
  public static Set<Operation> mountOperations() {
    return MOUNT_OPERATIONS;
  }

  /**
   * Whether a {@link Mount} can allow this operation; see {@link #mountOperations()}.
   *
   * @since 0.1.0
   */
  public boolean isMountOperation() {
    return MOUNT_OPERATIONS.contains(this);
  }

  private static final Set<Operation> MOUNT_OPERATIONS =
      Collections.unmodifiableSet(EnumSet.range(FILE_READ, FILE_LIST));
}
