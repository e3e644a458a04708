package org.polyglotsandbox.mcp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.Tool;

/**
 * What a model is told about a run tool: one paragraph with the policy in force (mounts, host tools with
 * their parameter schemas, limits), so it knows what its code may use. Host paths never appear: only
 * what guest code sees.
 */
final class PolicyText {
  private PolicyText() {}

  /** The description of {@code run_<language>}. */
  static String describe(Language language, Policy policy, List<Tool> tools) {
    boolean js = language == Language.JAVASCRIPT;
    StringBuilder b = new StringBuilder();
    b.append(js ? "Runs JavaScript (GraalJS, ECMAScript 2024, no Node.js or browser APIs)"
        : "Runs Python 3 (GraalPy, standard library only)");
    b.append(" in a fresh deny-by-default sandbox and returns the value of the last expression,"
        + " its stdout and stderr and how it ended (OK, GUEST_ERROR, SYNTAX_ERROR, LIMIT_EXCEEDED, ...)."
        + " Each call starts from nothing: no state survives between calls. `inputs` (an object) binds each"
        + " entry as a global variable of plain JSON data. ");
    b.append("Files: ").append(mounts(policy)).append(". ");
    b.append("No network, processes, threads, host classes, native code or environment variables. ");
    if (tools.isEmpty()) {
      b.append("Host tools: none. ");
    } else {
      b.append("Host tools, called as ");
      b.append(js ? "`tools.NAME({...})` (or `tools['NAME']({...})`), returning a value"
          : "`tools.NAME(key=value)` (or `getattr(tools, 'NAME')({...})`), returning a value");
      b.append(", a failed call raising ToolError: ");
      List<String> parts = new ArrayList<>();
      for (Tool t : tools) {
        String d = t.description().isBlank() ? "" : " (" + t.description().strip() + ")";
        parts.add(t.name() + d + " with arguments " + t.parameters().strip().replaceAll("\\s+", " "));
      }
      b.append(String.join("; ", parts)).append(". ");
    }
    b.append("Limits per call: ").append(limits(policy.limits())).append(".");
    return b.toString();
  }

  private static String mounts(Policy policy) {
    if (policy.mounts().isEmpty()) {
      return "none (every file operation is denied)";
    }
    List<String> parts = new ArrayList<>();
    for (Mount m : policy.mounts()) {
      String kind = m.hostPath().isEmpty() ? "empty scratch directory, in memory"
          : m.isWritable() ? "read-write copy, changes stay in memory" : "read-only";
      parts.add(m.guestPath() + " (" + kind + ")");
    }
    return String.join(", ", parts) + "; working directory " + policy.workingDirectory()
        + "; every other path is denied";
  }

  private static String limits(Limits l) {
    List<String> parts = new ArrayList<>();
    parts.add("wall time " + duration(l.wallTime()));
    if (l.maxCpuTime() != null && !l.maxCpuTime().isZero() && l.maxCpuTime().compareTo(Duration.ofDays(1)) < 0) {
      parts.add("CPU time " + duration(l.maxCpuTime()));
    }
    parts.add(String.format(Locale.ROOT, "%,d statements", l.maxStatements()));
    parts.add("heap allocation " + bytes(l.maxAllocatedBytes()));
    parts.add("stdout and stderr " + bytes(l.maxOutputBytes()));
    parts.add("files " + bytes(l.maxFileBytes()) + " in at most " + l.maxFiles());
    parts.add("stack " + bytes(l.stackSize()));
    return String.join(", ", parts);
  }

  static String duration(Duration d) {
    if (d.toMillis() % 1000 == 0) {
      return d.toSeconds() + " s";
    }
    return d.toMillis() + " ms";
  }

  static String bytes(long n) {
    if (n >= (1L << 30) && n % (1L << 30) == 0) {
      return (n >> 30) + " GiB";
    }
    if (n >= (1L << 20) && n % (1L << 20) == 0) {
      return (n >> 20) + " MiB";
    }
    if (n >= (1L << 10) && n % (1L << 10) == 0) {
      return (n >> 10) + " KiB";
    }
    return n + " bytes";
  }
}
