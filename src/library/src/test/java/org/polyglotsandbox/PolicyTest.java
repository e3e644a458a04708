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
