package org.polyglotsandbox.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The CLI is an embedder like any other: it uses only the library's exported package. */
class CliArchitectureTest {
  @Test
  void theCli_usesOnlyTheExportedApi() {
    noClasses().that().resideInAPackage("org.polyglotsandbox.cli..")
        .should().dependOnClassesThat().resideInAPackage("org.polyglotsandbox.internal..")
        .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.polyglotsandbox.cli"));
  }
}
