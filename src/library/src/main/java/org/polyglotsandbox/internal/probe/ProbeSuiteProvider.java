package org.polyglotsandbox.internal.probe;

import java.util.List;
import org.polyglotsandbox.EscapeProbe;
import org.polyglotsandbox.internal.spi.ProbeSuite;

/** The {@link ProbeSuite} that {@code META-INF/services} and {@code module-info} name: the standard battery. */
public final class ProbeSuiteProvider extends ProbeSuite {
  public ProbeSuiteProvider() {}

  @Override
  protected List<EscapeProbe.Result> run(Settings settings) {
    return new ProbeRunner(settings, List.of()).run();
  }
}
