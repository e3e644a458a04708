package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.polyglotsandbox.ExecutionResult.OutputChunk;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A run's stdout and stderr reach its output listener while the run goes. */
class OutputStreamingTest {
  private static final ConcurrentLinkedQueue<OutputChunk> seen = new ConcurrentLinkedQueue<>();
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder().allowTools("seen")
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(60))
                .maxOutputBytes(64 * 1024).build()).build())
        // The guest asks whether the listener has seen a text yet.
        .tool(Tool.builder("seen").inline()
            .parameters("{\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}}, \"required\": [\"text\"]}")
            .handler(args -> seen.stream().anyMatch(c -> c.text().contains((String) args.get("text")))).build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static ExecutionResult run(Language language, String js, String py) {
    seen.clear();
    return sandbox.run(Script.of(language, GuestCode.of(language, js, py)).withOutputListener(seen::add));
  }

  /**
   * What the listener got of one stream of a run, once it equals {@code expected} or 60 s passed:
   * chunks may arrive shortly after the result (on a loaded machine, seconds after).
   */
  private static String joined(String runId, OutputChunk.Stream stream, String expected) throws InterruptedException {
    long giveUp = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    String got = joined(runId, stream);
    while (!got.equals(expected) && System.nanoTime() < giveUp) {
      Thread.sleep(10);
      got = joined(runId, stream);
    }
    return got;
  }

  private static String joined(String runId, OutputChunk.Stream stream) {
    return seen.stream().filter(c -> c.runId().equals(runId) && c.stream() == stream).map(OutputChunk::text)
        .collect(Collectors.joining());
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void theListenerSeesOutputBeforeTheRunEnds(Language language) {
    // The guest waits until the host's listener has its first line: without streaming it would wait
    // until its deadline and end LIMIT_EXCEEDED. (It spins meanwhile: hence a CPU cap as long as the wall.)
    ExecutionResult r = run(language,
        "console.log('first line'); while (!tools.seen({text: 'first line'})) {} 'waited'",
        "print('first line', flush=True)\nwhile not tools.seen(text='first line'):\n    pass\n'waited'");

    assertThatRun(r).isOk();
    assertThat(r.value()).isEqualTo("waited");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void chunksJoinedAreTheResultsOutput_perStream_sanitised(Language language) throws Exception {
    ExecutionResult r = run(language,
        "for (let i = 0; i < 50; i++) console.log('line ' + i); console.error('\\u001b[31mred\\u0007'); 1",
        "import sys\nfor i in range(50):\n    print('line', i)\nprint('\\x1b[31mred\\x07', file=sys.stderr)\n1");

    assertThatRun(r).isOk();
    assertThat(r.stdout()).contains("line 49");
    assertThat(joined(r.runId(), OutputChunk.Stream.STDOUT, r.stdout())).isEqualTo(r.stdout());
    assertThat(joined(r.runId(), OutputChunk.Stream.STDERR, r.stderr())).isEqualTo(r.stderr()).contains("red")
        .doesNotContain("\u001b", "\u0007");
    assertThat(r.undeliveredOutputChunks()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void outputPastTheCap_isNeverStreamed(Language language) throws Exception {
    ExecutionResult r = run(language,
        "const s = 'x'.repeat(1000); for (;;) console.log(s)",
        "s = 'x' * 1000\nwhile True:\n    print(s)");

    assertThat(r.limit()).contains(Limit.OUTPUT);
    assertThat(joined(r.runId(), OutputChunk.Stream.STDOUT, r.stdout())).isEqualTo(r.stdout())
        .hasSizeLessThanOrEqualTo(64 * 1024);
  }

  @Test
  void aCharacterSplitBetweenTwoWrites_arrivesWhole() throws Exception {
    ExecutionResult r = run(Language.PYTHON, "",
        "import sys\nsys.stdout.buffer.write(b'caf\\xc3')\nsys.stdout.buffer.flush()\n"
            + "sys.stdout.buffer.write(b'\\xa9!')\nsys.stdout.buffer.flush()\n1");

    assertThatRun(r).isOk();
    assertThat(joined(r.runId(), OutputChunk.Stream.STDOUT, "café!")).isEqualTo("café!").isEqualTo(r.stdout());
    assertThat(seen).extracting(OutputChunk::text).noneMatch(t -> t.contains("\uFFFD"));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aListenerThatNeverReturns_holdsNoRun_andWhatItMissedIsCounted(Language language) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try {
      Script script = Script.of(language, GuestCode.of(language,
              "for (let i = 0; i < 3000; i++) console.log(i); 'done'",
              "for i in range(3000):\n    print(i, flush=True)\n'done'"))
          .withOutputListener(chunk -> {
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });

      ExecutionResult r = sandbox.run(script);

      assertThatRun(r).isOk();
      assertThat(r.value()).isEqualTo("done");
      assertThat(r.stdout()).contains("2999");
      assertThat(r.undeliveredOutputChunks()).as("chunks past the 1,000 that may wait").isPositive();
    } finally {
      release.countDown();
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aListenerThatThrows_changesNothingForTheRun(Language language) {
    Script script = Script.of(language, GuestCode.of(language, "console.log('a'); 2", "print('a')\n2"))
        .withOutputListener(chunk -> {
          throw new IllegalStateException("the embedder's listener is broken");
        });

    ExecutionResult r = sandbox.run(script);

    assertThatRun(r).isOk();
    assertThat(r.stdout()).isEqualTo("a\n");
    assertThat(sandbox.run(Script.of(language, "6*7")).stdout()).isEmpty();
    assertThat(r.value()).isEqualTo(2L);
  }
}
