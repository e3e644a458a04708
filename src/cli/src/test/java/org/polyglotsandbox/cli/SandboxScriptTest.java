package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/sandbox} as a user runs it: a new JVM started from another directory, with the JIT flags.
 * Uses the build this test run already made ({@code SANDBOX_SKIP_BUILD=1}): rebuilding target/ under
 * a running test JVM is not safe.
 */
@Tag("slow")
class SandboxScriptTest {
  private static final Path SCRIPT = Path.of("bin/sandbox").toAbsolutePath();

  @TempDir
  Path dir;

  private record Result(int status, String out, String err) {}

  private Result sandbox(String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of(SCRIPT.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(dir.resolve("stdout").toFile())
        .redirectError(dir.resolve("stderr").toFile());
    pb.environment().put("SANDBOX_SKIP_BUILD", "1");
    Process p = pb.start();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("bin/sandbox finished").isTrue();
    return new Result(p.exitValue(), Files.readString(dir.resolve("stdout"), StandardCharsets.UTF_8),
        Files.readString(dir.resolve("stderr"), StandardCharsets.UTF_8));
  }

  @Test
  void runJson_printsOneObject_onTheOptimizingRuntime() throws Exception {
    Files.writeString(dir.resolve("answer.js"), "console.log('hi'); 6*7");

    Result r = sandbox("run", "answer.js", "--json");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out().lines()).hasSize(1);
    JsonNode o = new ObjectMapper().readTree(r.out());
    assertThat(o.get("outcome").asText()).isEqualTo("OK");
    assertThat(o.get("value").asInt()).isEqualTo(42);
    assertThat(o.get("stdout").asText()).isEqualTo("hi\n");
    assertThat(r.out() + r.err()).doesNotContain("fallback runtime", "[engine] WARNING");
  }

  @Test
  void limit_exitsThree() throws Exception {
    Files.writeString(dir.resolve("loop.js"), "while (true) {}");

    // Statements unbounded, so that the wall time is the limit that trips: a compiled loop can run the
    // default 100 million statements in about 0.4 s.
    Result r = sandbox("run", "loop.js", "--timeout", "500ms", "--max-statements", "1000000000000000");

    assertThat(r.status()).as(r.toString()).isEqualTo(3);
    assertThat(r.out()).contains("outcome: LIMIT_EXCEEDED (wall_time)");
  }

  @Test
  void badFlag_exitsTwo_withOneLine() throws Exception {
    Result r = sandbox("run", "answer.js", "--frobnicate");

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().lines()).hasSize(1);
  }

  @Test
  void stream_printsTheGuestsLine_whileTheRunIsStillGoing() throws Exception {
    // The program prints, then sleeps far past any test: the line can only have come out while it ran.
    Files.writeString(dir.resolve("slow.py"), "print('first line', flush=True)\nimport time\ntime.sleep(600)\n");
    ProcessBuilder pb = new ProcessBuilder(SCRIPT.toString(), "run", "slow.py", "--stream", "--timeout", "15m")
        .directory(dir.toFile()).redirectError(dir.resolve("stderr").toFile());
    pb.environment().put("SANDBOX_SKIP_BUILD", "1");
    Process p = pb.start();
    try (java.io.BufferedReader lines = new java.io.BufferedReader(
        new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line = lines.readLine();
      assertThat(line).as("the first line on stdout; stderr: %s", Files.readString(dir.resolve("stderr")))
          .isEqualTo("  | first line");
      assertThat(p.isAlive()).as("the run was still going when its line came out").isTrue();
    } finally {
      p.destroyForcibly().waitFor(1, TimeUnit.MINUTES);
    }
  }
}
