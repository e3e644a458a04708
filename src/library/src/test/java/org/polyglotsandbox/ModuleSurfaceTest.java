package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The compiler-enforced public surface: one exported package. */
class ModuleSurfaceTest {
  @Test
  void onlyTheApiPackageIsExported() throws IOException, java.net.URISyntaxException {
    Path classes = Path.of(PolyglotSandbox.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    try (InputStream in = classes.toFile().isDirectory()
        ? Files.newInputStream(classes.resolve("module-info.class"))
        : new java.util.jar.JarFile(classes.toFile()).getInputStream(new java.util.zip.ZipEntry("module-info.class"))) {
      ModuleDescriptor d = ModuleDescriptor.read(in);
      assertThat(d.name()).isEqualTo("org.polyglotsandbox");
      assertThat(d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()))
          .containsExactly("org.polyglotsandbox");
      assertThat(d.opens().stream().filter(o -> !o.isQualified())).isEmpty();
    }
  }
}
