package org.polyglotsandbox.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox.Isolation;
import org.polyglotsandbox.internal.isolation.OsWall;

/** Where the host cannot give the whole wall, process isolation is refused, naming what is missing, unless accepted weak. */
class WorkerLauncherTest {
  private static final Policy POLICY = Policy.computeOnly(Language.JAVASCRIPT);

  @Test
  void hostWithoutBubblewrap_isRefused_namingItAndTheWeakWall() {
    OsWall.Report report = without("bwrap");
    assertThatThrownBy(() -> WorkerLauncher.forHost(Isolation.process(), POLICY, report))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("bwrap").hasMessageContaining(report.layer("bwrap").detail())
        .hasMessageContaining("weakWall()");
  }

  @Test
  void hostWithoutSeccomp_isRefused_namingIt() {
    assertThatThrownBy(() -> WorkerLauncher.forHost(Isolation.process(), POLICY, without("seccomp")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("seccomp");
  }

  @Test
  void weakWallAccepted_runsAPlainChildJvm_andSaysSo() {
    WorkerLauncher launcher = WorkerLauncher.forHost(Isolation.processBuilder().weakWall().build(), POLICY,
        without("bwrap"));
    assertThat(launcher.wall()).startsWith("weak").contains("bwrap");
    launcher.close();
  }

  @Test
  void thisHost_givesTheWholeWall() {
    // The machines this project builds on have bubblewrap (.ci/run installs it): the full wall is the normal case.
    OsWall.Report report = OsWall.inspect();
    assertThat(report.full()).as(report.missing()).isTrue();
    WorkerLauncher launcher = WorkerLauncher.forHost(Isolation.process(), POLICY, report);
    assertThat(launcher.wall()).contains("bubblewrap").contains("seccomp");
    launcher.close();
  }

  private static OsWall.Report without(String layer) {
    List<OsWall.Layer> layers = new ArrayList<>();
    for (OsWall.Layer l : OsWall.inspect().layers()) {
      layers.add(l.name().equals(layer) ? new OsWall.Layer(layer, false, "missing: install it (test)") : l);
    }
    return new OsWall.Report(layers);
  }
}
