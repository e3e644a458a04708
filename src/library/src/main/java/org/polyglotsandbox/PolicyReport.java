package org.polyglotsandbox;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.polyglotsandbox.internal.text.Durations;

/**
 * What a {@link Policy} lets guest code do, operation by operation: the catalogue of everything guest
 * code could attempt, each entry allowed or denied, with the layers that enforce it. The
 * {@linkplain #allowed() allowed set} is the policy's allowlist; the {@linkplain #escapeSurface()
 * escape surface} is everything else, and every entry of it is denied.
 *
 * <p>Obtained from {@link Policy#report()}. Immutable, and computed from the policy alone (plus
 * whether each mount's host path is a directory): it says what the sandbox is built to enforce.
 * {@code bin/sandbox audit} checks the same catalogue from inside a running sandbox.
 *
 * <p>Targets are guest paths for mounts and the directories leading to them, tool names for tools,
 * {@link Limit#id()}s for {@link Operation#LIMIT_EXCEED}, and placeholders in angle brackets for
 * everything else (such as {@value #ANY_OTHER_PATH}); {@link #entryFor} finds the entry that governs a
 * concrete attempt.
 *
 * @since 0.1.0
 */
public final class PolicyReport {
  /**
   * The target of file operations outside every mount (host files, {@code /proc}, {@code /tmp}, ...).
   *
   * @since 0.1.0
   */
  public static final String ANY_OTHER_PATH = "<any other path>";
  /**
   * The target of links, which are denied everywhere.
   *
   * @since 0.1.0
   */
  public static final String ANY_PATH = "<any path>";
  /**
   * The target of file operations on GraalPy's own files (its standard library, at {@link Policy#PYTHON_HOME_PATH}).
   *
   * @since 0.1.0
   */
  public static final String PYTHON_HOME = "<GraalPy standard library>";
  /**
   * The target of writes that would reach the host files behind the mounts.
   *
   * @since 0.1.0
   */
  public static final String HOST_SIDE_OF_MOUNTS = "<host files behind the mounts>";
  /**
   * The target of calls to tools the policy does not allow, or that do not exist.
   *
   * @since 0.1.0
   */
  public static final String ANY_OTHER_TOOL = "<any other tool>";
  /**
   * The target of a result the output boundary refuses: past its caps, cyclic, or against its schema.
   *
   * @since 0.1.0
   */
  public static final String OVERSIZE_RESULT = "<result past the output caps>";

  /**
   * One operation on one target, and the policy's verdict on it: {@link Verdict#ALLOWED} or
   * {@link Verdict#DENIED}.
   *
   * @param layers the layers that enforce a denial, the one that acts first first; for an allowed
   *     operation, the layers it passes through (empty when nothing mediates it)
   * @param note one line for people: what the guest sees, or why
   * @since 0.1.0
   */
  public record Entry(Operation operation, String target, Verdict verdict, List<Layer> layers, String note) {
    /** @since 0.1.0 */
    public Entry {
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(target, "target");
      Objects.requireNonNull(verdict, "verdict");
      layers = List.copyOf(layers);
      Objects.requireNonNull(note, "note");
      if (verdict == Verdict.STOPPED) {
        throw new IllegalArgumentException(operation.id() + " " + target + ": a policy allows or denies, it does not stop");
      }
      if (verdict == Verdict.DENIED && layers.isEmpty()) {
        throw new IllegalArgumentException(operation.id() + " " + target + ": a denial needs an enforcing layer");
      }
    }

    /**
     * Whether the operation is allowed.
     *
     * @since 0.1.0
     */
    public boolean isAllowed() {
      return verdict == Verdict.ALLOWED;
    }
  }

  private static final List<Layer> VFS = List.of(Layer.VIRTUAL_FILE_SYSTEM);
  private static final List<Layer> PERMISSIONS_AND_CONSTRAINED =
      List.of(Layer.CONTEXT_PERMISSIONS, Layer.GRAALVM_CONSTRAINED);
  private static final List<Layer> PERMISSIONS = List.of(Layer.CONTEXT_PERMISSIONS);

  private final Policy policy;
  private final List<Entry> entries;

  private PolicyReport(Policy policy, List<Entry> entries) {
    this.policy = policy;
    this.entries = List.copyOf(entries);
  }

  /** The report of a policy; see {@link Policy#report()}. */
  static PolicyReport of(Policy policy) {
    return new PolicyReport(Objects.requireNonNull(policy, "policy"), catalogue(policy));
  }

  /**
   * The policy reported on.
   *
   * @since 0.1.0
   */
  public Policy policy() {
    return policy;
  }

  /**
   * Every entry of the catalogue, in a fixed order: files, tools, then the other operations, then limits.
   *
   * @since 0.1.0
   */
  public List<Entry> entries() {
    return entries;
  }

  /**
   * The allowed entries: the policy's allowlist.
   *
   * @since 0.1.0
   */
  public List<Entry> allowed() {
    return entries.stream().filter(Entry::isAllowed).toList();
  }

  /**
   * The denied entries: everything guest code could attempt that the policy does not allow.
   *
   * @since 0.1.0
   */
  public List<Entry> escapeSurface() {
    return entries.stream().filter(e -> !e.isAllowed()).toList();
  }

  /**
   * The entry that governs an attempt at {@code operation} on {@code target}.
   *
   * <p>An exact match wins. A file operation on a guest path (absolute, or relative to the policy's
   * working directory; {@code .} and {@code ..} are resolved) is governed by the mount it lies in, by
   * a directory on the way to a mount (for listing), or else by {@value #ANY_OTHER_PATH}. A tool call
   * to a name the policy does not allow is governed by {@value #ANY_OTHER_TOOL}. Any other target of an
   * operation with a single entry is governed by that entry.
   *
   * @return empty when no entry fits: a listing or creation inside a mounted file, or an operation
   *     with several entries and an unknown target
   * @since 0.1.0
   */
  public Optional<Entry> entryFor(Operation operation, String target) {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(target, "target");
    Optional<Entry> exact = find(operation, target);
    if (exact.isPresent()) {
      return exact;
    }
    if (isFileOperation(operation)) {
      if (operation == Operation.FILE_LINK) {
        return find(operation, ANY_PATH);
      }
      String path = normalize(target);
      if (path == null) {
        return Optional.empty();
      }
      Optional<Mount> mount = policy.mountFor(path);
      if (mount.isPresent()) {
        return find(operation, mount.get().guestPath());
      }
      return find(operation, path).or(() -> find(operation, ANY_OTHER_PATH));
    }
    if (operation == Operation.TOOL_CALL) {
      return find(operation, ANY_OTHER_TOOL);
    }
    List<Entry> ofOperation = entries.stream().filter(e -> e.operation() == operation).toList();
    return ofOperation.size() == 1 ? Optional.of(ofOperation.get(0)) : Optional.empty();
  }

  /** @since 0.1.0 */
  @Override
  public String toString() {
    return "PolicyReport{allowed=" + allowed().size() + ", denied=" + escapeSurface().size() + "}";
  }

  private Optional<Entry> find(Operation operation, String target) {
    return entries.stream().filter(e -> e.operation() == operation && e.target().equals(target)).findFirst();
  }

  private String normalize(String target) {
    try {
      Path p = Path.of(target);
      Path absolute = p.isAbsolute() ? p : Path.of(policy.workingDirectory()).resolve(p);
      return absolute.normalize().toString();
    } catch (InvalidPathException e) {
      return null;
    }
  }

  private static boolean isFileOperation(Operation op) {
    return switch (op) {
      case FILE_READ, FILE_WRITE, FILE_CREATE, FILE_DELETE, FILE_LIST, FILE_LINK -> true;
      default -> false;
    };
  }

  // ---- the catalogue ----

  private static List<Entry> catalogue(Policy p) {
    List<Entry> out = new ArrayList<>();
    boolean python = p.allows(Language.PYTHON);
    boolean javascript = p.allows(Language.JAVASCRIPT);
    Limits limits = p.limits();

    files(p, javascript, out);
    if (python) {
      String why = "the interpreter's own files are read-only: a change would reach every later run and JVM";
      out.add(allowed(Operation.FILE_READ, PYTHON_HOME, VFS,
          "Python only: a read-only view of GraalPy's standard library, at " + Policy.PYTHON_HOME_PATH));
      out.add(allowed(Operation.FILE_LIST, PYTHON_HOME, VFS, "Python only: the same read-only view"));
      out.add(denied(Operation.FILE_WRITE, PYTHON_HOME, VFS, why));
      out.add(denied(Operation.FILE_CREATE, PYTHON_HOME, VFS, why));
      out.add(denied(Operation.FILE_DELETE, PYTHON_HOME, VFS, why));
    }
    if (p.mounts().stream().anyMatch(m -> m.hostPath().isPresent())) {
      out.add(denied(Operation.FILE_WRITE, HOST_SIDE_OF_MOUNTS, VFS,
          "mounts are copied in when a run starts; nothing a guest writes ever reaches the host"));
    }
    String outside = "host files, /etc, /proc, /tmp and every path outside the mounts";
    out.add(denied(Operation.FILE_READ, ANY_OTHER_PATH, VFS, outside + "; the guest sees a permission error"));
    out.add(denied(Operation.FILE_WRITE, ANY_OTHER_PATH, VFS, outside));
    out.add(denied(Operation.FILE_CREATE, ANY_OTHER_PATH, VFS, outside));
    out.add(denied(Operation.FILE_DELETE, ANY_OTHER_PATH, VFS, outside));
    out.add(denied(Operation.FILE_LIST, ANY_OTHER_PATH, VFS, outside));
    out.add(denied(Operation.FILE_LINK, ANY_PATH, VFS, "hard and symbolic links, even inside a writable mount"));

    for (String tool : p.tools()) {
      out.add(allowed(Operation.TOOL_CALL, tool, List.of(Layer.TOOL_GATEWAY),
          "arguments copied as plain data, checked against the tool's schema, counted and timed"));
    }
    out.add(denied(Operation.TOOL_CALL, ANY_OTHER_TOOL, List.of(Layer.TOOL_GATEWAY), p.tools().isEmpty()
        ? "no tool is allowed: the guest has no tools object"
        : "names the policy does not allow are invisible; calling one raises ToolError 'denied'"));

    String socket = "; GraalPy ends the run with PermissionError, GraalJS has no socket API";
    out.add(denied(Operation.NETWORK_SOCKET, "connect", PERMISSIONS_AND_CONSTRAINED, "any host, loopback included" + socket));
    out.add(denied(Operation.NETWORK_SOCKET, "listen", PERMISSIONS_AND_CONSTRAINED, "any port" + socket));
    out.add(denied(Operation.NETWORK_SOCKET, "resolve", PERMISSIONS_AND_CONSTRAINED, "host name lookups" + socket));
    out.add(denied(Operation.PROCESS_SPAWN, "<any program>", PERMISSIONS_AND_CONSTRAINED,
        "os.system, subprocess, posix_spawn, exec; the run ends with PermissionError"));
    List<Layer> shieldFirst = python ? List.of(Layer.PROCESS_SHIELD, Layer.CONTEXT_PERMISSIONS) : PERMISSIONS;
    out.add(denied(Operation.PROCESS_SIGNAL, "<any host process>", shieldFirst,
        "os.kill and os.killpg raise PermissionError; without native access GraalPy signals no host process anyway"));
    out.add(denied(Operation.PROCESS_SIGNAL, "<the JVM itself>", shieldFirst, python
        ? "signal.raise_signal and _thread.interrupt_main raise PermissionError (GraalPy would raise a real signal"
            + " at the JVM: SIGTERM would end it)"
        : "GraalJS has no signal API"));
    processState(python, out);
    out.add(denied(Operation.THREAD_CREATE, "<any thread>", PERMISSIONS,
        "threading, _thread, Worker; CONSTRAINED alone would allow threads, the context does not"));
    out.add(denied(Operation.HOST_ACCESS, "class lookup", PERMISSIONS,
        "no host class lookup: Java is undefined in JavaScript, java.type raises in Python"));
    out.add(denied(Operation.HOST_ACCESS, "class loading", PERMISSIONS_AND_CONSTRAINED,
        "java.add_to_classpath and the like"));
    List<Layer> reflection = new ArrayList<>(PERMISSIONS_AND_CONSTRAINED);
    if (!p.tools().isEmpty()) {
      reflection.add(Layer.TOOL_GATEWAY);
    }
    out.add(denied(Operation.HOST_REFLECTION, "<values the guest holds>", reflection,
        "HostAccess.CONSTRAINED; the guest holds no host object, only function proxies that take and return strings"));
    out.add(denied(Operation.HOST_INFO, "<user, process, kernel, host name, CPUs>",
        python ? List.of(Layer.PROCESS_SHIELD) : PERMISSIONS, python
        ? "Python sees a fixed identity instead (uid and gid 1000, user sandbox, home /home/sandbox, pid 2,"
            + " kernel 6.0.0-sandbox, host name sandbox, 1 CPU, no load average), the run's own CPU time and no"
            + " resident set in time.process_time and resource.getrusage, and no Java class name or JDK version"
            + " through __graalpython__; JavaScript has no such API"
        : "GraalJS has no process, os or host object, and its frames name no host path"));
    if (python) {
      out.add(denied(Operation.HOST_INFO, "<interpreter paths>", VFS,
          "Python sees GraalPy's home at " + Policy.PYTHON_HOME_PATH + " (sys.prefix, sys.path, module files, code"
              + " objects, tracebacks, real paths); never the host cache it is extracted to, nor its inode numbers,"
              + " owner or times; nothing around it is listable"));
    }
    out.add(denied(Operation.NATIVE_ACCESS, "<any library>", PERMISSIONS_AND_CONSTRAINED,
        "ctypes, C extensions, WebAssembly"));
    out.add(denied(Operation.ENVIRONMENT_READ, "<host environment>", PERMISSIONS_AND_CONSTRAINED,
        "the guest's environment holds nothing of the host's"));
    out.add(denied(Operation.POLYGLOT_EVAL, "<other language>", PERMISSIONS,
        "each run's context has one language and no polyglot access"));
    out.add(denied(Operation.STDIN_READ, "<host stdin>", PERMISSIONS_AND_CONSTRAINED, "the guest reads end of file"));
    out.add(denied(Operation.JVM_EXIT, "<host JVM>", PERMISSIONS_AND_CONSTRAINED,
        "exit ends the run with its status; the JVM keeps running"));
    out.add(denied(Operation.STATE_PERSIST, "<next run>", List.of(Layer.RUN_ISOLATION),
        "each run gets a fresh context and file system"
            + (p.tools().isEmpty() ? "" : "; a tool that keeps host-side state carries it by design")));
    out.add(allowed(Operation.CLOCK_READ, "<host clock>", List.of(),
        "at the host's resolution, in UTC; timing side channels are not mitigated"));
    out.add(allowed(Operation.OUTPUT_WRITE, "stdout, stderr", List.of(Layer.OUTPUT_BOUNDARY),
        "together at most " + bytes(limits.maxOutputBytes())));
    out.add(denied(Operation.OUTPUT_WRITE, OVERSIZE_RESULT, List.of(Layer.OUTPUT_BOUNDARY),
        "a value of more than " + limits.maxResultNodes() + " values, " + limits.maxResultDepth() + " levels, "
            + limits.maxResultStringLength() + "-character strings or " + limits.maxResultChars()
            + " characters in all, a cycle, or one against the script's result schema ends the run OUTPUT_REJECTED"));

    for (Limit limit : Limit.values()) {
      if (limit == Limit.TOOL_CALLS && p.tools().isEmpty()) {
        continue;
      }
      out.add(denied(Operation.LIMIT_EXCEED, limit.id(), List.of(layerOf(limit)), limitNote(limit, limits)));
    }
    return out;
  }

  private static void files(Policy p, boolean javascript, List<Entry> out) {
    for (String dir : p.directoriesLeadingToMounts()) {
      out.add(allowed(Operation.FILE_LIST, dir, VFS, p.mounts().isEmpty()
          ? "empty: the policy mounts nothing" : "shows only the mounted entries below it"));
    }
    for (Mount m : p.mounts()) {
      boolean directory = m.hostPath().map(Files::isDirectory).orElse(true);
      String source = m.hostPath().map(h -> "a copy of " + h + ", taken when each run starts")
          .orElse("an empty in-memory directory");
      String noWriteApi = javascript ? " (JavaScript has no API to write files)" : "";
      for (Operation op : Operation.mountOperations()) {
        if (!directory && (op == Operation.FILE_LIST || op == Operation.FILE_CREATE)) {
          continue; // nothing to list or create inside a mounted file
        }
        boolean declared = m.operations().contains(op);
        if (!directory && op == Operation.FILE_DELETE) {
          out.add(denied(op, m.guestPath(), VFS, "a mount point cannot be deleted or moved"));
        } else if (!declared) {
          out.add(denied(op, m.guestPath(), VFS, m.isWritable()
              ? "not among the mount's operations" : "the mount is read-only"));
        } else {
          out.add(allowed(op, m.guestPath(), VFS, switch (op) {
            case FILE_READ -> source + (javascript ? "; JavaScript reads with readText(path)" : "");
            case FILE_LIST -> "its entries";
            case FILE_WRITE -> "in the run's memory only; the host never changes" + noWriteApi;
            case FILE_CREATE -> "files and directories below it, in memory only" + noWriteApi;
            case FILE_DELETE -> "entries below it, not the mount point itself" + noWriteApi;
            default -> throw new AssertionError(op); // mountOperations() holds only the five above
          }));
        }
      }
    }
  }

  private static Layer layerOf(Limit limit) {
    return switch (limit) {
      case STATEMENTS -> Layer.STATEMENT_LIMIT;
      case WALL_TIME, CPU_TIME, MEMORY -> Layer.WATCHDOG;
      case FILES -> Layer.VIRTUAL_FILE_SYSTEM;
      case OUTPUT -> Layer.OUTPUT_BOUNDARY;
      // The run thread's fixed stack bounds recursion; the run reports it as a context-level failure.
      case STACK -> Layer.CONTEXT_PERMISSIONS;
      case TOOL_CALLS -> Layer.TOOL_GATEWAY;
    };
  }

  private static String limitNote(Limit limit, Limits l) {
    return switch (limit) {
      case STATEMENTS -> "more than " + l.maxStatements() + " statements";
      case WALL_TIME -> "longer than " + Durations.format(l.wallTime());
      case CPU_TIME -> "more than " + Durations.format(l.maxCpuTime()) + " of CPU time";
      case MEMORY -> "more than " + bytes(l.maxAllocatedBytes())
          + " allocated, or the largest allocator while the host heap is under pressure";
      case FILES -> "more than " + bytes(l.maxFileBytes()) + " or " + l.maxFiles() + " entries in the run's files";
      case OUTPUT -> "more than " + bytes(l.maxOutputBytes()) + " of output";
      case STACK -> "recursion deeper than the run thread's " + bytes(l.stackSize()) + " stack holds";
      case TOOL_CALLS -> "more calls to one tool than its per-run budget";
    };
  }

  /** State the whole JVM process shares: what each language's guest can and cannot change. */
  private static void processState(boolean python, List<Entry> out) {
    List<Layer> shield = python ? List.of(Layer.PROCESS_SHIELD) : PERMISSIONS;
    out.add(denied(Operation.PROCESS_STATE, "signal handlers", shield, python
        ? "virtual: signal.signal and getsignal keep a table per run, and a handler never runs (GraalPy would make"
            + " it the JVM's own handler)"
        : "GraalJS has no signal API"));
    out.add(denied(Operation.PROCESS_STATE, "timers and alarms", shield, python
        ? "arming signal.alarm or signal.setitimer raises PermissionError; disarming and getitimer answer"
            + " that nothing is armed"
        : "no timer outlives the run: setTimeout and setInterval are the sandbox's guest-side timers, run on the"
            + " guest's thread only while the program awaits, and dropped with its context"));
    out.add(denied(Operation.PROCESS_STATE, "default time zone",
        python ? List.of(Layer.PROCESS_SHIELD, Layer.CONTEXT_PERMISSIONS) : PERMISSIONS,
        "every run's time zone is UTC, on every route to it (strftime's %Z, localtime, datetime, Date, Intl)"
            + (python ? "; time.tzset does nothing (GraalPy's would set the JVM's default time zone)" : "")));
    out.add(denied(Operation.PROCESS_STATE, "locale",
        python ? List.of(Layer.PROCESS_SHIELD, Layer.CONTEXT_PERMISSIONS) : PERMISSIONS,
        python ? "every run starts in the C locale, never the host's, and strftime, calendar and strptime use its"
            + " English names (only format(x, 'n') follows the JVM's default); locale.setlocale changes the run's"
            + " own locale, never the JVM's"
            : "every run's locale is en-US, never the host's; no guest API changes the JVM's default"));
    out.add(denied(Operation.PROCESS_STATE, "umask", PERMISSIONS,
        "Python's os.umask is emulated per context by GraalPy's Java posix layer"));
    out.add(denied(Operation.PROCESS_STATE, "working directory", VFS,
        "os.chdir moves inside the run's own virtual file system"));
    out.add(denied(Operation.PROCESS_STATE, "environment variables", PERMISSIONS,
        "os.environ and os.putenv change the run's own copy, which starts without the host's variables"));
    out.add(denied(Operation.PROCESS_STATE, "system properties", PERMISSIONS,
        "no guest API reaches the JVM's system properties (no host class lookup)"));
  }

  private static Entry allowed(Operation op, String target, List<Layer> layers, String note) {
    return new Entry(op, target, Verdict.ALLOWED, layers, note);
  }

  private static Entry denied(Operation op, String target, List<Layer> layers, String note) {
    return new Entry(op, target, Verdict.DENIED, layers, note);
  }

  static String bytes(long n) {
    if (n % (1L << 30) == 0) {
      return (n >> 30) + " GiB";
    }
    if (n % (1L << 20) == 0) {
      return (n >> 20) + " MiB";
    }
    if (n % (1L << 10) == 0) {
      return (n >> 10) + " KiB";
    }
    return n + " bytes";
  }
}
