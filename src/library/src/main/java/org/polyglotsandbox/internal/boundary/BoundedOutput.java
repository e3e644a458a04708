package org.polyglotsandbox.internal.boundary;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The guest's stdout and stderr: two buffers that share one byte budget. Past the budget, bytes are
 * counted and dropped, and {@code onOverflow} runs once (it stops the run). Never blocks, never throws
 * to the guest.
 */
public final class BoundedOutput {
  private final long budget;
  private final Runnable onOverflow;
  private final AtomicLong written = new AtomicLong();
  private final Stream out = new Stream();
  private final Stream err = new Stream();
  private volatile boolean overflowed;

  public BoundedOutput(long budget, Runnable onOverflow) {
    this.budget = budget;
    this.onOverflow = onOverflow;
  }

  public OutputStream stdout() {
    return out;
  }

  public OutputStream stderr() {
    return err;
  }

  /** Bytes the guest wrote in total, including dropped ones. */
  public long bytesWritten() {
    return written.get();
  }

  /** What stdout kept, sanitised ({@link TextSanitizer#fromUtf8}). */
  public TextSanitizer.Result stdoutSanitized() {
    return out.sanitized();
  }

  /** What stderr kept, sanitised ({@link TextSanitizer#fromUtf8}). */
  public TextSanitizer.Result stderrSanitized() {
    return err.sanitized();
  }

  /** Bytes the guest wrote to stdout past the budget, not kept. */
  public long stdoutDropped() {
    return out.dropped.get();
  }

  /** Bytes the guest wrote to stderr past the budget, not kept. */
  public long stderrDropped() {
    return err.dropped.get();
  }

  private final class Stream extends OutputStream {
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final AtomicLong dropped = new AtomicLong();

    @Override
    public void write(int b) {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      long before = written.getAndAdd(len);
      long room = Math.max(0, budget - before);
      int keep = (int) Math.min(room, len);
      if (keep > 0) {
        synchronized (kept) {
          kept.write(b, off, keep);
        }
      }
      if (keep < len) {
        dropped.addAndGet(len - keep);
      }
      if (keep < len && !overflowed) {
        overflowed = true;
        onOverflow.run();
      }
    }

    TextSanitizer.Result sanitized() {
      byte[] bytes;
      synchronized (kept) {
        bytes = kept.toByteArray();
      }
      return TextSanitizer.fromUtf8(bytes);
    }
  }
}
