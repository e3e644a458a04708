package org.polyglotsandbox.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.polyglotsandbox.ExecutionResult.OutputFile;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.SandboxEvent;

/**
 * The default, human-readable form of a result:
 *
 * <pre>
 * value: 42
 * guest stdout:
 *   | hello
 * outcome: OK | wall time: 38 ms | output: 6 bytes | denied: 0
 * </pre>
 *
 * <p>First the value (as JSON), or the error and its guest stack, then the guest's stdout and stderr if
 * it wrote any, each line behind a {@code |} so guest text cannot pass itself off as the report, then
 * the output files and what the output boundary changed in the guest's text, then one report line.
 * Every piece of guest text is escaped with {@link Text#escape} (the library has already sanitised
 * it; this is a second layer).
 */
final class HumanReport {
  /** Denied operations listed by name in the report line; the rest are counted. */
  static final int DENIALS_SHOWN = 3;

  private HumanReport() {}

  static void print(ExecutionResult r, PrintStream out) {
    print(r, List.of(), out);
  }

  /** @param written the host files the output files were written to, in order; empty if not written */
  static void print(ExecutionResult r, List<Path> written, PrintStream out) {
    print(r, written, false, out);
  }

  /**
   * @param written the host files the output files were written to, in order; empty if not written
   * @param streamed whether the guest's stdout and stderr were already printed whole as they came
   *     ({@code run --stream}): the report then gives their sizes instead of their text
   */
  static void print(ExecutionResult r, List<Path> written, boolean streamed, PrintStream out) {
    if (r.isOk()) {
      out.println("value: " + r.valueAsJson());
    } else {
      String label = switch (r.outcome()) {
        case SYNTAX_ERROR -> "syntax error: ";
        case LIMIT_EXCEEDED -> "stopped: ";
        case OUTPUT_REJECTED -> "rejected: ";
        case CANCELLED -> "cancelled: ";
        case INTERNAL_ERROR -> "internal error: ";
        default -> "guest error: ";
      };
      // A multi-line message (a syntax error's caret line) keeps its lines, indented under the label.
      String message = Text.escape(r.errorMessage().orElse(r.outcome().name()).stripTrailing());
      out.println(label + message.replace("\n", "\n    "));
      for (String frame : r.guestStackTrace()) {
        out.println("    at " + Text.escapeLine(frame));
      }
    }
    if (streamed) {
      streamedNote("guest stdout", r.stdout(), out);
      streamedNote("guest stderr", r.stderr(), out);
    } else {
      stream("guest stdout", r.stdout(), out);
      stream("guest stderr", r.stderr(), out);
    }
    int i = 0;
    for (OutputFile f : r.outputFiles().values()) {
      out.println("output file: " + Text.escapeLine(f.guestPath()) + " (" + f.size()
          + (f.size() == 1 ? " byte)" : " bytes)")
          + (i < written.size() ? " written to " + Text.escapeLine(written.get(i).toString()) : ""));
      i++;
    }
    for (String missing : r.missingOutputFiles()) {
      out.println("output file missing: " + Text.escapeLine(missing));
    }
    for (String note : r.outputNotes().describe()) {
      out.println("note: " + Text.escapeLine(note));
    }
    out.println(reportLine(r));
  }

  /** The one-line summary: outcome, limit, exit status, wall time, set-up time, output bytes, denials. */
  static String reportLine(ExecutionResult r) {
    StringBuilder s = new StringBuilder("outcome: ").append(r.outcome().name());
    r.limit().ifPresent(l -> s.append(" (").append(l.id()).append(')'));
    r.outputRejection().ifPresent(o -> s.append(" (").append(o.reason().name().toLowerCase(Locale.ROOT)).append(')'));
    r.exitStatus().ifPresent(status -> s.append(" | exit status: ").append(status));
    s.append(" | wall time: ").append(Durations.format(r.usage().wallTime()));
    // The sandbox's own time before the program (a fresh Python context: hundreds of ms), not the guest's.
    s.append(" | set-up: ").append(Durations.format(r.usage().queueTime().plus(r.usage().setupTime())));
    s.append(" | cpu: ").append(Durations.format(r.usage().cpuTime()));
    s.append(" | allocated: ").append(r.usage().allocatedBytes() >> 20).append(" MiB");
    r.usage().statements().ifPresent(n -> s.append(" | statements: ").append(n));
    s.append(" | output: ").append(r.usage().outputBytes()).append(r.usage().outputBytes() == 1 ? " byte" : " bytes");
    long toolCalls = r.events().stream().filter(SandboxEvent.ToolCall.class::isInstance).count();
    if (toolCalls > 0) {
      s.append(" | tool calls: ").append(toolCalls);
    }
    List<SandboxEvent.DeniedOperation> denied = r.deniedOperations();
    s.append(" | denied: ").append(denied.size());
    if (!denied.isEmpty()) {
      s.append(" (")
          .append(denied.stream().limit(DENIALS_SHOWN)
              .map(d -> d.operation().id() + " " + Text.escapeLine(d.target()))
              .collect(Collectors.joining(", ")))
          .append(denied.size() > DENIALS_SHOWN ? ", ..." : "")
          .append(')');
    }
    return s.toString();
  }

  private static void streamedNote(String label, String text, PrintStream out) {
    if (!text.isEmpty()) {
      out.println(label + ": streamed above (" + text.length() + (text.length() == 1 ? " character)" : " characters)"));
    }
  }

  private static void stream(String label, String text, PrintStream out) {
    if (text.isEmpty()) {
      return;
    }
    out.println(label + ":");
    String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    for (String line : body.split("\n", -1)) {
      out.println("  | " + Text.escape(line));
    }
  }
}
