package org.polyglotsandbox;

import java.util.Locale;

/**
 * Entry point for {@link GuestLocaleForkedTest}, run in a JVM whose default locale is German
 * ({@code -Duser.language=de -Duser.country=DE}): prints the JVM's own formatting ({@code HOST ...}),
 * then what a JavaScript and a Python guest see of the locale, one line each ({@code JS ...},
 * {@code PY ...}, the values joined with {@code " | "}).
 */
public final class GuestLocaleMain {
  private GuestLocaleMain() {}

  public static void main(String[] args) {
    System.out.println("HOST " + Locale.getDefault().toLanguageTag() + " | " + String.format("%,.1f", 1234567.5));
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON)).build()) {
      ExecutionResult js = sandbox.run(Language.JAVASCRIPT, """
          [Intl.DateTimeFormat().resolvedOptions().locale, new Intl.NumberFormat().resolvedOptions().locale,
           (1234567.5).toLocaleString(), new Date(0).toLocaleString(), new Intl.NumberFormat().format(0.5),
           ['b', 'a', 'ä'].sort(new Intl.Collator().compare).join(''),
           new Intl.DateTimeFormat(undefined, {month: 'long'}).format(new Date(0))].join(' | ')""");
      System.out.println("JS " + describe(js));
      // Every way GraalPy offers to read the locale; setlocale(LC_ALL, '') asks for "the environment's".
      ExecutionResult py = sandbox.run(Language.PYTHON, """
          import locale, _locale, time
          ' | '.join(str(v) for v in [locale.getlocale(), locale.setlocale(locale.LC_ALL),
              locale.localeconv()['decimal_point'], locale.str(1.5), locale.format_string('%.1f', 0.5),
              time.strftime('%c', time.gmtime(0)), locale.setlocale(locale.LC_ALL, ''), locale.getlocale(),
              _locale.setlocale(_locale.LC_NUMERIC, ''), locale.str(2.5)])""");
      System.out.println("PY " + describe(py));
    }
  }

  private static String describe(ExecutionResult r) {
    return r.isOk() ? String.valueOf(r.value()) : "NOT OK " + r;
  }
}
