package org.polyglotsandbox.langchain4j;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The adapter uses only the library's exported package, never its engine room. */
class ExportedApiOnlyTest {
  @Test
  void theAdapter_touchesNothingInternalOfTheLibrary() throws Exception {
    // The module's own classes directory only: scanning the class path for the package takes seconds.
    JavaClasses adapter = new ClassFileImporter()
        .importPath(Path.of(SandboxTools.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
    noClasses().should().dependOnClassesThat().resideInAPackage("org.polyglotsandbox.internal..")
        .check(adapter);
  }
}
