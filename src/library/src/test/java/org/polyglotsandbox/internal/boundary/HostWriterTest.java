package org.polyglotsandbox.internal.boundary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Names that could lead a host write out of its directory are refused before anything is written. */
class HostWriterTest {
  @TempDir Path root;

  @ParameterizedTest
  @ValueSource(strings = {"/../escape.txt", "/a/../../escape.txt", "/./a", "/a/b\\..\\..\\c", "/a/c:d", "/a/\u0000b",
      "/a/\u202ecod.exe", "/"})
  void unsafeNames_areRefused_andNothingIsWritten(String guestPath) throws IOException {
    assertThatThrownBy(() -> HostWriter.write(root, guestPath, new byte[] {1}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("output file");
    assertThatThrownBy(() -> HostWriter.target(root, guestPath)).isInstanceOf(IllegalArgumentException.class);
    try (var entries = Files.list(root)) {
      assertThat(entries).isEmpty();
    }
    assertThat(root.getParent().resolve("escape.txt")).doesNotExist();
  }

  @Test
  void safeNames_areWrittenInside_creatingDirectories() throws IOException {
    Path written = HostWriter.write(root, "/out/deep/r\u00e9sum\u00e9 2024.csv", "ok".getBytes());
    assertThat(written).isEqualTo(root.toRealPath().resolve("out/deep/r\u00e9sum\u00e9 2024.csv")).hasContent("ok");
    assertThat(HostWriter.target(root, "/out/x.csv")).isEqualTo(root.toRealPath().resolve("out/x.csv"));
  }

  @Test
  void aFileOnTheWay_isNotADirectory() throws IOException {
    Files.writeString(root.resolve("out"), "a file");
    assertThatThrownBy(() -> HostWriter.write(root, "/out/x.csv", new byte[0]))
        .isInstanceOf(java.nio.file.NotDirectoryException.class);
  }
}
