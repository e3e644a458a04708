package org.polyglotsandbox.internal.worker;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.polyglotsandbox.internal.boundary.PlainData;

/**
 * The channel between the host and a worker: frames of a 4-byte big-endian length and that many bytes of
 * UTF-8 JSON, each one JSON object. A reader refuses a frame over its bound before it allocates for it, and
 * anything that is not one JSON object with string keys: {@link ProtocolException}.
 */
final class Frames {
  /** JSON that the wire writes: plain data, deep enough for a result at its depth bound, with no value bound. */
  private static final PlainData.Format WRITE = PlainData.Format.strict(1_000, Integer.MAX_VALUE);

  private Frames() {}

  /** A frame that breaks the channel's rules; the worker that sent it is killed. */
  static final class ProtocolException extends IOException {
    ProtocolException(String message) {
      super(message);
    }

    ProtocolException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Writes one frame; callers serialise writes to one stream. */
  static void write(OutputStream out, Map<String, ?> message) throws IOException {
    byte[] bytes = PlainData.toJson(message, WRITE).getBytes(StandardCharsets.UTF_8);
    DataOutputStream data = out instanceof DataOutputStream d ? d : new DataOutputStream(out);
    data.writeInt(bytes.length);
    data.write(bytes);
    data.flush();
  }

  /**
   * Reads one frame.
   *
   * @throws EOFException at the stream's end between frames
   * @throws ProtocolException if the frame is over {@code maxBytes}, cut short, or not a JSON object
   */
  @SuppressWarnings("unchecked")
  static Map<String, Object> read(InputStream in, int maxBytes) throws IOException {
    DataInputStream data = in instanceof DataInputStream d ? d : new DataInputStream(in);
    int length;
    try {
      length = data.readInt();
    } catch (EOFException e) {
      throw e;
    }
    if (length < 2 || length > maxBytes) {
      throw new ProtocolException("a frame of " + Integer.toUnsignedString(length) + " bytes (at most " + maxBytes
          + ")");
    }
    byte[] bytes = new byte[length];
    try {
      data.readFully(bytes);
    } catch (EOFException e) {
      throw new ProtocolException("a frame cut short");
    }
    Object value;
    try {
      value = PlainData.parse(new String(bytes, StandardCharsets.UTF_8), false);
    } catch (IllegalArgumentException e) {
      throw new ProtocolException("a frame that is not JSON: " + e.getMessage());
    }
    if (!(value instanceof Map<?, ?> map)) {
      throw new ProtocolException("a frame that is not a JSON object");
    }
    return (Map<String, Object>) map;
  }
}
