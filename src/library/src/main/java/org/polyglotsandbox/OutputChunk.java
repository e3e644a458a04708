package org.polyglotsandbox;

import java.util.Objects;

/**
 * A piece of a run's stdout or stderr, as the guest wrote it, for a listener that shows output while
 * the run goes ({@link Script#withOutputListener}). Untrusted text, already sanitised as
 * {@link ExecutionResult#stdout()} is (no escape sequences or control characters but newline and tab)
 * and within the run's {@code maxOutputBytes}: what the cap dropped is never streamed. The chunks of a
 * run, joined in order, are its {@code stdout()} and {@code stderr()}, unless the listener fell behind
 * ({@link ExecutionResult#undeliveredOutputChunks()}) or an escape sequence was split between two writes
 * (each chunk is sanitised on its own: the sequence's printable remains then show as text). A
 * multi-byte character split across two writes arrives whole, in the later chunk.
 *
 * @param runId the run's {@link ExecutionResult#runId()}
 * @param stream which stream the guest wrote to
 * @param text what it wrote, never empty
 */
public record OutputChunk(String runId, Stream stream, String text) {
  /** The guest's two output streams. */
  public enum Stream {
    STDOUT,
    STDERR
  }

  public OutputChunk {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(text, "text");
  }
}
