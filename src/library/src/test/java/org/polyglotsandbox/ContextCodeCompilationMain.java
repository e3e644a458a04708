package org.polyglotsandbox;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import jdk.jfr.consumer.RecordingStream;

/**
 * Entry point for {@link ContextCodeCompilationTest}, run in a forked JVM with a small heap: makes
 * {@code args[0]} Python contexts back to back (a fresh one per run, as always), then waits
 * {@code args[1]} seconds for the compiler. Prints one {@code COMPILED root tier success reason} line
 * per finished Truffle compilation of the sandbox's own per-context code, then {@code HEALTHY}.
 *
 * <p>The process shield's function runs once in every Python context. While its code was shared by
 * every context of the engine, the runs added up to the compilation threshold, and GraalVM 25.0.3's
 * partial evaluator then built a graph of hundreds of MiB for it (544,706 invoke nodes at one look) on
 * a compiler thread, outside any run's allocation: in a 512 MiB heap the compilation failed with
 * {@code OutOfMemoryError} after 20.8 s, and the runs and the host starved beside it.
 */
public final class ContextCodeCompilationMain {
  private ContextCodeCompilationMain() {}

  public static void main(String[] args) throws InterruptedException {
    int runs = Integer.parseInt(args[0]);
    ConcurrentLinkedQueue<String> compiled = new ConcurrentLinkedQueue<>();
    try (RecordingStream jfr = new RecordingStream()) {
      for (String event : new String[] {"jdk.graal.compiler.truffle.Compilation",
          "jdk.graal.compiler.truffle.CompilationFailure"}) {
        jfr.enable(event);
        jfr.onEvent(event, e -> {
          String root = e.hasField("rootFunction") ? e.getString("rootFunction") : "?";
          if (root != null && root.startsWith("__sandbox")) {
            compiled.add("COMPILED " + root + " " + e.getValue("truffleTier") + " "
                + (e.hasField("success") ? e.getValue("success") : "false") + " "
                + (e.hasField("failureReason") ? String.valueOf(e.getString("failureReason")).replaceAll("\\s", "_") : "-"));
          }
        });
      }
      jfr.startAsync();
      Policy policy = Policy.builder().allowLanguages(Language.PYTHON).build();
      try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).build()) {
        for (int i = 0; i < runs; i++) {
          ExecutionResult r = sandbox.run(Language.PYTHON, "6*7");
          if (!r.isOk()) {
            System.out.println("FAILED run " + i + ": " + r);
          }
        }
        Thread.sleep(Duration.ofSeconds(Long.parseLong(args[1])));
        compiled.forEach(System.out::println);
        System.out.println("HEALTHY " + sandbox.run(Language.PYTHON, "6*7").value());
      }
    }
  }
}
