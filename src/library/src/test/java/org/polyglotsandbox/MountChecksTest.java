package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mount of a link to {@code /} is refused by {@code build()}, naming the mount, instead of every run
 * walking the host's {@code /proc} and {@code /sys} and ending with a host path in its message; a mount
 * that cannot be copied in is named by its guest path only.
 */
class MountChecksTest {
  @TempDir
  Path dir;

  @Test
  void aMountOfALinkToTheHostRoot_isRefusedAtBuild_namingTheMount() throws Exception {
    Path link = Files.createSymbolicLink(dir.resolve("everything"), Path.of("/"));
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT)
        .mount(Mount.readOnly(link, "/data")).build();

    assertThatThrownBy(() -> PolyglotSandbox.builder().policy(policy).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("mount /data: host path " + link + " (/) is the host's root directory; mount the files the"
            + " guest needs, not the whole host");
    assertThatThrownBy(() -> PolyglotSandbox.builder().policy(Policy.builder().allowLanguages(Language.JAVASCRIPT)
        .mount(Mount.readOnly(Path.of("/"), "/host")).build()).build())
        .hasMessageStartingWith("mount /host: host path / is the host's root directory");
  }

  @Test
  void aMountThatDoesNotFit_isNamedByItsGuestPath_neverByAHostPath() throws Exception {
    Path data = Files.createDirectory(dir.resolve("secret-host-dir"));
    Files.write(data.resolve("big.bin"), new byte[256 * 1024]);
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT)
        .mount(Mount.readOnly(data, "/data"))
        .limits(Limits.builder().maxFileBytes(64 * 1024).build()).build();

    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).build()) {
      ExecutionResult r = sandbox.run(Language.JAVASCRIPT, "1");

      assertThat(r.errorMessage()).hasValueSatisfying(m -> assertThat(m)
          .startsWith("mount /data could not be prepared")
          .doesNotContain(dir.toString()).doesNotContain("secret-host-dir"));
    }
  }
}
