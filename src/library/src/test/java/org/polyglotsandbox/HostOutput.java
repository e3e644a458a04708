package org.polyglotsandbox;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * What the host wrote while guest code ran: every record the library logged (it logs through
 * {@code System.Logger} "org.polyglotsandbox", which the JDK sends to java.util.logging here) and
 * everything printed to {@code System.err}. Used to assert that no run, whatever its guest did, makes
 * the host print a stack trace or report an internal error.
 */
final class HostOutput implements AutoCloseable {
  /** A line of a printed Java stack trace: {@code at org.x.Y.z(Y.java:1)} or {@code Caused by: ...}. */
  static final Pattern HOST_FRAME = Pattern.compile(
      "(?m)^\\s*at (?:org\\.|java\\.|javax\\.|jdk\\.|sun\\.|com\\.oracle\\.|com\\.google\\.|com\\.fasterxml\\.|dev\\.harrel\\.)"
          + "|^Caused by: |^\\s*at [\\w.$]+\\([\\w$]+\\.java:\\d+\\)");

  private final Logger logger = Logger.getLogger("org.polyglotsandbox");
  private final List<LogRecord> records = new ArrayList<>();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final PrintStream originalErr = System.err;
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord record) {
      synchronized (records) {
        records.add(record);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  private HostOutput() {
    handler.setLevel(Level.ALL);
    logger.addHandler(handler);
    System.setErr(new PrintStream(new OutputStream() {
      @Override
      public void write(int b) {
        synchronized (err) {
          err.write(b);
        }
        originalErr.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        synchronized (err) {
          err.write(b, off, len);
        }
        originalErr.write(b, off, len);
      }
    }, true, StandardCharsets.UTF_8));
  }

  /** Starts capturing; {@link #close} stops. */
  static HostOutput capture() {
    return new HostOutput();
  }

  /** What was captured since the last call, as problems: empty when the host stayed quiet enough. */
  List<String> problemsSinceLastCheck() {
    List<String> out = new ArrayList<>();
    List<LogRecord> seen;
    synchronized (records) {
      seen = List.copyOf(records);
      records.clear();
    }
    for (LogRecord r : seen) {
      String message = String.valueOf(r.getMessage());
      if (r.getThrown() != null) {
        out.add("logged with a stack trace (" + r.getLevel() + "): " + message + ": " + r.getThrown());
      } else if (r.getLevel().intValue() >= Level.SEVERE.intValue()) {
        out.add("logged at " + r.getLevel() + ": " + message);
      } else if (HOST_FRAME.matcher(message).find()) {
        out.add("logged a host frame: " + message);
      }
    }
    String printed;
    synchronized (err) {
      printed = err.toString(StandardCharsets.UTF_8);
      err.reset();
    }
    if (HOST_FRAME.matcher(printed).find()) {
      out.add("printed a host frame on stderr: " + printed.substring(0, Math.min(2000, printed.length())));
    }
    return out;
  }

  @Override
  public void close() {
    logger.removeHandler(handler);
    System.setErr(originalErr);
  }
}
