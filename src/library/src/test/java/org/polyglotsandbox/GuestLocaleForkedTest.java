package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The host's locale and time zone never reach a guest: in a JVM whose default locale is German and
 * whose zone is Los Angeles, a JavaScript guest still formats and collates in {@code en-US} and a
 * Python guest runs in {@code C}, both in UTC with English names of days and months, as on any other
 * server. Before the fix, GraalJS's {@code Intl} and GraalPy's {@code locale} answered
 * {@code de-DE} and formatted {@code 1.234.567,5}. GraalPy's {@code format(x, 'n')} still follows the
 * JVM's default locale (docs/limits.md, Locale), so it is not checked here.
 */
@Tag("slow")
class GuestLocaleForkedTest {
  private static String output;

  @BeforeAll
  static void runInAGermanJvm() throws Exception {
    ForkedJvm.Result fork = ForkedJvm.run(GuestLocaleMain.class, "512m", 5,
        List.of("-Duser.language=de", "-Duser.country=DE",
        "-Duser.timezone=America/Los_Angeles"), List.of());
    output = fork.output();
    assertThat(fork.finished()).as("finished:\n%s", output).isTrue();
    assertThat(fork.exitStatus()).as("exit status:\n%s", output).isZero();
  }

  private static String line(String prefix) {
    return output.lines().filter(l -> l.startsWith(prefix + " ")).findFirst().map(l -> l.substring(prefix.length() + 1))
        .orElseThrow(() -> new AssertionError("no " + prefix + " line in:\n" + output));
  }

  @Test
  void theForkedJvm_isGerman() {
    assertThat(line("HOST")).isEqualTo("de-DE | 1.234.567,5");
    assertThat(line("HOSTZONE")).isEqualTo("America/Los_Angeles");
  }

  @Test
  void javascript_seesUtc_andEnglishNames() {
    assertThat(line("JSZONE")).isEqualTo("Thu Jan 01 1970 00:00:00 GMT+0000 (GMT) | 0 | UTC | Thursday, January 1");
  }

  @Test
  void python_seesUtc_andTheCLocalesNames_onEveryRoute() {
    String py = line("PYZONE");
    assertThat(py).isEqualTo("UTC +0000 | UTC | ('UTC', 'UTC') | 0 | UTC | UTC | 1970-01-01T00:00:00+00:00"
        + " | Thursday January Thu Jan Thu Jan  1 00:00:00 1970 | (1970, 1, 1) | ValueError"
        + " | ['Monday', 'Tuesday'] | ['Jan', 'Feb', 'Mar'] | Thursday 01. January | Jan  1 2000"
        + " | 3.12.8 (main, Jan  1 2000, 00:00:00)");
    assertThat(py).doesNotContain("Los_Angeles", "PST", "PDT", "Donnerstag", "Januar ", "com.oracle", "java.",
        "org.graalvm");
  }

  @Test
  void javascript_formatsAndCollatesInEnUs() {
    assertThat(line("JS")).isEqualTo(
        "en-US | en-US | 1,234,567.5 | 1/1/1970, 12:00:00\u202fAM | 0.5 | aäb | January");
  }

  @Test
  void python_runsInC_evenWhenItAsksForTheEnvironmentsLocale() {
    assertThat(line("PY")).isEqualTo(
        "(None, None) | C | . | 1.5 | 0.5 | Thu Jan  1 00:00:00 1970 | C | (None, None) | C | 2.5");
  }
}
