package org.polyglotsandbox.internal.worker;

import org.polyglotsandbox.internal.spi.ApiAccess;
import org.polyglotsandbox.internal.spi.SandboxCore;

/** Makes the engine room of a sandbox with process isolation; the in-process room's provider calls it. */
public final class WorkerRooms {
  private WorkerRooms() {}

  /** Starts the workers and returns their room; see {@code PolyglotSandbox.Builder#isolation}. */
  public static SandboxCore start(SandboxCore.Settings settings, ApiAccess api) {
    return WorkerRoom.start(settings, api);
  }
}
