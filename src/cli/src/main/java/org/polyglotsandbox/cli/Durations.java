package org.polyglotsandbox.cli;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them on a command line or in a policy file: a decimal number and a unit,
 * {@code ms}, {@code s} or {@code m}, with no space ({@code 500ms}, {@code 2s}, {@code 1.5s},
 * {@code 1m}). Nothing else is accepted: no bare numbers, no ISO-8601, no hours.
 */
final class Durations {
  static final String HINT = "use 500ms, 2s, 1.5s or 1m";

  private static final Pattern SYNTAX = Pattern.compile("(\\d{1,9}(?:\\.\\d{1,3})?)(ms|s|m)");

  private Durations() {}

  /**
   * Parses a duration.
   *
   * @throws IllegalArgumentException naming the text, if it is not a duration or is zero
   */
  static Duration parse(String text) {
    Matcher m = SYNTAX.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException(Text.quote(text) + " is not a duration (" + HINT + ")");
    }
    long nanosPerUnit = switch (m.group(2)) {
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      default -> 60_000_000_000L;
    };
    // At most 9 integer digits of minutes and 3 decimals: always a whole number of nanoseconds in a long.
    long nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(nanosPerUnit)).longValueExact();
    if (nanos == 0) {
      throw new IllegalArgumentException(Text.quote(text) + " must be longer than zero");
    }
    return Duration.ofNanos(nanos);
  }

  /** A duration for a report: whole milliseconds below a minute, such as {@code 1250 ms}. */
  // Only measurements go through here (a run's wall and CPU time, how long an audit took): the library
  // hands those over as Duration values and never words them. Durations it does word (limits, tool
  // timeouts) reach the CLI already written, in PolicyReport notes and limit details, and are printed as
  // they come. A measurement is rarely a whole second, so it keeps its own shape.
  static String format(Duration d) {
    return d.toMillis() < 60_000 ? d.toMillis() + " ms" : String.format("%.1f s", d.toMillis() / 1000.0);
  }
}
