package org.polyglotsandbox.internal.boundary;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The guest's stdout and stderr: two buffers that share one byte budget. Past the budget, bytes are
 * counted and dropped, and {@code onOverflow} runs once (it stops the run). Never blocks, never throws
 * to the guest. What is kept can also be streamed as it is written ({@link #streamTo}): decoded,
 * sanitised text, one piece per write.
 */
public final class BoundedOutput {
  private final long budget;
  private final Runnable onOverflow;
  private final AtomicLong written = new AtomicLong();
  private final Stream out = new Stream();
  private final Stream err = new Stream();
  private volatile boolean overflowed;
  private volatile ChunkSink sink;
  /** While set, writes are dropped unseen: the sandbox's own set-up code wrote them, not the guest. */
  private volatile boolean muted;
  private final AtomicLong undeliveredChunks = new AtomicLong();

  /** Where streamed output goes; it must never block. */
  public interface ChunkSink {
    /** Takes one piece of text; returns false if it will not be delivered. */
    boolean offer(boolean stderr, String text);
  }

  public BoundedOutput(long budget, Runnable onOverflow) {
    this.budget = budget;
    this.onOverflow = onOverflow;
  }

  /** Streams what is kept from now on to {@code sink}, besides buffering it. Call before the run starts. */
  public void streamTo(ChunkSink sink) {
    this.sink = sink;
  }

  /**
   * Runs {@code setUp} (the sandbox's own code in the run's context, before the guest's) with this
   * output muted: what it writes is neither kept, counted nor streamed.
   */
  public void muteWhile(Runnable setUp) {
    muted = true;
    try {
      setUp.run();
    } finally {
      muted = false;
    }
  }

  /** Pieces the sink refused (its queue was full). */
  public long undeliveredChunks() {
    return undeliveredChunks.get();
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

  /** Bytes the guest wrote to stdout, kept or not. */
  public long stdoutBytes() {
    return out.kept.size() + out.dropped.get();
  }

  /** Bytes the guest wrote to stderr, kept or not. */
  public long stderrBytes() {
    return err.kept.size() + err.dropped.get();
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
    /** Guarded by this: the decoder of streamed text and the bytes of a character not yet complete. */
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    private byte[] partial = new byte[0];

    @Override
    public void write(int b) {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      if (muted) {
        return;
      }
      long before = written.getAndAdd(len);
      long room = Math.max(0, budget - before);
      int keep = (int) Math.min(room, len);
      if (keep > 0) {
        synchronized (kept) {
          kept.write(b, off, keep);
        }
        ChunkSink s = sink;
        if (s != null) {
          stream(s, b, off, keep);
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

    private synchronized void stream(ChunkSink s, byte[] b, int off, int len) {
      ByteBuffer in = ByteBuffer.allocate(partial.length + len).put(partial).put(b, off, len).flip();
      CharBuffer out = CharBuffer.allocate(in.remaining());
      decoder.decode(in, out, false);
      partial = new byte[in.remaining()]; // at most three bytes of a character the next write completes
      in.get(partial);
      String text = TextSanitizer.clean(out.flip()).text();
      // Offered under this stream's lock, so that pieces reach the sink in the order written.
      if (!text.isEmpty() && !s.offer(this == err, text)) {
        undeliveredChunks.incrementAndGet();
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
