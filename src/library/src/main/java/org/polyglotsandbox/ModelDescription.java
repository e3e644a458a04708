package org.polyglotsandbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.polyglotsandbox.internal.text.Durations;

/**
 * The paragraph a language model reads for a code-running tool ({@link PolyglotSandbox#describeForModel}):
 * what its code may use under the sandbox's policy, in guest terms only (guest paths, tool names and
 * schemas, limits), never a host path.
 */
final class ModelDescription {
  /** A tool's parameters schema longer than this is cut (and says so): a model needs the shape, not all of it. */
  static final int MAX_SCHEMA_CHARS = 2000;

  private ModelDescription() {}

  static String of(Language language, Policy policy, List<Tool> tools, List<String> pythonPath,
      List<String> pythonImports, PolyglotSandbox.Isolation isolation) {
    boolean js = language == Language.JAVASCRIPT;
    StringBuilder b = new StringBuilder();
    if (js) {
      b.append("Runs JavaScript (ECMAScript on GraalJS; no Node.js or browser APIs)");
    } else if (pythonPath.isEmpty()) {
      b.append("Runs Python 3 (GraalPy; the standard library only, no packages or native modules)");
    } else {
      b.append("Runs Python 3 (GraalPy; the standard library and the pure-Python packages in ")
          .append(String.join(", ", pythonPath)).append(", which are on sys.path; no native modules)");
    }

    b.append(" in a fresh deny-by-default sandbox and returns how it ended (OK, GUEST_ERROR, SYNTAX_ERROR,"
        + " LIMIT_EXCEEDED, ...), the value of its last expression as JSON, its stdout and stderr. ");
    // Without this a model cannot know that an async program's value is awaited, nor, in JavaScript, that
    // a program with top-level await still gives its last expression (or may return its value).
    b.append(js
        ? "An async program works: with top-level await its value is still its last expression's (or what it"
            + " returns); a Promise as its last expression is awaited. "
        : "An async program works: asyncio needs no permission, and a coroutine as its last expression (such as"
            + " main()) is run to its end; tool calls return their values at once, not awaitables. ");
    b.append("Nothing survives between calls. Each entry of `inputs` becomes a global variable holding plain"
        + " JSON data. ");
    b.append("Files: ").append(mounts(policy));
    if (js && !policy.mounts().isEmpty()) {
      b.append("; read a file with readText(path)");
    }
    b.append(". No network, processes, threads, host classes, native code or environment variables. ");
    if (!js && !pythonImports.isEmpty()) {
      b.append("Modules imported before your code runs, so importing them costs nothing: ")
          .append(String.join(", ", pythonImports)).append(". ");
    }
    if (tools.isEmpty()) {
      b.append("Host tools: none. ");
    } else {
      b.append("Host tools, ").append(callingConvention(language)).append(": ");
      List<String> parts = new ArrayList<>();
      for (Tool t : tools) {
        String description = t.description().isBlank() ? "" : " (" + t.description().strip() + ")";
        String schema = t.parameters().strip().replaceAll("\\s+", " ");
        if (schema.length() > MAX_SCHEMA_CHARS) {
          schema = schema.substring(0, MAX_SCHEMA_CHARS) + "... (cut)";
        }
        parts.add(t.name() + description + ", arguments " + schema);
      }
      b.append(String.join("; ", parts)).append(". ");
    }
    b.append("Limits per call: ").append(limits(policy.limits())).append('.');
    // A model that knows a CANCELLED call lost its worker, not its program, retries it instead of rewriting
    // the code. The wall itself is the host's business: it is not described.
    if (isolation.isProcess()) {
      b.append(" Each call runs in a separate worker process; a call whose worker process ended unexpectedly"
          + " ends CANCELLED and may be tried again.");
    }
    return b.toString();
  }

  /**
   * How guest code calls a tool, a phrase shared with the typed stubs ({@link ToolStubs}): {@code called as
   * tools.NAME({...}) and returning a value, a failure thrown as ToolError}.
   */
  static String callingConvention(Language language) {
    return language == Language.JAVASCRIPT
        ? "called as tools.NAME({...}) and returning a value, a failure thrown as ToolError"
        : "called as tools.NAME(key=value) and returning a value, a failure raised as ToolError";
  }

  private static String mounts(Policy policy) {
    if (policy.mounts().isEmpty()) {
      return "none (every file operation is denied)";
    }
    List<String> parts = new ArrayList<>();
    for (Mount m : policy.mounts()) {
      String kind = m.hostPath().isEmpty() ? "an empty scratch directory, in memory"
          : m.isWritable() ? "a writable copy, changes discarded after the call" : "read-only";
      parts.add(m.guestPath() + " (" + kind + ")");
    }
    return String.join(", ", parts) + "; working directory " + policy.workingDirectory()
        + "; every other path is denied";
  }

  private static String limits(Limits l) {
    return String.join(", ", List.of(
        "wall time " + Durations.format(l.wallTime()),
        "CPU time " + Durations.format(l.maxCpuTime()),
        String.format(Locale.ROOT, "%,d statements", l.maxStatements()),
        bytes(l.maxAllocatedBytes()) + " of heap allocation",
        bytes(l.maxOutputBytes()) + " of stdout and stderr",
        "at most " + l.maxFiles() + " files and directories holding " + bytes(l.maxFileBytes())
            + " (mounted ones included)"));
  }

  private static String bytes(long n) {
    for (String unit : List.of("GiB", "MiB", "KiB")) {
      int shift = unit.equals("GiB") ? 30 : unit.equals("MiB") ? 20 : 10;
      if (n >= (1L << shift) && n % (1L << shift) == 0) {
        return (n >> shift) + " " + unit;
      }
    }
    return n + " bytes";
  }
}
