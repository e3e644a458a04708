package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
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
      assertThat(d.requires().stream().map(ModuleDescriptor.Requires::name).filter(n -> !n.startsWith("java.")
          && !n.startsWith("jdk.")).collect(Collectors.toSet()))
          .as("what the library imposes on a module-path application")
          .containsExactlyInAnyOrder("org.graalvm.polyglot", "com.google.common.jimfs", "com.fasterxml.jackson.core",
              "json.schema");
    }
  }

  /**
   * At most 18 top-level public types: the API is small enough to read in one sitting. Adding one means
   * removing or nesting another.
   */
  @Test
  void theApiHasAtMost18TopLevelPublicTypes() {
    Set<String> exported = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("org.polyglotsandbox").stream()
        .filter(c -> c.getPackageName().equals("org.polyglotsandbox") && c.isTopLevelClass()
            && c.getModifiers().contains(JavaModifier.PUBLIC))
        .map(JavaClass::getSimpleName)
        .collect(Collectors.toCollection(TreeSet::new));
    assertThat(exported).hasSizeLessThanOrEqualTo(18).containsExactlyInAnyOrder("AuditEvent", "EscapeProbe",
        "ExecutionResult", "Language", "Layer", "Limit", "Limits", "Mount", "Operation", "Outcome", "Policy",
        "PolicyReport", "PolyglotSandbox", "SandboxEvent", "Script", "Tool", "ToolException", "Verdict");
  }
}
