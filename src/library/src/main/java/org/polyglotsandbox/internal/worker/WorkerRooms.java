package org.polyglotsandbox.internal.worker;

import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.internal.spi.ApiAccess;
import org.polyglotsandbox.internal.spi.SandboxCore;

/** The {@link SandboxCore.Factory} for process isolation, which {@code META-INF/services} and {@code module-info} name. */
public final class WorkerRooms implements SandboxCore.Factory {
  public WorkerRooms() {}

  @Override
  public boolean serves(Isolation isolation) {
    return isolation.isProcess();
  }

  @Override
  public SandboxCore create(SandboxCore.Settings settings, ApiAccess api) {
    return WorkerRoom.start(settings, api);
  }
}
