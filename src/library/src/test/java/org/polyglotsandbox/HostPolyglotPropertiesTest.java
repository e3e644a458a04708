package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * GraalVM reads {@code -Dpolyglot.<option>} system properties into every engine built with its
 * defaults. Those are the host's settings for its own contexts: the sandbox's engine must neither
 * break on them nor take them over. Each test sets the properties (tests in this module run one at a
 * time in one JVM) and removes them afterwards.
 */
class HostPolyglotPropertiesTest {
  private final Map<String, String> set = new java.util.LinkedHashMap<>();

  private void hostSets(String key, String value) {
    assertThat(System.getProperty(key)).as("%s is not set before the test", key).isNull();
    set.put(key, value);
    System.setProperty(key, value);
  }

  @AfterEach
  void removeProperties() {
    set.keySet().forEach(System::clearProperty);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void anEngineOptionConstrainedRejects_doesNotBreakBuild(Language language) {
    // CONSTRAINED refuses this option; read from the host's properties, build() threw.
    hostSets("polyglot.engine.TraceCompilation", "true");
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(language)).build()) {
      assertThatRun(sandbox.run(language, "6*7")).isOk().hasValue(42L);
    }
  }

  @Test
  void aLanguageOptionOfTheHost_doesNotChangeWhatGuestCodeSees() {
    // Strict mode would make a plain function's `this` undefined; the guest must see sloppy mode.
    hostSets("polyglot.js.strict", "true");
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT)).build()) {
      assertThatRun(sandbox.run(Language.JAVASCRIPT, "(function () { return this === undefined; })()"))
          .isOk().hasValue(false);
    }
  }
}
