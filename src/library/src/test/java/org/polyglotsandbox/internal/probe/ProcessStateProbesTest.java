package org.polyglotsandbox.internal.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;

/**
 * The guest code of {@link ProcessStateProbes} compiles: the judge counts a probe that fails as blocked,
 * so a syntax error would pass as a wall that holds.
 */
class ProcessStateProbesTest {
  @Test
  void everyProbe_compilesInItsLanguage() throws Exception {
    List<String> js = new ArrayList<>();
    List<String> py = new ArrayList<>();
    for (Field f : ProcessStateProbes.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class && f.getName().matches("(JS|PY)_.*")) {
        (f.getName().startsWith("JS_") ? js : py).add((String) f.get(null));
      }
    }
    assertThat(js).hasSizeGreaterThanOrEqualTo(3);
    assertThat(py).hasSizeGreaterThanOrEqualTo(10);
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON)).build()) {
      ExecutionResult p = sandbox.run(Script.of(Language.PYTHON, """
          out = []
          for body in sources:
              try:
                  compile('def probe(audit):\\n' + '\\n'.join('    ' + l for l in body.split('\\n')), 'probe', 'exec')
              except SyntaxError as e:
                  out.append(str(e) + ': ' + body[:60])
          out""").withInputs(Map.of("sources", py)));
      assertThat(p.value()).as(p.toString()).isEqualTo(List.of());
      ExecutionResult j = sandbox.run(Script.of(Language.JAVASCRIPT, """
          const out = [];
          for (const body of sources) {
            try { new Function('audit', body); } catch (e) { out.push(e + ': ' + body.slice(0, 60)); }
          }
          out""").withInputs(Map.of("sources", js)));
      assertThat(j.value()).as(j.toString()).isEqualTo(List.of());
    }
  }
}
