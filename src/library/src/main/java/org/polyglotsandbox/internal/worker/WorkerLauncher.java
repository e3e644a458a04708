package org.polyglotsandbox.internal.worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.internal.filesystem.InterpreterFiles;
import org.polyglotsandbox.internal.isolation.CgroupSlot;
import org.polyglotsandbox.internal.isolation.OsWall;
import org.polyglotsandbox.internal.isolation.WallCommand;
import org.polyglotsandbox.internal.isolation.WallSpec;
import org.polyglotsandbox.internal.isolation.WalledMain;

/**
 * Starts the worker processes of one sandbox: the {@link WorkerCommand} inside the operating-system wall
 * ({@link WallCommand}), or, where the host cannot give the whole wall and the embedder accepted it, a
 * weak one (a plain child JVM with resource limits). Every process starts from one long-lived thread of
 * the launcher's own: bubblewrap's {@code --die-with-parent} ends a worker when the thread that started
 * it ends, not only when the JVM does.
 */
final class WorkerLauncher implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  /** Memory a worker's cgroup allows beyond its heap: metaspace, code cache, thread stacks, its /tmp. */
  private static final long NON_HEAP_BYTES = 768L << 20;
  /** Threads a worker may run at once: GraalVM's and the sandbox's take some 60-100; a thousand is an attack. */
  private static final long MAX_TASKS = 512;
  private static final long MAX_OPEN_FILES = 4096;
  private static final long MAX_FILE_BYTES = 64L << 20;

  private final WorkerCommand command;
  private final WallSpec spec;
  private final String wall;
  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "polyglot-sandbox-worker-launcher");
    t.setDaemon(true);
    return t;
  });

  private WorkerLauncher(WorkerCommand command, WallSpec spec, String wall) {
    this.command = command;
    this.spec = spec;
    this.wall = wall;
  }

  /**
   * The launcher for this host.
   *
   * @throws IllegalStateException naming what the wall needs and this host lacks, unless the embedder
   *     accepted a weak wall
   */
  static WorkerLauncher forHost(Isolation isolation, Policy policy) {
    return forHost(isolation, policy, OsWall.inspect());
  }

  /** {@link #forHost(Isolation, Policy)} on a host that offers what {@code report} says. */
  static WorkerLauncher forHost(Isolation isolation, Policy policy, OsWall.Report report) {
    boolean full = report.full() && Runtime.version().feature() >= 22;
    if (!full && !isolation.acceptsWeakWall()) {
      String missing = !report.full() ? report.missing()
          : "The worker's seccomp filter needs JDK 22 or newer; this JVM is " + Runtime.version() + ".";
      throw new IllegalStateException("process isolation needs the operating-system wall around its workers, and "
          + "this host cannot give all of it. " + missing + " Install what is missing, or accept a weaker wall (a plain"
          + " child JVM with resource limits, no namespaces) with Isolation.processBuilder().weakWall().");
    }
    WorkerCommand command = WorkerCommand.of(isolation);
    if (full && policy.allows(Language.PYTHON)) {
      prepareGraalPyHome(command);
    }
    List<Path> readOnly = new ArrayList<>();
    for (String e : command.classPathEntries()) {
      readOnly.add(Path.of(e));
    }
    readOnly.addAll(command.upgradeModulePath());
    Path cache = command.resourceCacheDirectory();
    if (Files.isDirectory(cache)) {
      readOnly.add(cache);
    }
    for (Mount m : policy.mounts()) {
      m.hostPath().map(p -> p.toAbsolutePath().normalize()).filter(Files::exists).ifPresent(readOnly::add);
    }
    long memory = full && report.cgroupMemory() ? isolation.workerHeapBytes() + NON_HEAP_BYTES : 0;
    long tasks = report.cgroupPids() ? MAX_TASKS : 0;
    WallSpec spec = new WallSpec(command.javaHome(), readOnly, Map.of("LANG", "C.UTF-8"), MAX_OPEN_FILES,
        MAX_FILE_BYTES, memory, tasks, !full);
    String cgroups = (memory > 0 ? ", memory cgroup" : "") + (tasks > 0 ? ", pids cgroup" : "");
    String wall = full ? "bubblewrap namespaces, seccomp filter, rlimits" + cgroups
        : "weak: a child JVM without namespaces, with rlimits, heap caps, the seccomp filter where it loads"
            + cgroups + " (" + report.missing() + ")";
    return new WorkerLauncher(command, spec, wall);
  }

  /**
   * GraalPy extracts its home into the host's cache the first time a JVM needs it; a walled worker can only
   * read that cache, so a JVM that runs no guest code extracts it first.
   */
  private static void prepareGraalPyHome(WorkerCommand command) {
    List<Path> homes = InterpreterFiles.locate().pythonHomes();
    if (!homes.isEmpty() && Files.isDirectory(homes.get(0))) {
      return;
    }
    try {
      Process p = command.startUnwalled(WorkerMain.class.getName(), List.of(WorkerMain.PREPARE));
      byte[] output = p.getInputStream().readAllBytes();
      if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException("GraalPy's home could not be extracted for the workers (exit status "
            + (p.isAlive() ? "none" : p.exitValue()) + "): " + new String(output, StandardCharsets.UTF_8).strip());
      }
    } catch (IOException e) {
      throw new IllegalStateException("GraalPy's home could not be extracted for the workers: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while GraalPy's home was extracted for the workers");
    }
  }

  /** Starts one worker; it reads its settings from its channel, then says it is ready. */
  WorkerCommand.Launched launch() throws IOException {
    return launch(WorkerMain.class.getName(), List.of());
  }

  /** Starts {@code mainClass} with {@code args} in a worker's wall and JVM: tests attack the wall this way. */
  WorkerCommand.Launched launch(String mainClass, List<String> args) throws IOException {
    List<String> main = new ArrayList<>();
    main.add(mainClass);
    main.addAll(args);
    Future<WorkerCommand.Launched> f = thread.submit(() -> {
      WallCommand.Walled walled = WallCommand.wrap(command.java(WalledMain.class.getName(), main), spec);
      CgroupSlot slot = walled.slot();
      try {
        Process p = new ProcessBuilder(walled.command()).start();
        return new WorkerCommand.Launched(p, slot == null ? () -> { } : slot::close,
            slot == null ? () -> false : slot::oomKilled);
      } catch (IOException | RuntimeException e) {
        if (slot != null) {
          slot.close();
        }
        throw e;
      }
    });
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while a worker started");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IOException(e.getCause());
    }
  }

  /** The wall its workers run in, for reports and logs. */
  String wall() {
    return wall;
  }

  @Override
  public void close() {
    thread.shutdown();
  }
}
