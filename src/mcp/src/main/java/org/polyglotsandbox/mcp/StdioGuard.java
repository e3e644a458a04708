package org.polyglotsandbox.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

/**
 * The stdio transport's front door: the stream the SDK's {@code StdioServerTransportProvider} reads.
 * It reads the client's newline-delimited messages from the real stdin, passes each through {@link
 * Inbound}, and hands the SDK only what it forwards; errors for lines the SDK would choke on (not
 * UTF-8, not JSON, not JSON-RPC, longer than {@code maxMessageBytes}) are written to stdout here, under
 * the same lock the SDK writes with, so the two never interleave. A line that is too long is skipped as
 * it streams in, never held whole.
 */
final class StdioGuard extends InputStream {
  private final InputStream in;
  private final OutputStream out;
  private final ObjectMapper json;
  private final Inbound inbound;
  private final int maxMessageBytes;
  private final CountDownLatch eof = new CountDownLatch(1);
  private final byte[] chunk = new byte[64 * 1024];
  private int chunkPos;
  private int chunkEnd;
  private byte[] current = new byte[0];
  private int currentPos;
  private boolean ended;

  /**
   * @param out the stream the SDK writes to (the same object: its lock keeps lines whole)
   */
  StdioGuard(InputStream in, OutputStream out, ObjectMapper json, Inbound inbound, int maxMessageBytes) {
    this.in = in;
    this.out = out;
    this.json = json;
    this.inbound = inbound;
    this.maxMessageBytes = maxMessageBytes;
  }

  /** Counts down when the client's stdin has ended (or failed). */
  CountDownLatch eof() {
    return eof;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public synchronized int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    while (currentPos >= current.length) {
      if (ended || !nextMessage()) {
        return -1;
      }
    }
    int n = Math.min(len, current.length - currentPos);
    System.arraycopy(current, currentPos, b, off, n);
    currentPos += n;
    return n;
  }

  /** Reads lines until one is forwarded; false at the end of stdin. */
  private boolean nextMessage() throws IOException {
    while (true) {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      long length = 0;
      boolean sawNewline = false;
      boolean anything = false;
      while (!sawNewline) {
        if (chunkPos >= chunkEnd) {
          int n;
          try {
            n = in.read(chunk);
          } catch (IOException e) {
            n = -1;
          }
          if (n < 0) {
            break;
          }
          chunkPos = 0;
          chunkEnd = n;
        }
        anything = true;
        int start = chunkPos;
        while (chunkPos < chunkEnd && chunk[chunkPos] != '\n') {
          chunkPos++;
        }
        int count = chunkPos - start;
        if (chunkPos < chunkEnd) {
          sawNewline = true;
          chunkPos++;
        }
        if (length + count <= maxMessageBytes) {
          line.write(chunk, start, count);
        }
        length += count;
      }
      if (!anything) {
        finish();
        return false;
      }
      if (length > maxMessageBytes) {
        reply(Inbound.error(json, null, McpSchema.ErrorCodes.INVALID_REQUEST, "message of " + length
            + " bytes refused: at most " + maxMessageBytes + " bytes per message"));
      } else {
        byte[] bytes = line.toByteArray();
        int end = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        String text;
        try {
          text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, end)).toString();
        } catch (CharacterCodingException e) {
          reply(Inbound.error(json, null, McpSchema.ErrorCodes.PARSE_ERROR, "message is not UTF-8 text"));
          text = null;
        }
        if (text != null) {
          Inbound.Verdict v = inbound.inspect(text, SandboxMcpServer.STDIO);
          if (v instanceof Inbound.Forward f) {
            current = (f.text() + "\n").getBytes(StandardCharsets.UTF_8);
            currentPos = 0;
            return true;
          }
          if (v instanceof Inbound.Reply r) {
            reply(r.response());
          }
        }
      }
      if (!sawNewline) {
        finish();
        return false;
      }
    }
  }

  private void finish() {
    ended = true;
    eof.countDown();
  }

  private void reply(String response) {
    try {
      byte[] bytes = (response + "\n").getBytes(StandardCharsets.UTF_8);
      synchronized (out) {
        out.write(bytes);
        out.flush();
      }
    } catch (IOException e) {
      // stdout is gone: the client left; the end of stdin will follow
    }
  }
}
