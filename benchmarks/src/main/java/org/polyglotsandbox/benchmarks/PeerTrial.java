package org.polyglotsandbox.benchmarks;

import org.polyglotsandbox.Language;

/**
 * One trial of a peer benchmark: a design's runner for one task, source mode and language, its first
 * answer checked at set-up, and every later answer checked too. Shared by {@link PeersBenchmark},
 * {@link PythonPeersBenchmark} and {@link PeersThroughputBenchmark}, which differ only in their
 * parameters and JMH modes.
 */
final class PeerTrial implements AutoCloseable {
  private final Peer design;
  private final PeerTask task;
  private final PeerTask.SourceMode source;
  private final Language language;
  private final String code;
  private final Peer.Runner runner;

  private PeerTrial(Peer design, PeerTask task, PeerTask.SourceMode source, Language language) {
    this.design = design;
    this.task = task;
    this.source = source;
    this.language = language;
    this.code = task.code(language);
    this.runner = design.open(language);
  }

  /** Opens the design's runner and checks the answer of a first run (text number 0). */
  static PeerTrial open(Peer design, PeerTask task, PeerTask.SourceMode source, Language language) {
    PeerTrial trial = new PeerTrial(design, task, source, language);
    Object first = trial.run(0);
    System.out.println("# " + design + " task " + task + " " + source + " = " + first + " (checked)");
    return trial;
  }

  /** Runs the task's text number {@code n} (the same text every time, or a unique one) and checks the answer. */
  Object run(long n) {
    return Answers.require(design, task, runner.run(source.text(code, language, n)), task.expected);
  }

  /** Waits, unmeasured, until the design is ready for the next task (a pooled design's pool refilled). */
  void awaitReady() {
    runner.awaitReady();
  }

  /** Where a harness makes its client threads for this design ({@link Peer.Runner#clientThreads()}). */
  java.util.concurrent.ThreadFactory clientThreads() {
    return runner.clientThreads();
  }

  @Override
  public void close() {
    runner.close();
  }
}
