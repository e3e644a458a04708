package org.polyglotsandbox.internal.filesystem;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Set;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.proxy.ProxyExecutable;
import org.graalvm.polyglot.proxy.ProxyObject;

/**
 * GraalJS has no file API of its own (no {@code fs}, no {@code read} outside experimental shell
 * mode), so JavaScript guests get one function, {@code readText(path)}, that reads a UTF-8 file through
 * the run's {@link GuestFileSystem}: the same mount rules, the same denial events, no other door.
 *
 * <p>The host side only ever receives a string and returns plain strings; a small guest-side wrapper
 * turns failures into ordinary JavaScript {@code Error}s, so no host exception reaches the guest.
 */
public final class JavaScriptFileApi {
  private static final String WRAPPER = """
      (raw) => {
        const readText = function readText(path) {
          if (typeof path !== 'string') { throw new TypeError('readText(path): path must be a string'); }
          if (path.length > MAX_PATH) {
            const e = new Error('ENAMETOOLONG: readText(path): a path of ' + path.length + ' characters, longer than '
              + MAX_PATH);
            e.code = 'ENAMETOOLONG';
            throw e;
          }
          const r = raw(path);
          if (r.error !== undefined) { const e = new Error(r.error); e.code = r.code; throw e; }
          return r.text;
        };
        Object.defineProperty(globalThis, 'readText', { value: Object.freeze(readText), enumerable: false });
      }""";

  /** A constant: the engine keeps a source's compiled code only while the Source object lives. */
  private static final Source SOURCE = Source.newBuilder("js", WRAPPER.replace("MAX_PATH",
      String.valueOf(JavaScriptFileApi.MAX_PATH)), "sandbox-file-api.js").internal(true).buildLiteral();

  /**
   * The longest path {@code readText} takes, checked by the guest-side wrapper before the host copies
   * the path (the host function is held only by the wrapper's closure).
   */
  static final int MAX_PATH = 4096;

  /** The largest file {@code readText} returns: 16 MiB. */
  static final long MAX_BYTES = 16L << 20;

  private JavaScriptFileApi() {}

  /** Defines {@code readText} in a fresh JavaScript context. */
  public static void install(Context context, GuestFileSystem fs) {
    ProxyExecutable raw = args -> {
      try {
        return read(fs, args.length == 1 && args[0].isString() ? args[0].asString() : null);
      } catch (RuntimeException e) {
        // Anything else the file system throws would reach the guest as a host exception.
        System.getLogger("org.polyglotsandbox").log(System.Logger.Level.ERROR, "readText failed", e);
        return failure("EIO", "readText failed");
      }
    };
    context.eval(SOURCE).execute(raw);
  }

  private static ProxyObject read(GuestFileSystem fs, String path) {
    if (path == null) {
      return failure("EINVAL", "readText(path): path must be a string");
    }
    Path p;
    try {
      p = fs.parsePath(path);
    } catch (RuntimeException e) {
      return failure("EINVAL", "invalid path: " + path);
    }
    try (SeekableByteChannel ch = fs.newByteChannel(p, Set.of(StandardOpenOption.READ))) {
      if (ch.size() > MAX_BYTES) {
        return failure("EFBIG", "file too large: " + path);
      }
      ByteBuffer buf = ByteBuffer.allocate((int) ch.size());
      while (buf.hasRemaining() && ch.read(buf) >= 0) {
        // fill
      }
      buf.flip();
      String text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE)
          .decode(buf).toString();
      return ProxyObject.fromMap(Map.of("text", text));
    } catch (AccessDeniedException e) {
      return failure("EACCES", "permission denied, open '" + path + "'");
    } catch (NoSuchFileException e) {
      return failure("ENOENT", "no such file or directory, open '" + path + "'");
    } catch (CharacterCodingException e) {
      return failure("EILSEQ", "not UTF-8 text: " + path);
    } catch (IOException e) {
      return failure("EIO", "cannot read '" + path + "'");
    }
  }

  private static ProxyObject failure(String code, String message) {
    return ProxyObject.fromMap(Map.of("error", code + ": " + message, "code", code));
  }

}
