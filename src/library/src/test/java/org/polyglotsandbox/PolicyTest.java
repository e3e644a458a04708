package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Policies, mounts and limits are immutable, deny by default, and reject bad values naming them. */
class PolicyTest {
  @Test
  void emptyPolicy_isRejected() {
    assertThatThrownBy(() -> Policy.builder().build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("policy allows no language");
  }

  @Test
  void computeOnly_allowsNothingButTheLanguages() {
    Policy p = Policy.computeOnly(Language.PYTHON);
    assertThat(p.languages()).containsExactly(Language.PYTHON);
    assertThat(p.allows(Language.JAVASCRIPT)).isFalse();
    assertThat(p.mounts()).isEmpty();
    assertThat(p.limits()).isEqualTo(Limits.defaults());
    assertThat(p.toBuilder().build()).isEqualTo(p);
  }

  @Test
  void overlappingMounts_areRejectedNamingBothPaths() {
    assertThatThrownBy(() -> Policy.builder().allowLanguages(Language.JAVASCRIPT)
        .mount(Mount.scratch("/data")).mount(Mount.scratch("/data/sub")).build())
        .hasMessage("mounts overlap at guest paths /data and /data/sub");
  }

  @Test
  void guestPaths_mustBeAbsoluteAndStayPut() {
    assertThatThrownBy(() -> Mount.scratch("data")).hasMessageContaining("'data' must be absolute");
    assertThatThrownBy(() -> Mount.scratch("/a/../b")).hasMessageContaining("'/a/../b' must not contain '..'");
    assertThatThrownBy(() -> Mount.scratch("/")).hasMessageContaining("must not be the root");
    assertThat(Mount.scratch("//a/./b/").guestPath()).isEqualTo("/a/b");
  }

  @Test
  void mountContains_itsOwnPathAndWhatLiesBelow_segmentBySegment() {
    Mount data = Mount.scratch("/data");
    assertThat(data.contains("/data")).isTrue();
    assertThat(data.contains("/data/")).isTrue();
    assertThat(data.contains("/data/in.csv")).isTrue();
    assertThat(data.contains("//data/./sub//in.csv/")).isTrue();
    assertThat(data.contains("/data/...")).as("three dots are a name").isTrue();
    assertThat(data.contains("/database")).isFalse();
    assertThat(data.contains("/database/in.csv")).isFalse();
    assertThat(data.contains("/dat")).isFalse();
    assertThat(data.contains("/Data/in.csv")).isFalse();
    assertThat(data.contains("/")).as("the root lies in no mount").isFalse();
    assertThat(data.contains("//")).isFalse();
  }

  @Test
  void mountContains_isFalseForHostilePaths() {
    Mount data = Mount.scratch("/data");
    for (String hostile : new String[] {"/data/../etc/passwd", "/data/..", "/data/x/..", "/../data", "/data/./../data",
        "data", "data/in.csv", "./data", "", "/data\0/in.csv", "/data/\0", "/data\\..\\etc", "\\data\\in.csv"}) {
      assertThat(data.contains(hostile)).as(hostile.replace("\0", "\\0")).isFalse();
    }
    assertThatThrownBy(() -> data.contains(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void directoriesLeadingToMounts_areTheRootAndEveryDirectoryAboveAMount() {
    Policy p = Policy.builder().allowLanguages(Language.PYTHON).mount(Mount.scratch("/out/run/a"))
        .mount(Mount.scratch("/data")).mount(Mount.scratch("/out/logs")).build();
    assertThat(p.directoriesLeadingToMounts()).containsExactly("/", "/out", "/out/run");
    assertThat(Policy.computeOnly(Language.PYTHON).directoriesLeadingToMounts()).containsExactly("/");
    assertThat(p.directoriesLeadingToMounts()).doesNotContain("/data", "/out/run/a", "/ou");
  }

  @Test
  void mountFor_isTheOneMountAPathLiesIn() {
    Mount data = Mount.scratch("/data");
    Mount database = Mount.scratch("/database");
    Mount run = Mount.scratch("/out/run");
    Policy p = Policy.builder().allowLanguages(Language.PYTHON).mount(data).mount(database).mount(run).build();
    assertThat(p.mountFor("/data/in.csv")).contains(data);
    assertThat(p.mountFor("/database")).contains(database);
    assertThat(p.mountFor("/database/")).contains(database);
    assertThat(p.mountFor("/out/run/a/b")).contains(run);
    assertThat(p.mountFor("/out")).as("on the way to a mount, not inside one").isEmpty();
    assertThat(p.mountFor("/out/running")).isEmpty();
    assertThat(p.mountFor("/")).isEmpty();
    assertThat(p.mountFor("/data/../database/x")).isEmpty();
    assertThat(p.mountFor("data/in.csv")).as("relative, whatever the working directory").isEmpty();
    assertThat(Policy.computeOnly(Language.PYTHON).mountFor("/")).isEmpty();
    assertThatThrownBy(() -> p.mountFor(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void mountsThatOnlyShareAPrefix_doNotOverlap() {
    assertThat(Policy.builder().allowLanguages(Language.JAVASCRIPT)
        .mount(Mount.scratch("/data")).mount(Mount.scratch("/database")).build().mounts()).hasSize(2);
    assertThatThrownBy(() -> Policy.builder().allowLanguages(Language.JAVASCRIPT)
        .mount(Mount.scratch("/data/sub")).mount(Mount.scratch("//data/")).build())
        .hasMessage("mounts overlap at guest paths /data/sub and /data");
  }

  @Test
  void mountsDefaultToTheirNamedAccess() {
    assertThat(Mount.readOnly(Path.of("x"), "/x").operations()).containsExactlyInAnyOrder(Operation.FILE_READ, Operation.FILE_LIST);
    assertThat(Mount.readOnly(Path.of("x"), "/x").isWritable()).isFalse();
    assertThat(Mount.readWrite(Path.of("x"), "/x").operations()).containsExactlyElementsOf(Operation.mountOperations());
    assertThatThrownBy(() -> Mount.of(Path.of("x"), "/x", Set.of(Operation.FILE_LINK)))
        .hasMessage("mount /x: file.link is not an operation a mount can allow ([file.read, file.write, file.create, file.delete, file.list])");
    assertThatThrownBy(() -> Mount.of(Path.of("x"), "/x", Set.of(Operation.PROCESS_SPAWN))).hasMessageContaining("process.spawn");
    assertThatThrownBy(() -> Mount.of(Path.of("x"), "/x", Set.of())).hasMessageContaining("allows no operation");
  }

  @Test
  void workingDirectory_mustBeInsideAMount() {
    assertThatThrownBy(() -> Policy.builder().allowLanguages(Language.PYTHON).workingDirectory("/tmp").build())
        .hasMessage("working directory /tmp is not inside any mount");
    assertThatThrownBy(() -> Policy.builder().allowLanguages(Language.PYTHON).mount(Mount.scratch("/data"))
        .workingDirectory("/database").build())
        .hasMessage("working directory /database is not inside any mount");
    assertThat(Policy.builder().allowLanguages(Language.PYTHON).mount(Mount.scratch("/data"))
        .workingDirectory("/data/sub/").build().workingDirectory()).isEqualTo("/data/sub");
  }

  @Test
  void limits_rejectOutOfRangeValuesNamingThem() {
    assertThatThrownBy(() -> Limits.builder().maxStatements(0)).hasMessage("maxStatements (0) must be positive");
    assertThatThrownBy(() -> Limits.builder().wallTime(Duration.ZERO)).hasMessage("wallTime (PT0S) must be positive");
    assertThatThrownBy(() -> Limits.builder().stackSize(1024)).hasMessageContaining("stackSize (1024)");
    assertThatThrownBy(() -> Limits.builder().maxOutputBytes(-1)).hasMessage("maxOutputBytes (-1) must be positive");
    Limits l = Limits.builder().maxStatements(5).build();
    assertThat(l.toBuilder().build()).isEqualTo(l).isNotEqualTo(Limits.defaults());
  }

  @Test
  void sandbox_rejectsMissingPolicyAndMissingHostFiles() {
    assertThatThrownBy(() -> PolyglotSandbox.builder().build()).hasMessageContaining("no policy set");
    Policy p = Policy.builder().allowLanguages(Language.JAVASCRIPT)
        .mount(Mount.readOnly(Path.of("/nonexistent/input.csv"), "/data/input.csv")).build();
    assertThatThrownBy(() -> PolyglotSandbox.builder().policy(p).build())
        .hasMessage("mount /data/input.csv: host path /nonexistent/input.csv does not exist");
  }

  @Test
  void languages_parseFromIdsAndFileNames() {
    assertThat(Language.fromId("JS")).isEqualTo(Language.JAVASCRIPT);
    assertThat(Language.fromId("python")).isEqualTo(Language.PYTHON);
    assertThat(Language.forFileName("x.mjs")).contains(Language.JAVASCRIPT);
    assertThat(Language.forFileName("x.rb")).isEmpty();
    assertThatThrownBy(() -> Language.fromId("ruby")).hasMessageContaining("unknown language 'ruby'");
  }
}
