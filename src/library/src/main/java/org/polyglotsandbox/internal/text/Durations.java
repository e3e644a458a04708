package org.polyglotsandbox.internal.text;

import java.time.Duration;

/**
 * How the sandbox words a duration for people (limit notes, limit details, tool timeouts), so that a
 * limit reads the same wherever it is named.
 */
public final class Durations {
  private Durations() {}

  /**
   * A duration as a setting is usually written: whole seconds as {@code 20 s}, anything else in whole
   * milliseconds, such as {@code 300 ms} or {@code 1500 ms}. What lies below a millisecond is dropped,
   * so a duration shorter than one millisecond reads {@code 0 s}.
   */
  public static String format(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
