package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;

/**
 * {@code INTERNAL_ERROR} is a bug in the sandbox, so guest code alone must never
 * reach it. This runs the project's own guest code, the escape-probe battery on the default policy and
 * on the sample policy and every guest sample, and asserts that no run ended {@code INTERNAL_ERROR}
 * (exit 5), that nothing was logged at SEVERE or with a throwable, and that no output stream (the
 * command's, the process's {@code System.err}) holds a host stack frame.
 */
@Tag("slow")
class NoInternalErrorTest {
  /** A Java stack frame as a stack trace prints it: {@code at org.example.Type.method(Type.java:12)}. */
  private static final Pattern HOST_FRAME = Pattern.compile("(?m)^\\s*at [\\w$]+(\\.[\\w$<>]+)+\\(.*\\)\\s*$");

  @Test
  void probesAndSamples_neverEndInternalError_norPrintAHostFrame() throws IOException {
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Handler handler = new Handler() {
      @Override
      public void publish(LogRecord r) {
        if (r.getLevel().intValue() >= Level.SEVERE.intValue() || r.getThrown() != null) {
          logged.add(r);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Logger root = Logger.getLogger("");
    ByteArrayOutputStream processErr = new ByteArrayOutputStream();
    PrintStream originalErr = System.err;
    List<CliRun> runs = new ArrayList<>();
    root.addHandler(handler);
    System.setErr(new PrintStream(new Tee(originalErr, processErr), true, StandardCharsets.UTF_8));
    try {
      runs.add(CliRun.of("probe", "--json"));
      runs.add(CliRun.of("probe", "guest-samples/policy.json", "--json"));
      try (Stream<Path> files = Files.list(Path.of("guest-samples"))) {
        for (Path f : files.sorted().toList()) {
          if (Language.forFileName(f.getFileName().toString()).isPresent()) {
            runs.add(CliRun.of("run", f.toString(), "--policy", "guest-samples/policy.json", "--json"));
          }
        }
      }
    } finally {
      System.setErr(originalErr);
      root.removeHandler(handler);
    }
    assertThat(runs).hasSizeGreaterThan(2 + 10);
    for (CliRun r : runs) {
      assertThat(r.status()).as("exit status (5 is INTERNAL_ERROR)\n%s", r).isNotEqualTo(5);
      assertThat(r.out()).as("%s", r).doesNotContain("INTERNAL_ERROR").doesNotContainPattern(HOST_FRAME);
      assertThat(r.err()).as("%s", r).doesNotContainPattern(HOST_FRAME);
    }
    assertThat(runs.get(0).status()).as("the default policy's probe passes\n%s", runs.get(0)).isZero();
    assertThat(runs.get(1).status()).as("the sample policy's probe passes\n%s", runs.get(1)).isZero();
    assertThat(logged).extracting(r -> r.getLoggerName() + ": " + r.getMessage()).isEmpty();
    assertThat(processErr.toString(StandardCharsets.UTF_8)).doesNotContainPattern(HOST_FRAME);
  }

  /** Writes to two streams: the test's output stays visible while it is captured. */
  private static final class Tee extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    Tee(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] bytes, int off, int len) throws IOException {
      a.write(bytes, off, len);
      b.write(bytes, off, len);
    }
  }
}
