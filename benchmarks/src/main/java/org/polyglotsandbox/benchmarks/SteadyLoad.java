package org.polyglotsandbox.benchmarks;

import java.util.concurrent.atomic.AtomicLong;
import org.polyglotsandbox.Language;

/**
 * One JavaScript {@link Peer design} under steady load, for attaching an outside tool (strace, perf) to
 * a JVM that runs nothing else: {@code threads} client threads (from the design's
 * {@link Peer.Runner#clientThreads()}) run task B with a new text each time, back to back, and every
 * second the tasks done so far are printed, until {@code seconds} have passed. The profiles and GC logs
 * in docs/performance.md ("Saturated throughput") were taken this way; futex calls per task, for one:
 *
 * <pre>{@code
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.SteadyLoad benchmarks/run SANDBOX_POOLED 2 100 &
 * sleep 85; timeout 5 strace -f -e trace=futex -p <pid> -o futex.txt   # jstack <pid> maps thread ids to names
 * }</pre>
 */
public final class SteadyLoad {
  private SteadyLoad() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      throw new IllegalArgumentException("usage: SteadyLoad <design> <threads> <seconds>");
    }
    Peer design = Peer.valueOf(args[0]);
    int threads = Integer.parseInt(args[1]);
    int seconds = Integer.parseInt(args[2]);
    PeerTrial trial = PeerTrial.open(design, PeerTask.B, PeerTask.SourceMode.UNIQUE, Language.JAVASCRIPT);
    AtomicLong texts = new AtomicLong(1);
    AtomicLong done = new AtomicLong();
    for (int i = 0; i < threads; i++) {
      Thread client = trial.clientThreads().newThread(() -> {
        while (true) {
          trial.run(texts.getAndIncrement());
          done.incrementAndGet();
        }
      });
      client.setName("client-" + i);
      client.setDaemon(true);
      client.start();
    }
    long last = 0;
    for (int s = 1; s <= seconds; s++) {
      Thread.sleep(1000);
      long d = done.get();
      System.out.println("t=" + s + " tasks=" + d + " per-second=" + (d - last));
      last = d;
    }
    System.exit(0); // the clients never stop by themselves
  }
}
