package org.polyglotsandbox.internal.probe;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Script;

/**
 * The guest program that runs probe bodies: it calls each body as a function {@code probe(audit)},
 * catches what it throws ("blocked: " and the error), and returns a map from probe id to answer, each
 * answer cut to 400 characters. Bombs are whole programs and run without it.
 */
final class GuestDriver {
  private static final String JS_DRIVER = """
      (() => {
        const results = {};
        for (const id of Object.keys(probes)) {
          let answer;
          try {
            answer = new Function('audit', probes[id])(audit);
          } catch (e) {
            answer = 'blocked: ' + String(e);
          }
          if (answer !== null && typeof answer === 'object' && typeof answer.then === 'function') {
            results[id] = 'unexpected: the promise did not settle';
            answer.then(v => { results[id] = String(v).slice(0, 400); },
              e => { results[id] = ('blocked: ' + String(e)).slice(0, 400); });
          } else {
            results[id] = String(answer).slice(0, 400);
          }
        }
        return results;
      })()
      """;

  /** Catches {@code Exception}, not {@code BaseException}: {@code sys.exit} must end the run. */
  private static final String PY_DRIVER = """
      def __audit(probes, audit, shared):
          results = {}
          for pid, body in probes.items():
              ns = dict(shared)
              ns['__name__'] = '__probe__'
              try:
                  source = 'def probe(audit):\\n' + '\\n'.join('    ' + line for line in body.split('\\n'))
                  exec(compile(source, '<' + pid + '>', 'exec'), ns)
                  answer = ns['probe'](audit)
              except Exception as e:
                  answer = 'blocked: ' + type(e).__name__ + ': ' + str(e)
              results[pid] = str(answer)[:400]
          return results
      __audit(probes, audit, {'tools': tools} if 'tools' in globals() else {})
      """;

  private GuestDriver() {}

  /**
   * A program running {@code body} of each probe and returning a map from probe id to its answer.
   *
   * @param data the fixtures every probe receives as {@code audit}
   */
  static Script script(Language language, List<Probe> probes, Function<Probe, String> body, Map<String, Object> data) {
    Map<String, Object> bodies = new LinkedHashMap<>();
    probes.forEach(p -> bodies.put(p.id(), body.apply(p)));
    String code = language == Language.JAVASCRIPT ? JS_DRIVER : PY_DRIVER;
    return Script.of(language, code).named(language == Language.JAVASCRIPT ? "audit.js" : "audit.py")
        .withInputs(Map.of("probes", bodies, "audit", data));
  }

  /** A bomb: its whole program, named after it. */
  static Script bomb(Probe p, Map<String, Object> data) {
    String name = "audit-" + p.id().replaceAll("[^A-Za-z0-9_.-]", "_") + p.language().extensions().get(0);
    return Script.of(p.language(), p.code()).named(name).withInputs(Map.of("audit", data));
  }

  /** The driver's answers, or null if the run ended before it returned them. */
  static Map<String, String> answers(ExecutionResult r) {
    if (!r.isOk() || !(r.value() instanceof Map<?, ?> map)) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>();
    map.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
    return out;
  }

  /** Probe {@code p}'s answer in a driver run, or null if the run ended before the driver returned. */
  static String answer(ExecutionResult r, Probe p) {
    Map<String, String> answers = answers(r);
    return answers == null ? null : answers.get(p.id());
  }
}
