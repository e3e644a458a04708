package org.polyglotsandbox.mcp;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The MCP server is an embedder like any other: it uses only the library's exported package. */
class McpArchitectureTest {
  @Test
  void theMcpServer_usesOnlyTheExportedApi() {
    noClasses().that().resideInAPackage("org.polyglotsandbox.mcp..")
        .should().dependOnClassesThat().resideInAPackage("org.polyglotsandbox.internal..")
        .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.polyglotsandbox.mcp"));
  }

  @Test
  void hostToolNames_becomeMcpSafeNames() {
    org.assertj.core.api.Assertions.assertThat(RunTools.hostToolName("kv.get")).isEqualTo("kv_get");
    org.assertj.core.api.Assertions.assertThat(RunTools.hostToolName("a.b_c.d")).isEqualTo("a_b_c_d")
        .matches("^[a-zA-Z0-9_-]{1,64}$");
  }
}
