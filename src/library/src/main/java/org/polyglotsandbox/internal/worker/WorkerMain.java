package org.polyglotsandbox.internal.worker;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.polyglotsandbox.AuditEvent;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.ToolException;
import org.polyglotsandbox.internal.boundary.PlainData;

/**
 * A worker process: reads the sandbox's settings from the host, builds an in-process sandbox from them, and
 * runs what the host sends, one frame at a time over stdin and stdout ({@link Frames}). Tool calls go back to
 * the host, which runs the embedder's handlers; output chunks and audit events are forwarded as they happen.
 *
 * <p>Standard output is the channel: it is taken over before anything else runs, and {@code System.out}
 * then prints to standard error, so a stray print cannot corrupt a frame.
 */
public final class WorkerMain {
  /** The attribute that tells the worker's handlers which of the host's runs a call belongs to. */
  static final String RUN_ATTRIBUTE = "polyglot-sandbox.run";
  /** The largest frame the host sends: a run's code, inputs and files. */
  static final int MAX_HOST_FRAME = Integer.MAX_VALUE - 64;
  private static final String RUN_THREAD_PREFIX = "polyglot-sandbox-run-";
  /** The argument that makes this JVM extract GraalPy's home into the host's cache and exit; it runs no guest code. */
  static final String PREPARE = "--prepare-graalpy-home";

  private final DataOutputStream out;
  private final Object writeLock = new Object();
  private final Map<Long, CompletableFuture<Map<String, Object>>> calls = new ConcurrentHashMap<>();
  private final AtomicLong callNumbers = new AtomicLong();
  private final Map<Long, CompletableFuture<ExecutionResult>> runs = new ConcurrentHashMap<>();
  /** Per run: the run threads' CPU time when it started, by thread id. */
  private final Map<Long, Map<Long, Long>> cpuAtStart = new ConcurrentHashMap<>();
  private PolyglotSandbox sandbox;
  /** Beats left out while idle (only the beat thread touches it). */
  private int beatsSkipped;

  private WorkerMain(DataOutputStream out) {
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 1 && PREPARE.equals(args[0])) {
      try (org.graalvm.polyglot.Context c = org.graalvm.polyglot.Context.newBuilder("python")
          .option("engine.WarnInterpreterOnly", "false").build()) {
        c.eval("python", "1");
      }
      System.exit(0);
    }
    DataOutputStream channel = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out),
        1 << 16));
    System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
    DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16));
    int status = new WorkerMain(channel).serve(in);
    System.exit(status);
  }

  private int serve(DataInputStream in) {
    try {
      Map<String, Object> init = Frames.read(in, MAX_HOST_FRAME);
      if (!"init".equals(init.get("t"))) {
        System.err.println("polyglot-sandbox worker: the first frame was not init");
        return 2;
      }
      start(init);
      ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "polyglot-sandbox-worker-beat");
        t.setDaemon(true);
        return t;
      });
      beats.scheduleAtFixedRate(this::beat, 100, 100, TimeUnit.MILLISECONDS);
      send(Map.of("t", "ready", "pid", ProcessHandle.current().pid(), "runtime", sandbox.runtimeName()));
      while (true) {
        Map<String, Object> m;
        try {
          m = Frames.read(in, MAX_HOST_FRAME);
        } catch (EOFException e) {
          return 0; // the host closed the channel: it is done with this worker
        }
        switch (String.valueOf(m.get("t"))) {
          case "run" -> run(m);
          case "cancel" -> {
            CompletableFuture<ExecutionResult> f = runs.get(Wire.num(m, "id"));
            if (f != null) {
              f.cancel(true);
            }
          }
          case "answer" -> {
            CompletableFuture<Map<String, Object>> f = calls.remove(Wire.num(m, "call"));
            if (f != null) {
              f.complete(m);
            }
          }
          default -> {
            System.err.println("polyglot-sandbox worker: an unknown frame");
            return 2;
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("polyglot-sandbox worker: " + e);
      return 2;
    }
  }

  private void start(Map<String, Object> init) {
    Policy policy = Wire.policy(Wire.map(init.get("policy")));
    Map<String, Object> s = Wire.map(init.get("settings"));
    PolyglotSandbox.Builder b = PolyglotSandbox.builder().policy(policy)
        .maxConcurrentRuns((int) Wire.num(s, "runs"))
        .maxWaitingRuns((int) Wire.num(s, "runs"))
        .warmContexts((int) Wire.num(s, "warmContexts"))
        .heapPressureThreshold((Double) s.get("heapThreshold"))
        .auditListener(this::audit);
    if (Wire.num(s, "warmUp") > 0) {
      b.warmUp(Duration.ofNanos(Wire.num(s, "warmUp")));
    }
    if (s.get("lowerPriorityAfter") instanceof Long nanos) {
      b.lowerPriorityAfter(Duration.ofNanos(nanos));
    }
    List<String> path = Wire.list(s, "pythonPath").stream().map(String.class::cast).toList();
    if (!path.isEmpty()) {
      b.pythonPath(path.toArray(String[]::new));
    }
    List<String> imports = Wire.list(s, "pythonImports").stream().map(String.class::cast).toList();
    if (!imports.isEmpty()) {
      b.pythonImports(imports.toArray(String[]::new));
    }
    for (Object t : Wire.list(init, "tools")) {
      b.tool(Wire.tool(Wire.map(t), this::callHost));
    }
    sandbox = b.build();
  }

  private void run(Map<String, Object> m) {
    long id = Wire.num(m, "id");
    Script script = Script.of(Language.valueOf(Wire.str(m, "language")), Wire.str(m, "code"))
        .named(Wire.str(m, "name"))
        .withLabel(Wire.str(m, "label"))
        .withAuditedAttribute(RUN_ATTRIBUTE, Long.toString(id));
    Map<String, Object> inputs = new LinkedHashMap<>();
    Wire.map(m.get("inputs")).forEach((k, v) -> inputs.put(k, PlainData.parse((String) v, false)));
    if (!inputs.isEmpty()) {
      script = script.withInputs(inputs);
    }
    if (m.get("resultSchema") instanceof String schema) {
      script = script.withResultSchema(schema);
    }
    List<String> optional = new ArrayList<>();
    List<String> required = new ArrayList<>();
    for (Object o : Wire.list(m, "outputFiles")) {
      Map<String, Object> f = Wire.map(o);
      (Boolean.TRUE.equals(f.get("required")) ? required : optional).add(Wire.str(f, "path"));
    }
    if (!optional.isEmpty()) {
      script = script.withOutputFiles(optional.toArray(String[]::new));
    }
    if (!required.isEmpty()) {
      script = script.withRequiredOutputFiles(required.toArray(String[]::new));
    }
    for (Object o : Wire.list(m, "files")) {
      Map<String, Object> f = Wire.map(o);
      script = script.withFile(Wire.str(f, "path"), Base64.getDecoder().decode(Wire.str(f, "bytes")),
          Boolean.TRUE.equals(f.get("writable")) ? Script.FileMode.WRITABLE : Script.FileMode.READ_ONLY);
    }
    if (m.get("limits") != null) {
      script = script.withLimits(Wire.limits(Wire.map(m.get("limits"))));
    }
    if (Boolean.TRUE.equals(m.get("listen"))) {
      script = script.withOutputListener(chunk -> send(Map.of("t", "out", "id", id, "stream", chunk.stream().name(),
          "runId", chunk.runId(), "text", chunk.text())));
    }
    CompletableFuture<ExecutionResult> f;
    try {
      f = sandbox.runAsync(script);
    } catch (RuntimeException e) { // refused before it ran: the host checked the same rules, so this is rare
      send(Map.of("t", "refused", "id", id, "message", String.valueOf(e.getMessage())));
      return;
    }
    // Taken while the run's thread wakes up, not before the hand-off: walking the JVM's threads added some
    // 75 us to every run's latency in a profile of ProcessIsolationBenchmark. The few microseconds of CPU
    // the run may spend before this are left out of the beats' count; the host's own count from /proc is
    // not affected. Put before whenComplete is registered, which removes it even for a run that has ended.
    cpuAtStart.put(id, runThreadCpu());
    runs.put(id, f);
    f.whenComplete((r, e) -> {
      runs.remove(id);
      cpuAtStart.remove(id);
      if (r != null) {
        Map<String, Object> frame = new HashMap<>();
        frame.put("t", "result");
        frame.put("id", id);
        frame.put("result", Wire.result(r));
        send(frame);
      } else {
        send(Map.of("t", "refused", "id", id, "message", String.valueOf(e.getMessage())));
      }
    });
  }

  /** A tool handler that asks the host: the host runs the embedder's handler and answers. */
  private Object callHost(Map<String, Object> arguments, Tool.Call call) throws Exception {
    long number = callNumbers.incrementAndGet();
    CompletableFuture<Map<String, Object>> answer = new CompletableFuture<>();
    calls.put(number, answer);
    Map<String, Object> frame = new HashMap<>();
    frame.put("t", "tool");
    frame.put("id", Long.parseLong(call.attribute(RUN_ATTRIBUTE)));
    frame.put("call", number);
    frame.put("tool", call.tool());
    frame.put("runId", call.runId());
    frame.put("args", PlainData.toJson(arguments, PlainData.Format.strict(1_000, Integer.MAX_VALUE)));
    send(frame);
    Map<String, Object> m;
    try {
      m = answer.get();
    } finally {
      calls.remove(number);
    }
    if (m.get("toolError") instanceof String message) {
      throw new ToolException(message);
    }
    if (m.get("failed") instanceof String message) {
      throw new HostToolFailure(message);
    }
    if (Boolean.TRUE.equals(m.get("notPlain"))) {
      return new Object(); // the gateway refuses it as the in-process one would
    }
    return PlainData.parse(Wire.str(m, "value"), false);
  }

  /** A handler that failed on the host with an exception that is not a {@link ToolException}. */
  private static final class HostToolFailure extends Exception {
    HostToolFailure(String message) {
      super(message, null, false, false);
    }
  }

  private void audit(AuditEvent e) {
    String run = e.attributes().get(RUN_ATTRIBUTE);
    if (run != null) {
      send(Map.of("t", "audit", "id", Long.parseLong(run), "runId", e.runId(), "event", Wire.event(e.event())));
    }
  }

  /** Every 100 ms: that the worker lives, and each run's CPU time so far (its run threads', since it started). */
  private void beat() {
    if (cpuAtStart.isEmpty() && beatsSkipped++ < 9) {
      return; // idle: a beat a second is enough
    }
    beatsSkipped = 0;
    try {
      Map<Long, Long> now = cpuAtStart.isEmpty() ? Map.of() : runThreadCpu();
      Map<String, Object> cpu = new LinkedHashMap<>();
      cpuAtStart.forEach((id, before) -> {
        long total = 0;
        for (Map.Entry<Long, Long> t : now.entrySet()) {
          total += Math.max(0, t.getValue() - before.getOrDefault(t.getKey(), 0L));
        }
        cpu.put(Long.toString(id), total);
      });
      // How full the heap is, in permille: a worker that goes silent with a full heap is collecting garbage
      // it cannot free (the guest's), not frozen, and the host answers its run as out of memory.
      var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
      long permille = heap.getMax() > 0 ? Math.min(1000, heap.getUsed() * 1000 / heap.getMax()) : 0;
      send(Map.of("t", "beat", "cpu", cpu, "heap", permille));
    } catch (RuntimeException e) {
      System.err.println("polyglot-sandbox worker: beat failed: " + e);
    }
  }

  /** CPU time of the engine's run threads, by thread id. */
  private static Map<Long, Long> runThreadCpu() {
    var mx = ManagementFactory.getThreadMXBean();
    Map<Long, Long> cpu = new HashMap<>();
    ThreadGroup root = Thread.currentThread().getThreadGroup();
    while (root.getParent() != null) {
      root = root.getParent();
    }
    Thread[] threads = new Thread[root.activeCount() + 16];
    int count = root.enumerate(threads, true);
    for (int i = 0; i < count; i++) {
      Thread t = threads[i];
      if (t.getName().startsWith(RUN_THREAD_PREFIX)) {
        long n = mx.getThreadCpuTime(t.threadId());
        if (n >= 0) {
          cpu.put(t.threadId(), n);
        }
      }
    }
    return cpu;
  }

  private void send(Map<String, ?> frame) {
    synchronized (writeLock) {
      try {
        Frames.write(out, frame);
      } catch (IOException e) {
        // The host is gone: nothing is left to serve.
        Runtime.getRuntime().halt(0);
      }
    }
  }
}
