package org.polyglotsandbox.internal.engine;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Sends the engine's own diagnostics, line by line, to the host's {@link System.Logger}. */
public final class LogOutputStream extends OutputStream {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox.engine");
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();

  @Override
  public synchronized void write(int b) {
    if (b == '\n') {
      flush();
    } else if (line.size() < 64 * 1024) {
      line.write(b);
    }
  }

  @Override
  public synchronized void flush() {
    if (line.size() > 0) {
      LOG.log(System.Logger.Level.WARNING, line.toString(StandardCharsets.UTF_8));
      line.reset();
    }
  }
}
