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
import java.util.Set;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.proxy.ProxyExecutable;

/**
 * GraalJS has no file API of its own (no {@code fs}, no {@code read} outside experimental shell
 * mode), so JavaScript guests get one function, {@code readText(path)}, that reads a UTF-8 file through
 * the run's {@link GuestFileSystem}: the same mount rules, the same denial events, no other door.
 *
 * <p>The host side receives a string and returns a primitive only: the file's text as a string, or the
 * index of a failure in {@link Failure} as a number. The guest-side wrapper turns a failure into an
 * ordinary JavaScript {@code Error} it builds itself, so no host object or host exception ever reaches
 * the guest. (The host once returned a map proxy, and a getter the guest had put on
 * {@code Object.prototype} was called with that host object as {@code this}.) The wrapper binds the
 * intrinsics it uses when it is installed, before any guest code: a guest that later replaces
 * {@code Error} or {@code Object.defineProperty} changes nothing of it.
 */
public final class JavaScriptFileApi {
  /**
   * Why a read failed: the guest-side error's code and message, by the index the host returns. The
   * wrapper's table is made from this one, in this order.
   */
  enum Failure {
    NOT_A_PATH("EINVAL", "invalid path: ", false),
    TOO_LARGE("EFBIG", "file too large: ", false),
    DENIED("EACCES", "permission denied, open ", true),
    MISSING("ENOENT", "no such file or directory, open ", true),
    NOT_TEXT("EILSEQ", "not UTF-8 text: ", false),
    UNREADABLE("EIO", "cannot read ", true);

    final String code;
    /** What precedes the path in the message. */
    final String message;
    /** Whether the message quotes the path. */
    final boolean quoted;

    Failure(String code, String message, boolean quoted) {
      this.code = code;
      this.message = message;
      this.quoted = quoted;
    }
  }

  private static final String WRAPPER = """
      (raw) => {
        'use strict';
        const Error_ = Error, TypeError_ = TypeError, define = Object.defineProperty;
        const failures = FAILURES;
        const fail = (code, message) => {
          const e = new Error_(code + ': ' + message);
          define(e, 'code', { __proto__: null, value: code, writable: true, enumerable: true, configurable: true });
          return e;
        };
        const readText = function readText(path) {
          if (typeof path !== 'string') { throw new TypeError_('readText(path): path must be a string'); }
          if (path.length > MAX_PATH) {
            throw fail('ENAMETOOLONG', 'readText(path): a path of ' + path.length + ' characters, longer than '
              + MAX_PATH);
          }
          const r = raw(path);
          if (typeof r === 'string') { return r; }
          const f = failures[typeof r === 'number' && r >= 0 && r < failures.length ? r : failures.length - 1];
          throw fail(f[0], f[1] + (f[2] ? "'" + path + "'" : path));
        };
        define(globalThis, 'readText', { __proto__: null, value: Object.freeze(readText), enumerable: false });
      }""";

  /** A constant: the engine keeps a source's compiled code only while the Source object lives. */
  private static final Source SOURCE = Source.newBuilder("js", WRAPPER
      .replace("MAX_PATH", String.valueOf(JavaScriptFileApi.MAX_PATH))
      .replace("FAILURES", failureTable()), "sandbox-file-api.js").internal(true).buildLiteral();

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
        return Failure.UNREADABLE.ordinal();
      }
    };
    context.eval(SOURCE).execute(raw);
  }

  /** The file's text, or the {@link Failure}'s index: a string or an int, nothing else. */
  private static Object read(GuestFileSystem fs, String path) {
    if (path == null) {
      return Failure.NOT_A_PATH.ordinal();
    }
    Path p;
    try {
      p = fs.parsePath(path);
    } catch (RuntimeException e) {
      return Failure.NOT_A_PATH.ordinal();
    }
    try (SeekableByteChannel ch = fs.newByteChannel(p, Set.of(StandardOpenOption.READ))) {
      if (ch.size() > MAX_BYTES) {
        return Failure.TOO_LARGE.ordinal();
      }
      ByteBuffer buf = ByteBuffer.allocate((int) ch.size());
      while (buf.hasRemaining() && ch.read(buf) >= 0) {
        // fill
      }
      buf.flip();
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE)
          .decode(buf).toString();
    } catch (AccessDeniedException e) {
      return Failure.DENIED.ordinal();
    } catch (NoSuchFileException e) {
      return Failure.MISSING.ordinal();
    } catch (CharacterCodingException e) {
      return Failure.NOT_TEXT.ordinal();
    } catch (IOException e) {
      return Failure.UNREADABLE.ordinal();
    }
  }

  /** {@link Failure} as a JavaScript array literal of [code, message, quoted] triples. */
  private static String failureTable() {
    StringBuilder table = new StringBuilder("[");
    for (Failure f : Failure.values()) {
      table.append(table.length() > 1 ? ", " : "").append("['").append(f.code).append("', '")
          .append(f.message).append("', ").append(f.quoted).append(']');
    }
    return table.append(']').toString();
  }
}
