package org.polyglotsandbox.internal.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The report's shape, whatever this host has: every layer named, present or absent with how to get it. */
class OsWallTest {
  @Test
  void theReport_namesEveryLayer_andEachAbsentOneSaysWhatIsMissing() {
    OsWall.Report report = OsWall.inspect();
    assertThat(report.layers()).extracting(OsWall.Layer::name).containsExactly(OsWall.BWRAP, OsWall.NAMESPACES,
        OsWall.SECCOMP, OsWall.RLIMITS, OsWall.CGROUP_MEMORY, OsWall.CGROUP_PIDS);
    for (OsWall.Layer l : report.layers()) {
      assertThat(l.detail()).as(l.name()).isNotBlank();
      assertThat(l.detail().startsWith("missing:")).as(l.name() + ": " + l.detail()).isEqualTo(!l.present());
    }
    assertThat(report.missing().isEmpty()).isEqualTo(report.layers().stream().allMatch(OsWall.Layer::present));
    assertThat(OsWall.inspect()).as("cached").isSameAs(report);
  }

  @Test
  void full_needsBwrapNamespacesSeccompAndRlimits_butNoCgroup() {
    List<OsWall.Layer> all = List.of(new OsWall.Layer(OsWall.BWRAP, true, "b"), new OsWall.Layer(OsWall.NAMESPACES, true, "n"),
        new OsWall.Layer(OsWall.SECCOMP, true, "s"), new OsWall.Layer(OsWall.RLIMITS, true, "r"),
        new OsWall.Layer(OsWall.CGROUP_MEMORY, false, "missing: m"), new OsWall.Layer(OsWall.CGROUP_PIDS, false, "missing: p"));
    OsWall.Report report = new OsWall.Report(all);
    assertThat(report.full()).isTrue();
    assertThat(report.cgroupMemory()).isFalse();
    assertThat(report.missing()).isEqualTo("The worker's wall lacks cgroup memory (missing: m); cgroup pids (missing: p).");
    for (int i = 0; i < 4; i++) {
      List<OsWall.Layer> lacking = new java.util.ArrayList<>(all);
      OsWall.Layer l = lacking.get(i);
      lacking.set(i, new OsWall.Layer(l.name(), false, "missing: x"));
      assertThat(new OsWall.Report(lacking).full()).as("without " + l.name()).isFalse();
    }
    assertThat(new OsWall.Report(List.of()).full()).as("a layer never inspected is absent").isFalse();
  }
}
