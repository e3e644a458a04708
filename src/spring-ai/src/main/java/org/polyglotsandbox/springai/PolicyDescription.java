package org.polyglotsandbox.springai;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Tool;

/**
 * The description a language model reads for a {@code run_*} tool: what the code may do under the
 * sandbox's policy (files, tools, limits), in a few sentences. The same words as the LangChain4j
 * adapter's; each adapter keeps its own copy so that neither depends on the other.
 */
final class PolicyDescription {
  /** At most this many characters of one tool's own description are repeated. */
  private static final int TOOL_DESCRIPTION_CHARS = 200;
  /** At most this many characters of one tool's parameters schema are repeated. */
  private static final int TOOL_SCHEMA_CHARS = 400;

  private PolicyDescription() {}

  static String of(PolyglotSandbox sandbox, Language language) {
    Policy policy = sandbox.policy();
    StringBuilder out = new StringBuilder();
    if (language == Language.PYTHON) {
      out.append("Runs Python 3 code (GraalPy, standard library only, no pip packages or native modules)");
    } else {
      out.append("Runs JavaScript (ECMAScript on GraalJS, no Node.js or browser APIs)");
    }
    out.append(" in a fresh sandbox and returns its outcome, the value of the last expression as JSON, stdout"
        + " and stderr, as untrusted text. Nothing persists between calls. Values in `inputs` become global"
        + " variables.");
    out.append(" Files: ");
    List<Mount> mounts = policy.mounts();
    if (mounts.isEmpty()) {
      out.append("none.");
    } else {
      for (int i = 0; i < mounts.size(); i++) {
        Mount m = mounts.get(i);
        out.append(i == 0 ? "" : ", ").append(m.guestPath()).append(" (")
            .append(m.hostPath().isEmpty() ? "empty scratch directory, discarded after the run"
                : m.isWritable() ? "writable copy, changes discarded" : "read-only")
            .append(')');
      }
      out.append("; nothing else.");
      if (language == Language.JAVASCRIPT) {
        out.append(" Read a file with readText(path).");
      }
    }
    List<Tool> tools = sandbox.tools();
    if (!tools.isEmpty()) {
      out.append(" Tools the code may call");
      out.append(language == Language.PYTHON ? " (tools.NAME(arg=value), raises ToolError on failure): "
          : " (tools.NAME({arg: value}), throws ToolError on failure): ");
      for (int i = 0; i < tools.size(); i++) {
        Tool t = tools.get(i);
        out.append(i == 0 ? "" : "; ").append(t.name());
        String d = t.description().strip();
        if (!d.isEmpty()) {
          out.append(" - ").append(d.length() > TOOL_DESCRIPTION_CHARS ? d.substring(0, TOOL_DESCRIPTION_CHARS) + "..." : d);
        }
        String schema = t.parameters().replaceAll("\\s+", " ");
        out.append(", arguments ").append(schema.length() > TOOL_SCHEMA_CHARS
            ? schema.substring(0, TOOL_SCHEMA_CHARS) + "... (cut)" : schema);
      }
      out.append('.');
    }
    out.append(" No network, processes, threads, environment variables or host classes.");
    Limits l = policy.limits();
    out.append(" Limits per call: wall time ").append(duration(l.wallTime()))
        .append(", CPU time ").append(duration(l.maxCpuTime()))
        .append(", ").append(l.maxStatements()).append(" statements")
        .append(", ").append(bytes(l.maxAllocatedBytes())).append(" allocated")
        .append(", ").append(bytes(l.maxOutputBytes())).append(" of output.");
    return out.toString();
  }

  static String duration(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + " ms";
    }
    return ms % 1000 == 0 ? (ms / 1000) + " s" : String.format(Locale.ROOT, "%.3f s", ms / 1000.0);
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
