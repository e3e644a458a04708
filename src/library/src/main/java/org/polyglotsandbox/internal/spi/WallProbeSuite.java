package org.polyglotsandbox.internal.spi;

import java.util.List;
import java.util.ServiceLoader;
import org.polyglotsandbox.EscapeProbe;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox.Isolation;

/**
 * The escape probe's family for the operating-system wall as {@link EscapeProbe} sees it. Implemented in
 * {@code internal.worker}, which builds workers' walls, and found with {@link ServiceLoader}, so that
 * neither the API nor the probe room imports it.
 */
public abstract class WallProbeSuite {
  private static final WallProbeSuite SUITE = ServiceLoader.load(WallProbeSuite.class,
          WallProbeSuite.class.getClassLoader()).findFirst()
      .orElseThrow(() -> new IllegalStateException("polyglot-sandbox's wall probe is missing from its jar ("
          + "META-INF/services/" + WallProbeSuite.class.getName() + ")"));

  protected WallProbeSuite() {}

  /**
   * Attacks the operating-system wall from inside a worker's wall for {@code policy} under {@code isolation}.
   *
   * @throws IllegalStateException if the wall cannot be built or the attacks do not report
   */
  public static List<EscapeProbe.WallAttack> attack(Isolation isolation, Policy policy) {
    return SUITE.run(isolation, policy);
  }

  /** See {@link #attack}. */
  protected abstract List<EscapeProbe.WallAttack> run(Isolation isolation, Policy policy);
}
