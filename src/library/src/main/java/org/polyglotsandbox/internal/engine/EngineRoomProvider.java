package org.polyglotsandbox.internal.engine;

import org.polyglotsandbox.internal.spi.ApiAccess;
import org.polyglotsandbox.internal.spi.SandboxCore;

/** The {@link SandboxCore.Factory} that {@code META-INF/services} and {@code module-info} name. */
public final class EngineRoomProvider implements SandboxCore.Factory {
  public EngineRoomProvider() {}

  @Override
  public SandboxCore create(SandboxCore.Settings settings, ApiAccess api) {
    return settings.isolation().isProcess() ? org.polyglotsandbox.internal.worker.WorkerRooms.start(settings, api)
        : EngineRoom.start(settings, api);
  }
}
