package org.polyglotsandbox.internal.filesystem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AccessMode;
import java.nio.file.ClosedFileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.internal.EnforcementSink;
import org.polyglotsandbox.internal.spi.RunFile;

/**
 * The run's in-memory tree is made only when something needs it (most runs have no mounts and touch no
 * file), and a run answers the same whether or not it was made.
 */
class LazyTreeTest {
  private final List<String> denials = new ArrayList<>();
  private final EnforcementSink sink = new EnforcementSink() {
    @Override
    public void denied(Operation operation, String target, Layer layer) {
      denials.add(operation.id() + " " + target);
    }

    @Override
    public void limitReached(Limit limit, String detail, Layer layer) {}
  };

  @Test
  void aRunWithoutMountsOrFiles_neverMakesTheTree_andIsStillDeniedEverything() throws Exception {
    try (GuestFileSystem fs = GuestFileSystem.empty(Policy.computeOnly(Language.JAVASCRIPT), sink)) {
      fs.copyMountsIn();
      fs.addRunFiles(List.of());
      assertThatThrownBy(() -> fs.checkAccess(Path.of("/etc/passwd"), Set.of(AccessMode.READ)))
          .isInstanceOf(AccessDeniedException.class);
      assertThatThrownBy(() -> fs.readAttributes(Path.of("/home/sandbox"), "basic:size"))
          .isInstanceOf(AccessDeniedException.class);
      assertThatThrownBy(() -> fs.newDirectoryStream(Path.of("/etc"), null)).isInstanceOf(AccessDeniedException.class);
      assertThatThrownBy(() -> fs.createDirectory(Path.of("/tmp/x"))).isInstanceOf(AccessDeniedException.class);
      assertThat(fs.bytesUsed()).isZero();
      assertThat(fs.files()).isZero();
      assertThat(fs.isMade()).as("tree made for checks that never reach it").isFalse();
      assertThat(denials).containsExactly("file.read /etc/passwd", "file.read /home/sandbox", "file.list /etc",
          "file.create /tmp/x");
      // The root may always be listed: then the (empty) tree is made, and it shows nothing.
      try (var root = fs.newDirectoryStream(Path.of("/"), null)) {
        assertThat(root.iterator().hasNext()).isFalse();
      }
      assertThat(fs.isMade()).isTrue();
    }
  }

  @Test
  void anOpenIsJudgedTheSame_andMakesTheTreeOnlyThen() throws Exception {
    try (GuestFileSystem fs = GuestFileSystem.empty(Policy.computeOnly(Language.PYTHON), sink)) {
      fs.copyMountsIn();
      assertThatThrownBy(() -> fs.newByteChannel(Path.of("/tmp/out.txt"),
          Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE))).isInstanceOf(AccessDeniedException.class);
      assertThat(denials).containsExactly("file.create /tmp/out.txt");
      assertThat(fs.files()).isZero();
    }
  }

  @Test
  void runFiles_makeTheTree_andAreReadable() throws Exception {
    try (GuestFileSystem fs = GuestFileSystem.empty(Policy.computeOnly(Language.PYTHON), sink)) {
      fs.copyMountsIn();
      fs.addRunFiles(List.of(new RunFile("/work/in.txt", "hello".getBytes(StandardCharsets.UTF_8), false)));
      assertThat(fs.isMade()).isTrue();
      try (var ch = fs.newByteChannel(Path.of("/work/in.txt"), Set.of(StandardOpenOption.READ))) {
        assertThat(ch.size()).isEqualTo(5);
      }
      assertThat(fs.files()).isEqualTo(2); // /work and /work/in.txt
    }
  }

  @Test
  void mountsAreCopiedIn_atTheirFirstRun(@TempDir Path host) throws Exception {
    Files.writeString(host.resolve("in.csv"), "a,b\n");
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT)
        .mount(Mount.readOnly(host.resolve("in.csv"), "/data/in.csv")).build();
    try (GuestFileSystem fs = GuestFileSystem.empty(policy, sink)) {
      assertThat(fs.isMade()).isFalse();
      fs.copyMountsIn();
      assertThat(fs.isMade()).isTrue();
      assertThat(Files.readString(fs.inMemory("/data/in.csv"))).isEqualTo("a,b\n");
    }
  }

  @Test
  void aTreeNeededAfterClose_isClosed() throws Exception {
    GuestFileSystem fs = GuestFileSystem.empty(Policy.computeOnly(Language.JAVASCRIPT), sink);
    fs.close();
    assertThat(fs.bytesUsed()).isZero();
    assertThatThrownBy(() -> Files.readAllBytes(fs.inMemory("/x"))).isInstanceOf(ClosedFileSystemException.class);
  }
}
