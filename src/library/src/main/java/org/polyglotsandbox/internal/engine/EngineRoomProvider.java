package org.polyglotsandbox.internal.engine;

import org.polyglotsandbox.internal.spi.ApiAccess;
import org.polyglotsandbox.internal.spi.SandboxCore;

/** The {@link SandboxCore.Factory} that {@code META-INF/services} and {@code module-info} name. */
public final class EngineRoomProvider implements SandboxCore.Factory {
  public EngineRoomProvider() {}

  @Override
  public boolean serves(org.polyglotsandbox.PolyglotSandbox.Isolation isolation) {
    return !isolation.isProcess();
  }

  @Override
  public SandboxCore create(SandboxCore.Settings settings, ApiAccess api) {
    return EngineRoom.start(settings, api);
  }
}
