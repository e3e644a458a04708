package org.polyglotsandbox.internal.probe;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The probe's room drives sandboxes as an embedder would: it uses the exported API, the JDK and the contract it implements ({@code internal.spi}) only, no
 * other internal package and no GraalVM type (see its package-info).
 */
class ProbeRoomTest {
  @Test
  void probeRoom_usesOnlyTheExportedApiAndTheJdk() {
    JavaClasses room = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("org.polyglotsandbox.internal.probe");

    classes().that().resideInAPackage("org.polyglotsandbox.internal.probe")
        .should().onlyDependOnClassesThat()
        .resideInAnyPackage("org.polyglotsandbox", "org.polyglotsandbox.internal.probe", "org.polyglotsandbox.internal.spi", "java..")
        .check(room);
  }
}
