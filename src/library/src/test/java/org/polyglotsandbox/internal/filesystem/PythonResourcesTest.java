package org.polyglotsandbox.internal.filesystem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GraalPy's extracted home is checked against the python-resources artifact: a copy of the real home in
 * a temporary directory (never the shared host cache) passes, and each way of poisoning it is refused
 * with a message naming the file.
 */
class PythonResourcesTest {
  private static PythonResources resources;
  private static Path realHome;

  @TempDir Path temp;
  private Path home;

  @BeforeAll
  static void findTheArtifact() {
    resources = PythonResources.find();
    assertThat(resources).as("python-resources on the class path").isNotNull();
    realHome = InterpreterFiles.locate().pythonHomes().get(0);
    assertThat(realHome.getFileName().toString()).isEqualTo(resources.versionHash());
    // If GraalVM extracted anything, it is the directory named so (the sandbox's warm-up also checks
    // that GraalPy's sys.prefix lies there).
    Path homes = realHome.getParent();
    if (Files.isDirectory(homes)) {
      assertThat(realHome).isDirectory();
    }
  }

  @BeforeEach
  void copyTheHome() throws IOException {
    // GraalVM extracts the home on first use; a build() in another test class may not have run yet.
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(realHome), "GraalPy home is extracted at " + realHome);
    home = temp.resolve(realHome.getFileName().toString());
    try (Stream<Path> walk = Files.walk(realHome)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        Files.copy(p, home.resolve(realHome.relativize(p).toString()));
      }
    }
  }

  @Test
  void anUntouchedCopy_passes() {
    for (int i = 0; i < 4; i++) {
      long start = System.nanoTime();
      resources.verify(home);
      System.out.printf("verifying GraalPy's home took %d ms%n", (System.nanoTime() - start) / 1_000_000);
    }
  }

  @Test
  void aChangedStandardLibraryFile_isRefused() throws IOException {
    Path json = home.resolve("lib/python3.12/json/__init__.py");
    Files.writeString(json, "\nimport evil\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    assertRefused("lib/python3.12/json/__init__.py differs");
  }

  @Test
  void aFileChangedWithoutChangingItsSizeOrTime_isRefused() throws IOException {
    Path os = home.resolve("lib/python3.12/os.py");
    byte[] bytes = Files.readAllBytes(os);
    var time = Files.getLastModifiedTime(os);
    bytes[0] = (byte) (bytes[0] ^ 1);
    Files.write(os, bytes);
    Files.setLastModifiedTime(os, time);
    assertRefused("lib/python3.12/os.py differs");
  }

  @Test
  void aFileChangedAfterAPassingCheck_isRefusedByTheNextCheck() throws IOException {
    resources.verify(home); // the full comparison; later checks in this JVM compare sizes and times
    Path json = home.resolve("lib/python3.12/json/__init__.py");
    Files.writeString(json, "\nimport evil\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    assertRefused("lib/python3.12/json/__init__.py differs");
  }

  @Test
  void aModuleAddedAfterAPassingCheck_isRefusedByTheNextCheck() throws IOException {
    resources.verify(home);
    Files.writeString(home.resolve("lib/python3.12/sitecustomize.py"), "import evil\n");
    assertRefused("lib/python3.12/sitecustomize.py is not part of the python-resources artifact");
  }

  @Test
  void anAddedModule_isRefused() throws IOException {
    Files.writeString(home.resolve("lib/python3.12/sitecustomize.py"), "import evil\n");
    assertRefused("lib/python3.12/sitecustomize.py is not part of the python-resources artifact");
  }

  @Test
  void aMissingFile_isRefused() throws IOException {
    Files.delete(home.resolve("lib/python3.12/json/decoder.py"));
    assertRefused("lib/python3.12/json/decoder.py is missing");
  }

  @Test
  void aFileReplacedByALink_isRefused() throws IOException {
    Path so = home.resolve("lib/graalpy25.0/libposix.so");
    Files.delete(so);
    Files.createSymbolicLink(so, temp.resolve("elsewhere.so"));
    assertRefused("lib/graalpy25.0/libposix.so is a link");
  }

  private void assertRefused(String detail) {
    assertThatThrownBy(() -> resources.verify(home))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(home.toString())
        .hasMessageContaining(detail);
  }
}
