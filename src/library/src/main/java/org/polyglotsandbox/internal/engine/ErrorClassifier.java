package org.polyglotsandbox.internal.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.SourceSection;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.internal.boundary.TextSanitizer;

/**
 * Maps a {@link PolyglotException} to an outcome and a guest-facing message. Host detail (class
 * names, host stack frames, host exception text) never makes it into the message.
 */
public final class ErrorClassifier {
  /** The classification of one failure. */
  public record Verdict(Outcome outcome, Limit limit, String message, List<String> stack, Integer exitStatus,
      Operation denied) {}

  private static final int MAX_FRAMES = 32;
  /** How the message of an interpreter's own failure ends ({@link #isInterpreterFailure}). */
  private static final String INTERPRETER_FAILURE = " (an internal error of the interpreter, not of the sandbox)";
  private static final int HEAD = 4096;

  private ErrorClassifier() {}

  /** Classifies a failure when no limit tripped. */
  public static Verdict classify(PolyglotException e) {
    if (e.isExit()) {
      int status = e.getExitStatus();
      return new Verdict(status == 0 ? Outcome.OK : Outcome.GUEST_ERROR, null,
          status == 0 ? null : "exited with status " + status, List.of(), status, null);
    }
    if (e.isSyntaxError()) {
      return new Verdict(Outcome.SYNTAX_ERROR, null, withLocation(TextSanitizer.withoutHostNames(e.getMessage()), e.getSourceLocation()),
          List.of(), null, null);
    }
    if (e.isResourceExhausted() && !e.isCancelled()) {
      String m = head(e).toLowerCase(Locale.ROOT);
      if (m.contains("stack")) {
        return new Verdict(Outcome.LIMIT_EXCEEDED, Limit.STACK, "the stack was exhausted by deep recursion",
            List.of(), null, null);
      }
      if (m.contains("memory") || m.contains("heap")) {
        return new Verdict(Outcome.LIMIT_EXCEEDED, Limit.MEMORY, "the host heap refused an allocation", List.of(),
            null, null);
      }
    }
    if (e.isGuestException() && !e.isInternalError()) {
      // Exhaustion the guest language reports as its own error, left uncaught: the run ended on a cap.
      String m = head(e);
      if (m.startsWith("RangeError: Maximum call stack size exceeded") || m.startsWith("RecursionError")) {
        return new Verdict(Outcome.LIMIT_EXCEEDED, Limit.STACK, TextSanitizer.withoutHostNames(e.getMessage()),
            guestFrames(e), null, null);
      }
      if (m.startsWith("MemoryError")) {
        return new Verdict(Outcome.LIMIT_EXCEEDED, Limit.MEMORY, TextSanitizer.withoutHostNames(e.getMessage()),
            guestFrames(e), null, null);
      }
    }
    if (e.isInternalError() && heapRanOut(e)) {
      return new Verdict(Outcome.LIMIT_EXCEEDED, Limit.MEMORY, "the host heap ran out while the guest ran", List.of(),
          null, null);
    }
    if (e.isInternalError() || e.isHostException()) {
      Operation op = deniedOperation(head(e));
      if (op == null && loadsNativeCode(e)) {
        op = Operation.NATIVE_ACCESS;
      }
      if (op != null) {
        return new Verdict(Outcome.GUEST_ERROR, null, "PermissionError: " + describe(op)
            + " is not permitted in this sandbox", guestFrames(e), null, op);
      }
      String posix = graalPyPosixError(e);
      if (posix != null) {
        // GraalPy 25.0.3 turns some of its own POSIX errors (os.rename onto a directory that is not empty)
        // into an internal error instead of raising OSError: the guest's error, not the sandbox's.
        return new Verdict(Outcome.GUEST_ERROR, null, "OSError: " + posix, guestFrames(e), null, null);
      }
      if (head(e).contains("BigInteger would overflow")) {
        // GraalPy lets the host's BigInteger refuse a huge result (pow(10, 10**9)) instead of raising.
        return new Verdict(Outcome.GUEST_ERROR, null, "OverflowError: integer result too large", guestFrames(e),
            null, null);
      }
      String language = e.isInternalError() ? interpreterAtFault(e) : null;
      if (language != null) {
        // The interpreter broke on the guest's code with none of the sandbox's code on the way (a null
        // pointer in a GraalPy builtin, a POSIX call its Java backend lacks): a guest error, never the
        // sandbox's INTERNAL_ERROR, so guest code alone cannot end a run as a sandbox bug.
        return new Verdict(Outcome.GUEST_ERROR, null, language.equals("Python")
            ? "SystemError: the Python interpreter failed on this code" + INTERPRETER_FAILURE
            : "InternalError: the " + language + " engine failed on this code" + INTERPRETER_FAILURE,
            guestFrames(e), null, null);
      }
      return new Verdict(Outcome.INTERNAL_ERROR, null, "internal error in the sandbox", List.of(), null, null);
    }
    if (e.isCancelled()) {
      return cancelled("run cancelled by the host");
    }
    return new Verdict(Outcome.GUEST_ERROR, null, TextSanitizer.withoutHostNames(e.getMessage()), guestFrames(e), null, null);
  }

  /** What names the host heap running out in an internal error's trace. */
  private static final String HEAP_ERROR = "java.lang.OutOfMemoryError";
  /** How much of an internal error's trace is searched for {@link #HEAP_ERROR}. */
  private static final int TRACE_SEARCHED = 64 * 1024;

  /**
   * Whether an internal error is the host heap running out: its trace (the only place the engine shows an
   * internal error's causes) names an {@link OutOfMemoryError}. The engine can wrap one in something else:
   * a context made while the heap was full failed with "IllegalArgumentException: Self-suppression not
   * permitted", the JVM's one preallocated error added to itself while the language was initialised. The
   * trace (its first line the message) is searched as it is printed, none of it kept; a search that itself
   * runs out of heap says yes.
   */
  static boolean heapRanOut(PolyglotException e) {
    Search search = new Search(HEAP_ERROR, TRACE_SEARCHED);
    try {
      e.printStackTrace(new java.io.PrintWriter(search));
    } catch (OutOfMemoryError full) {
      return true;
    } catch (RuntimeException unprintable) {
      // what was printed before it still counts
    }
    return search.found;
  }

  /** A writer that keeps nothing and remembers whether {@code wanted} went through it, in its first {@code max} chars. */
  private static final class Search extends java.io.Writer {
    private final String wanted;
    private long left;
    private int matched;
    boolean found;

    Search(String wanted, long max) {
      this.wanted = wanted;
      this.left = max;
    }

    @Override
    public void write(char[] chars, int off, int len) {
      for (int i = off; i < off + len && !found && left > 0; i++, left--) {
        char c = chars[i];
        // wanted's first character occurs only at its start, so a mismatch restarts the match here
        matched = c == wanted.charAt(matched) ? matched + 1 : c == wanted.charAt(0) ? 1 : 0;
        found = matched == wanted.length();
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  /**
   * The start of the message, for recognising it: a guest can throw an error whose message is hundreds
   * of megabytes, and the engine's own messages that matter here are short.
   */
  private static String head(PolyglotException e) {
    String m = String.valueOf(e.getMessage());
    return m.length() > HEAD ? m.substring(0, HEAD) : m;
  }

  /** The run was ended by the host (close, a cancelled future, an interrupted caller), not by the guest. */
  static Verdict cancelled(String message) {
    return new Verdict(Outcome.CANCELLED, null, message, List.of(), null, null);
  }

  /** Recognises GraalVM's own refusals that surface as host exceptions instead of guest errors. */
  static Operation deniedOperation(String hostMessage) {
    String m = hostMessage.toLowerCase(Locale.ROOT);
    if (m.contains("process creation is not allowed") || m.contains("createprocess")) {
      return Operation.PROCESS_SPAWN;
    }
    if ((m.contains("socket") || m.contains("getaddrinfo") || m.contains("gethostby") || m.contains("connect")
        || m.contains("bind") || m.contains("listen") || m.contains("accept"))
        && (m.contains("excluded") || m.contains("not allowed"))) {
      return Operation.NETWORK_SOCKET;
    }
    if (m.contains("creating threads is not allowed") || m.contains("thread creation")) {
      return Operation.THREAD_CREATE;
    }
    if (m.contains("native access is not allowed")) {
      return Operation.NATIVE_ACCESS;
    }
    if (m.contains("host class") && m.contains("not allowed")) {
      return Operation.HOST_ACCESS;
    }
    return null;
  }

  /**
   * GraalPy's ctypes and C API need native access; without it they fail inside the engine instead of
   * raising a Python error.
   */
  private static boolean loadsNativeCode(PolyglotException e) {
    for (StackTraceElement frame : e.getStackTrace()) {
      String c = frame.getClassName();
      if (c.contains(".cext.") || c.contains(".ctypes.") || c.contains(".nfi.")) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code v} is an interpreter's own failure on the guest's code, answered as a guest error. */
  public static boolean isInterpreterFailure(Verdict v) {
    return v.outcome() == Outcome.GUEST_ERROR && v.message() != null && v.message().endsWith(INTERPRETER_FAILURE);
  }

  /**
   * The name of the guest language whose own implementation threw {@code e}, or null when the sandbox's
   * code was on the stack between the guest and the failure (a file system, tool or boundary callback):
   * the frames from the top down to the first frame of the polyglot API, where the host's own stack
   * (the run, or the boundary reading a guest value) begins.
   */
  static String interpreterAtFault(PolyglotException e) {
    for (StackTraceElement frame : e.getStackTrace()) {
      String c = frame.getClassName();
      if (c.startsWith("org.graalvm.polyglot.")) {
        break;
      }
      if (c.startsWith("org.polyglotsandbox.")) {
        return null;
      }
    }
    for (PolyglotException.StackFrame f : e.getPolyglotStackTrace()) {
      if (f.isGuestFrame() && f.getLanguage() != null) {
        return TextSanitizer.oneLine(f.getLanguage().getName(), 40);
      }
    }
    return null;
  }

  /**
   * The errno text of a POSIX error GraalPy failed to raise as {@code OSError} (its
   * {@code OSErrorEnum.toRuntimeException} in the stack), or null.
   */
  private static String graalPyPosixError(PolyglotException e) {
    for (StackTraceElement frame : e.getStackTrace()) {
      if (frame.getClassName().endsWith(".OSErrorEnum") && frame.getMethodName().equals("toRuntimeException")) {
        String m = head(e);
        String text = m.substring(m.lastIndexOf(": ") + 1).strip();
        return TextSanitizer.oneLine(TextSanitizer.withoutHostNames(text.isEmpty() ? "operation failed" : text), 200);
      }
      if (frame.getClassName().startsWith("org.graalvm.polyglot.")) {
        break; // past the engine: the rest is the host's own stack
      }
    }
    return null;
  }

  private static String describe(Operation op) {
    return switch (op) {
      case PROCESS_SPAWN -> "process creation";
      case NETWORK_SOCKET -> "network access";
      case THREAD_CREATE -> "thread creation";
      case NATIVE_ACCESS -> "native access";
      case HOST_ACCESS -> "host access";
      default -> op.id();
    };
  }

  private static String withLocation(String message, SourceSection at) {
    if (at == null || at.getSource() == null || message.contains(at.getSource().getName() + ":")) {
      return message;
    }
    return message + " (" + at.getSource().getName() + ":" + at.getStartLine() + ")";
  }

  private static List<String> guestFrames(PolyglotException e) {
    List<String> out = new ArrayList<>();
    for (PolyglotException.StackFrame f : e.getPolyglotStackTrace()) {
      if (!f.isGuestFrame()) {
        continue;
      }
      SourceSection at = f.getSourceLocation();
      String where = at == null || at.getSource() == null ? "<unknown>"
          : at.getSource().getName() + ":" + at.getStartLine();
      String name = f.getRootName();
      out.add(TextSanitizer.withoutHostNames(name == null || name.isEmpty() ? where : where + " (" + name + ")"));
      if (out.size() == MAX_FRAMES) {
        break;
      }
    }
    return out;
  }
}
