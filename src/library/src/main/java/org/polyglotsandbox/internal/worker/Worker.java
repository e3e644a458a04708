package org.polyglotsandbox.internal.worker;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * One worker process as the host sees it: the process, the channel's two ends, and the runs on it. Frames
 * it sends are read on a thread of its own and handed to the room; anything that breaks the channel's
 * rules ends the worker. Its standard error is read into the host's log, a line at a time and bounded.
 */
final class Worker {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  /** Lines of a worker's standard error logged at most, so that a chatty worker cannot fill the host's log. */
  private static final int MAX_LOGGED_LINES = 200;

  final int number;
  final Process process;
  private final DataOutputStream toWorker;
  private static final Map<String, Object> CLOSE = Map.of();
  private final java.util.concurrent.LinkedBlockingQueue<Map<String, ?>> outbox =
      new java.util.concurrent.LinkedBlockingQueue<>();
  /** The host's runs on this worker, by key. */
  final Map<Long, WorkerRoom.Pending> runs = new ConcurrentHashMap<>();
  /** Recent runs, whose output chunks and audit events may still come after their results. */
  final Map<Long, WorkerRoom.Pending> listened = java.util.Collections.synchronizedMap(
      new java.util.LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, WorkerRoom.Pending> eldest) {
          return size() > 256;
        }
      });
  final CompletableFuture<Void> ready = new CompletableFuture<>();
  final long startedNanos = System.nanoTime();
  volatile long lastHeardNanos = System.nanoTime();
  /** How full the worker said its heap was in its last beat, in permille. */
  volatile long heapPermille;
  /** The worker JVM's process id on the host (below bubblewrap's, when walled); known once it is ready. */
  volatile long jvmPid;
  /** Runs this worker has taken; it retires at the isolation's bound. */
  int runsTaken;
  /** Why the host ended it, once it has; null while it lives or if it ended on its own. */
  volatile String killedFor;
  volatile boolean retiring;
  /** Whether its whole group of processes is being ended. */
  volatile boolean ending;
  final WorkerCommand.Launched launched;

  Worker(int number, WorkerCommand.Launched launched) {
    this.number = number;
    this.launched = launched;
    this.process = launched.process();
    this.toWorker = new DataOutputStream(new BufferedOutputStream(process.getOutputStream(), 1 << 16));
  }

  /** Starts reading: frames to {@code onFrame}, a broken channel to {@code onBroken}. */
  void listen(int maxFrameBytes, BiConsumer<Worker, Map<String, Object>> onFrame,
      BiConsumer<Worker, String> onBroken) {
    Thread reader = new Thread(() -> {
      DataInputStream in = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
      try {
        while (true) {
          Map<String, Object> frame = Frames.read(in, maxFrameBytes);
          lastHeardNanos = System.nanoTime();
          onFrame.accept(this, frame);
        }
      } catch (EOFException e) {
        onBroken.accept(this, null);
      } catch (IOException | RuntimeException e) {
        onBroken.accept(this, e.getMessage());
      }
    }, "polyglot-sandbox-worker-" + number + "-reader");
    reader.setDaemon(true);
    reader.start();
    Thread errors = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(),
          StandardCharsets.UTF_8))) {
        int logged = 0;
        char[] buffer = new char[8192];
        StringBuilder line = new StringBuilder();
        int n;
        while ((n = r.read(buffer)) >= 0) {
          for (int i = 0; i < n; i++) {
            char c = buffer[i];
            if (c == '\n') {
              if (logged++ < MAX_LOGGED_LINES) {
                LOG.log(System.Logger.Level.INFO, "worker " + number + ": " + line);
              }
              line.setLength(0);
            } else if (line.length() < 2_000) {
              line.append(c);
            }
          }
        }
      } catch (IOException e) {
        // the worker ended
      }
    }, "polyglot-sandbox-worker-" + number + "-stderr");
    errors.setDaemon(true);
    errors.start();
    Thread writer = new Thread(this::write, "polyglot-sandbox-worker-" + number + "-writer");
    writer.setDaemon(true);
    writer.start();
  }

  /**
   * Queues one frame for the worker and returns at once: the writer thread sends it, so that a worker
   * that stops reading holds no caller (its silence gets it killed, and the writer's pipe then breaks).
   */
  void send(Map<String, ?> frame) {
    outbox.add(frame);
  }

  /** Closes the channel towards the worker once the frames queued before are sent; the worker then exits. */
  void closeChannel() {
    outbox.add(CLOSE);
  }

  private void write() {
    try {
      while (true) {
        Map<String, ?> frame = outbox.take();
        if (frame == CLOSE) {
          toWorker.close();
          return;
        }
        Frames.write(toWorker, frame);
      }
    } catch (IOException e) {
      // The worker is ending; its exit answers its runs.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Kills the worker's whole tree of processes at once (the JVM, and bwrap above it when walled). */
  void kill(String why) {
    if (killedFor == null) {
      killedFor = why;
    }
    ending = true;
    List<ProcessHandle> tree = process.descendants().toList();
    for (ProcessHandle p : tree) {
      p.destroyForcibly();
    }
    process.destroyForcibly();
    launched.release();
  }

  boolean busy() {
    return !runs.isEmpty();
  }

  @Override
  public String toString() {
    return "worker " + number + " (pid " + process.pid() + ")";
  }
}
