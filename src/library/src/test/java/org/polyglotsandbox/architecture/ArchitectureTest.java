package org.polyglotsandbox.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The library's shape, stated as rules that fail when broken.
 *
 * <ul>
 *   <li>The API package ({@code org.polyglotsandbox}) reaches the engine room and the escape probe only through
 *       {@code internal.spi}, which {@code internal.engine} implements and {@link java.util.ServiceLoader}
 *       finds: every other internal class the API uses depends on nothing of the API (so no API class
 *       imports an engine-room class that imports it back).
 *   <li>The internal layers form no cycle.
 *   <li>{@code internal.spi} is only the contract: it depends on the API and on API-free classes.
 *   <li>{@code internal.isolation}, the operating-system wall around worker JVMs, depends on the JDK only:
 *       a worker runs its {@code WalledMain} before any GraalVM class is loaded, and the host builds walls
 *       without an engine.
 * </ul>
 */
class ArchitectureTest {
  private static final String API = "org.polyglotsandbox";
  private static final String INTERNAL = "org.polyglotsandbox.internal..";
  private static final String SPI = "org.polyglotsandbox.internal.spi";
  private static JavaClasses library;

  @BeforeAll
  static void importLibrary() {
    library = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(API);
  }

  /** An internal class none of whose dependencies lies in the API package. */
  private static final DescribedPredicate<JavaClass> API_FREE =
      new DescribedPredicate<>("depend on nothing in the API package") {
        @Override
        public boolean test(JavaClass c) {
          return c.getDirectDependenciesFromSelf().stream()
              .noneMatch(d -> d.getTargetClass().getPackageName().equals(API));
        }
      };

  @Test
  void theApi_usesOnlyTheSpiAndApiFreeInternalClasses() {
    classes().that().resideInAPackage(API)
        .should().onlyDependOnClassesThat(DescribedPredicate.not(
            com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage(INTERNAL))
            .or(com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage(SPI))
            .or(API_FREE))
        .because("the API is a thin front: the engine room imports the API, never the other way round")
        .check(library);
  }

  @Test
  void theApi_neverNamesTheEngineRoom() {
    noClasses().that().resideInAPackage(API)
        .should().dependOnClassesThat().resideInAnyPackage("org.polyglotsandbox.internal.engine..",
            "org.polyglotsandbox.internal.limits..", "org.polyglotsandbox.internal.pool..",
            "org.polyglotsandbox.internal.tools..", "org.polyglotsandbox.internal.filesystem..",
            "org.polyglotsandbox.internal.audit..", "org.polyglotsandbox.internal.probe..")
        .check(library);
  }

  @Test
  void internalLayers_haveNoCycles() {
    slices().matching("org.polyglotsandbox.internal.(*)..").should().beFreeOfCycles().check(library);
  }

  @Test
  void theWorkerWall_dependsOnTheJdkOnly() {
    classes().that().resideInAPackage("org.polyglotsandbox.internal.isolation")
        .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.polyglotsandbox.internal.isolation")
        .because("no GraalVM class and no other room of the library may load before the seccomp filter is in place")
        .check(library);
  }

  @Test
  void theSpi_isOnlyTheContract() {
    classes().that().resideInAPackage(SPI)
        .should().onlyDependOnClassesThat(DescribedPredicate.not(
            com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage(INTERNAL))
            .or(com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage(SPI))
            .or(API_FREE))
        .check(library);
  }
}
