package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;

/**
 * Runs every program under {@code guest-samples/} with {@code guest-samples/policy.json} (its clocks
 * raised: {@link #roomy}) and checks the verdict its header states:
 *
 * <pre>
 * // expect: OK | GUEST_ERROR | SYNTAX_ERROR | LIMIT_EXCEEDED &lt;limit id&gt;
 * // stdout-contains: text      (any number)
 * // denied: operation-id [target]   (any number)
 * </pre>
 */
@Tag("slow")
class GuestSamplesTest {
  private static final Path SAMPLES = Path.of("guest-samples");
  private static final Map<Language, PolyglotSandbox> SANDBOXES = new EnumMap<>(Language.class);

  record Sample(Path file, Language language, String expect, List<String> stdout, List<String> denied) {
    @Override
    public String toString() {
      return file.getFileName().toString();
    }
  }

  static Stream<Sample> samples() throws IOException {
    List<Sample> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(SAMPLES)) {
      for (Path f : files.sorted().toList()) {
        Language language = Language.forFileName(f.getFileName().toString()).orElse(null);
        if (language == null) {
          continue;
        }
        String expect = null;
        List<String> stdout = new ArrayList<>();
        List<String> denied = new ArrayList<>();
        for (String line : Files.readAllLines(f)) {
          String l = line.replaceFirst("^(//|#)\\s?", "");
          if (l.equals(line)) {
            break; // the header ends at the first line that is not a comment
          }
          if (l.startsWith("expect: ")) {
            expect = l.substring(8).trim();
          } else if (l.startsWith("stdout-contains: ")) {
            stdout.add(l.substring(17));
          } else if (l.startsWith("denied: ")) {
            denied.add(l.substring(8).trim());
          }
        }
        assertThat(expect).as("%s states its expected outcome", f).isNotNull();
        out.add(new Sample(f, language, expect, stdout, denied));
      }
    }
    assertThat(out).extracting(Sample::language).contains(Language.JAVASCRIPT, Language.PYTHON);
    return out.stream();
  }

  private static PolicyFile policyFile() {
    try {
      return PolicyFile.parse(SAMPLES.resolve("policy.json"));
    } catch (Exception e) {
      throw new AssertionError("guest-samples/policy.json does not parse", e);
    }
  }

  /**
   * The sample policy's limits with the wall clock and CPU time raised to at least two minutes: a sample
   * expected to answer or to trip another limit must not meet a clock first on a loaded machine (a cold
   * {@code import asyncio} alone takes seconds of CPU). A sample expected to trip a clock runs with the
   * policy's own limits ({@link Script#withLimits}).
   */
  private static Limits roomy(Limits limits) {
    Duration least = Duration.ofMinutes(2);
    return limits.toBuilder()
        .wallTime(limits.wallTime().compareTo(least) < 0 ? least : limits.wallTime())
        .maxCpuTime(limits.maxCpuTime().compareTo(least) < 0 ? least : limits.maxCpuTime())
        .build();
  }

  private static synchronized PolyglotSandbox sandbox(Language language) {
    return SANDBOXES.computeIfAbsent(language, l -> {
      PolicyFile file = policyFile();
      assertThat(file.languages()).contains(l);
      Policy.Builder policy = Policy.builder().allowLanguages(l).limits(roomy(file.limits()))
          .allowTools(file.toolNames().toArray(String[]::new));
      file.mounts().forEach(policy::mount);
      return PolyglotSandbox.builder().policy(policy.workingDirectory(file.workingDirectory()).build())
          .tools(file.tools()).build();
    });
  }

  @AfterAll
  static void close() {
    SANDBOXES.values().forEach(PolyglotSandbox::close);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void sample_endsWithItsStatedVerdict(Sample sample) throws IOException {
    String[] expect = sample.expect().split("\\s+");
    Script script = Script.of(sample.language(), Files.readString(sample.file()))
        .named(sample.file().getFileName().toString());
    if (expect.length > 1 && (expect[1].equals(Limit.WALL_TIME.id()) || expect[1].equals(Limit.CPU_TIME.id()))) {
      script = script.withLimits(policyFile().limits());
    }
    ExecutionResult r = sandbox(sample.language()).run(script);
    assertThatRun(r).hasOutcome(Outcome.valueOf(expect[0])).leaksNoHostDetail();
    if (expect.length > 1) {
      assertThat(r.limit().map(Limit::id)).as("limit of %s", r).contains(expect[1]);
    }
    for (String text : sample.stdout()) {
      assertThat(r.stdout()).contains(text);
    }
    for (String d : sample.denied()) {
      String[] parts = d.split("\\s+", 2);
      assertThat(r.deniedOperations()).as("denied operations of %s", r).anySatisfy(e -> {
        assertThat(e.operation().id()).isEqualTo(parts[0]);
        if (parts.length > 1) {
          assertThat(e.target()).isEqualTo(parts[1]);
        }
      });
    }
  }
}
