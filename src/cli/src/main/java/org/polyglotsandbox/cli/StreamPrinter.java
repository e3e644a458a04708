package org.polyglotsandbox.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.ExecutionResult.OutputChunk;

/**
 * The printer of {@code run --stream}: the guest's output as the sandbox hands it over, while the run
 * goes on.
 *
 * <p>In the human form each line is printed behind the report's {@code  | } (guest stdout on the CLI's
 * stdout, guest stderr on its stderr), so streamed guest text can no more pass itself off as the report
 * than the report's own sections can; with {@code --json}, stdout stays one JSON object and each chunk
 * is a JSON line on stderr, {@code {"stream": "stdout", "text": "..."}}. The text is the sandbox's
 * sanitised text, escaped once more by {@link Text#escape}.
 */
final class StreamPrinter implements Consumer<OutputChunk> {
  private final PrintStream out;
  private final PrintStream err;
  private final boolean json;
  /** Per stream (stdout, stderr): whether the next character starts a line. */
  private final boolean[] atLineStart = {true, true};
  /** Per stream: the characters printed so far. */
  private final long[] printed = new long[2];
  /** Set once the report is due: a chunk that arrives later is not printed after it (the report has it). */
  private boolean finished;

  StreamPrinter(PrintStream out, PrintStream err, boolean json) {
    this.out = out;
    this.err = err;
    this.json = json;
  }

  @Override
  public synchronized void accept(OutputChunk chunk) {
    if (finished) {
      return;
    }
    int i = chunk.stream() == OutputChunk.Stream.STDOUT ? 0 : 1;
    String text = chunk.text();
    if (json) {
      ObjectNode o = JsonNodeFactory.instance.objectNode();
      o.put("stream", chunk.stream().name().toLowerCase(Locale.ROOT));
      o.put("text", text);
      err.println(ResultJson.write(o));
      err.flush();
    } else {
      PrintStream target = i == 0 ? out : err;
      StringBuilder s = new StringBuilder(text.length() + 8);
      for (String piece : text.split("(?<=\n)")) {
        if (atLineStart[i]) {
          s.append("  | ");
        }
        boolean endsLine = piece.endsWith("\n");
        s.append(Text.escape(endsLine ? piece.substring(0, piece.length() - 1) : piece));
        if (endsLine) {
          s.append('\n');
        }
        atLineStart[i] = endsLine;
      }
      target.print(s);
      target.flush();
    }
    printed[i] += text.length();
    notifyAll();
  }

  /**
   * Waits, at most {@code wait}, until every chunk of {@code r}'s output has been printed, then ends an
   * unfinished line, so that the report starts on a line of its own. Whether all of it was streamed: if
   * not (the run's listener fell behind, or the wait ran out), the report prints the whole output.
   * Chunks that arrive after this are not printed.
   */
  synchronized boolean finish(ExecutionResult r, Duration wait) {
    long giveUp = System.nanoTime() + wait.toNanos();
    boolean all = r.undeliveredOutputChunks() == 0;
    try {
      while (all && (printed[0] < r.stdout().length() || printed[1] < r.stderr().length())) {
        long left = giveUp - System.nanoTime();
        if (left <= 0) {
          all = false;
          break;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      all = false;
    }
    finished = true;
    if (!json) {
      if (!atLineStart[0]) {
        out.println();
      }
      if (!atLineStart[1]) {
        err.println();
      }
      atLineStart[0] = true;
      atLineStart[1] = true;
    }
    return all;
  }
}
