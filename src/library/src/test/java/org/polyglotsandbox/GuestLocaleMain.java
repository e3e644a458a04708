package org.polyglotsandbox;

import java.util.Locale;
import java.util.TimeZone;

/**
 * Entry point for {@link GuestLocaleForkedTest}, run in a JVM whose default locale is German
 * and time zone Los Angeles ({@code -Duser.language=de -Duser.country=DE
 * -Duser.timezone=America/Los_Angeles}): prints the JVM's own formatting ({@code HOST ...}) and zone
 * ({@code HOSTZONE ...}), then what a JavaScript and a Python guest see of the locale ({@code JS ...},
 * {@code PY ...}) and of the zone and the names of days and months ({@code JSZONE ...},
 * {@code PYZONE ...}), one line each, the values joined with {@code " | "}).
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
      System.out.println("HOSTZONE " + TimeZone.getDefault().getID());
      ExecutionResult jsZone = sandbox.run(Language.JAVASCRIPT, """
          [new Date(0).toString(), new Date(0).getTimezoneOffset(), Intl.DateTimeFormat().resolvedOptions().timeZone,
           new Date(0).toLocaleDateString(undefined, {weekday: 'long', month: 'long', day: 'numeric'})].join(' | ')""");
      System.out.println("JSZONE " + describe(jsZone));
      // Every route GraalPy offers to the zone and to day and month names, and the build line, whose date
      // GraalPy wrote in the JVM's default zone.
      ExecutionResult pyZone = sandbox.run(Language.PYTHON, """
          import time, datetime, calendar, platform, sys
          def attempt(f):
              try:
                  return str(f())
              except ValueError as e:
                  return 'ValueError'
          ' | '.join(str(v) for v in [time.strftime('%Z %z', time.localtime(0)), time.strftime('%Z'), time.tzname,
              time.timezone, time.localtime().tm_zone, str(datetime.datetime.now().astimezone().tzinfo),
              datetime.datetime.fromtimestamp(0).astimezone().isoformat(), time.strftime('%A %B %a %b %c', time.gmtime(0)),
              tuple(time.strptime('Thursday January 1 1970', '%A %B %d %Y'))[:3], attempt(lambda: time.strptime('Donnerstag', '%A')),
              list(calendar.day_name)[:2], list(calendar.month_abbr)[1:4], datetime.date(1970, 1, 1).strftime('%A %d. %B'),
              platform.python_build()[1], sys.version.splitlines()[0]])""");
      System.out.println("PYZONE " + describe(pyZone));
    }
  }

  private static String describe(ExecutionResult r) {
    return r.isOk() ? String.valueOf(r.value()) : "NOT OK " + r;
  }
}
