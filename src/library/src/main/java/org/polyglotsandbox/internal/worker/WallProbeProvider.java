package org.polyglotsandbox.internal.worker;

import java.util.List;
import org.polyglotsandbox.EscapeProbe;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.internal.spi.WallProbeSuite;

/** The {@link WallProbeSuite} that {@code META-INF/services} and {@code module-info} name: {@link WallProbe}. */
public final class WallProbeProvider extends WallProbeSuite {
  public WallProbeProvider() {}

  @Override
  protected List<EscapeProbe.WallAttack> run(Isolation isolation, Policy policy) {
    return WallProbe.attack(isolation, policy).stream()
        .map(a -> new EscapeProbe.WallAttack(a.name(), a.target(), a.refused(), a.evidence())).toList();
  }
}
