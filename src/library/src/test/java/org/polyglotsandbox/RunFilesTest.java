package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Files handed to one run ({@link Script#withFile}): readable by that run's guest in both languages,
 * writable only when asked, collected as output files, invisible to every other run (the next one, a
 * concurrent one, one on a context prepared in advance), within the file caps, and never on the host
 * disk. (JavaScript guests have no file-writing API: writes are exercised from Python.)
 */
@SuppressWarnings("unchecked")
class RunFilesTest {
  @TempDir static Path host;
  private static PolyglotSandbox sandbox;
  private static final String CSV = "id,total\n1,12.5\n2,7.5\n";

  @BeforeAll
  static void build() throws IOException {
    Path seed = Files.writeString(host.resolve("seed.csv"), "seed\n");
    sandbox = PolyglotSandbox.builder().policy(Policy.builder()
            .allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
            .mount(Mount.readOnly(seed, "/data/seed.csv"))
            .mount(Mount.scratch("/out"))
            // GraalPy's first file operation in a JVM takes seconds on a busy machine.
            .limits(Limits.builder().maxFileBytes(64 * 1024).maxFiles(40).wallTime(Duration.ofSeconds(60)).build())
            .build())
        // Runs take prepared contexts: a file must reach a context made before its script was known,
        // and be gone for the run that takes the next one.
        .warmContexts(1)
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static Script script(Language language, String javascript, String python) {
    return Script.of(language, GuestCode.of(language, javascript, python));
  }

  private static final String READ_JS = "readText('/in/upload.csv')";
  private static final String READ_PY = "open('/in/upload.csv').read()";

  @ParameterizedTest
  @EnumSource(Language.class)
  void file_isReadableByItsRun(Language language) {
    ExecutionResult r = sandbox.run(script(language, READ_JS, READ_PY).withFile("/in/upload.csv", CSV));
    assertThatRun(r).isOk().hasValue(CSV);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void binaryFile_keepsItsBytes_andItsDirectoryListsIt(Language language) {
    byte[] bytes = {0, 1, 2, (byte) 0xff, 10};
    ExecutionResult r = sandbox.run(script(language,
            "readText('/in/b.bin').length",
            "import os\n[len(open('/in/b.bin', 'rb').read()), list(open('/in/b.bin', 'rb').read()), os.listdir('/in')]")
        .withFile("/in/b.bin", bytes));
    assertThatRun(r).isOk();
    if (language == Language.PYTHON) {
      assertThat(r.value()).isEqualTo(List.of(5L, List.of(0L, 1L, 2L, 255L, 10L), List.of("b.bin")));
    } else {
      assertThat(((Number) r.value()).intValue()).isEqualTo(5); // 0xff decodes to one replacement char
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void file_isInvisibleToTheNextRun(Language language) {
    assertThatRun(sandbox.run(script(language, READ_JS, READ_PY).withFile("/in/upload.csv", CSV))).isOk();
    ExecutionResult next = sandbox.run(script(language,
        "(() => { try { return readText('/in/upload.csv'); } catch (e) { return 'ERR ' + e.code; } })()",
        GuestCode.pythonAttempt("open('/in/upload.csv').read()")));
    assertThatRun(next).isOk();
    assertThat(String.valueOf(next.value())).doesNotContain("12.5").startsWith(
        language == Language.JAVASCRIPT ? "ERR EACCES" : "DENIED PermissionError");
    assertThatRun(next).recordedDenial(Operation.FILE_READ, "/in/upload.csv");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void concurrentRuns_eachSeeOnlyTheirOwnFile(Language language) {
    String js = "(() => { try { return readText('/in/upload.csv'); } catch (e) { return 'ERR ' + e.code; } })()";
    String py = "try:\n    r = open('/in/upload.csv').read()\nexcept OSError as e:\n    r = 'ERR ' + type(e).__name__\nr";
    List<CompletableFuture<ExecutionResult>> runs = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      runs.add(sandbox.runAsync(script(language, js, py).withFile("/in/upload.csv", "run " + i)));
    }
    CompletableFuture<ExecutionResult> without = sandbox.runAsync(script(language, js, py));
    for (int i = 0; i < 4; i++) {
      assertThatRun(runs.get(i).join()).isOk().hasValue("run " + i);
    }
    assertThat(String.valueOf(without.join().value())).startsWith("ERR ");
  }

  @Test
  void writableFile_isTransformed_andCollectedAsOutput() {
    ExecutionResult r = sandbox.run(Script.of(Language.PYTHON, String.join("\n",
            "rows = open('/in/upload.csv').read().splitlines()",
            "with open('/in/upload.csv', 'w') as f:",
            "    f.write('\\n'.join(r.upper() for r in rows))",
            "len(rows)"))
        .withFile("/in/upload.csv", CSV, Script.FileMode.WRITABLE)
        .withOutputFiles("/in/upload.csv"));
    assertThatRun(r).isOk().hasValue(3L);
    assertThat(new String(r.outputFiles().get("/in/upload.csv").bytes(), StandardCharsets.UTF_8))
        .isEqualTo("ID,TOTAL\n1,12.5\n2,7.5");
  }

  @Test
  void readOnlyFile_refusesWrites_andCannotBeDeletedOrRenamed() {
    ExecutionResult r = sandbox.run(Script.of(Language.PYTHON, GuestCode.pythonAttempts("OSError",
            "open('/in/upload.csv', 'w').write('x')",
            "open('/in/upload.csv', 'a').write('x')",
            "__import__('os').remove('/in/upload.csv')",
            "__import__('os').rename('/in/upload.csv', '/out/moved.csv')",
            "open('/in/new.csv', 'w').write('x')",
            "open('/in/upload.csv').read()"))
        .withFile("/in/upload.csv", CSV));
    assertThatRun(r).isOk();
    assertThat((List<Object>) r.value()).containsExactly("DENIED PermissionError", "DENIED PermissionError",
        "DENIED PermissionError", "DENIED PermissionError", "DENIED PermissionError", "OK " + CSV);
  }

  @Test
  void writableFile_canStillNotBeDeletedOrRenamed() {
    ExecutionResult r = sandbox.run(Script.of(Language.PYTHON, GuestCode.pythonAttempts("OSError",
            "__import__('os').remove('/in/upload.csv')",
            "__import__('os').rename('/in/upload.csv', '/in/other.csv')",
            "open('/in/upload.csv', 'a').write('!')"))
        .withFile("/in/upload.csv", "x", Script.FileMode.WRITABLE));
    assertThatRun(r).isOk();
    assertThat((List<Object>) r.value()).containsExactly("DENIED PermissionError", "DENIED PermissionError", "OK 1");
  }

  // ---- caps ----

  @Test
  void filesLargerThanMaxFileBytes_areRefusedWhenTheRunIsAsked_namingThePath() {
    Script s = Script.of(Language.JAVASCRIPT, "1").withFile("/in/huge.bin", new byte[64 * 1024 + 1]);
    assertThatThrownBy(() -> sandbox.run(s)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/in/huge.bin").hasMessageContaining("maxFileBytes (65536)");
  }

  @Test
  void moreFilesThanMaxFiles_areRefusedWhenTheRunIsAsked() {
    Script s = Script.of(Language.JAVASCRIPT, "1");
    for (int i = 0; i < 40; i++) {
      s = s.withFile("/in/f" + i, "x");
    }
    Script tooMany = s; // 40 files and the directory /in
    assertThatThrownBy(() -> sandbox.run(tooMany)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("41 files and directories").hasMessageContaining("maxFiles (40)");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void filesThatFitAloneButNotBesideTheBlocks_endTheRunOnTheFilesLimit_beforeTheGuestStarts(Language language) {
    // 16 blocks of 4 KiB; 17 files of one byte each take a block each.
    Script s = script(language, "globalThis.ran = 1", "ran = 1");
    for (int i = 0; i < 17; i++) {
      s = s.withFile("/in/f" + i, "x");
    }
    ExecutionResult r = sandbox.run(s);
    assertThatRun(r).wasStoppedBy(Limit.FILES);
    assertThat(r.errorMessage()).hasValueSatisfying(m -> assertThat(m).contains("/in/f"));
    assertThat(r.usage().wallTime()).isEqualTo(Duration.ZERO);
  }

  @Test
  void writableFile_cannotGrowPastTheFileLimit() {
    ExecutionResult r = sandbox.run(Script.of(Language.PYTHON, String.join("\n",
            "with open('/in/grow.bin', 'ab') as f:",
            "    for i in range(100):",
            "        f.write(b'x' * 4096)",
            "1"))
        .withFile("/in/grow.bin", new byte[10], Script.FileMode.WRITABLE));
    assertThatRun(r).wasStoppedBy(Limit.FILES);
  }

  @Test
  void tooManyFilesForAScript_areRefusedAtOnce() {
    Script s = Script.of(Language.JAVASCRIPT, "1");
    for (int i = 0; i < Script.MAX_FILES; i++) {
      s = s.withFile("/in/f" + i, "");
    }
    Script full = s;
    assertThatThrownBy(() -> full.withFile("/in/one-more", "")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 256 files").hasMessageContaining("/in/one-more");
  }

  // ---- paths ----

  @ParameterizedTest
  @ValueSource(strings = {"in/relative.csv", "/in/../etc/passwd", "/", "", "/in/a\\b", "/in/c:d", "/in/\u0007"})
  void badPaths_areRefusedByName(String path) {
    assertThatThrownBy(() -> Script.of(Language.PYTHON, "1").withFile(path, "x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("file");
  }

  @Test
  void overlappingFiles_areRefused() {
    assertThatThrownBy(() -> Script.of(Language.PYTHON, "1").withFile("/in/a", "x").withFile("/in/a/b", "y"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/in/a/b").hasMessageContaining("/in/a");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/data/seed.csv", "/out/x.csv", "/data", "/usr/lib/graalpy", "/usr/lib/graalpy/lib/os.py",
      "/usr/lib"})
  void filesClashingWithMountsOrThePythonHome_areRefusedWhenTheRunIsAsked(String path) {
    Script s = Script.of(Language.JAVASCRIPT, "1").withFile(path, "x");
    assertThatThrownBy(() -> sandbox.run(s)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("file " + path + " ");
  }

  @Test
  void aReadOnlyFile_cannotBeDeclaredAnOutputFile() {
    Script s = Script.of(Language.PYTHON, "1").withFile("/in/a.csv", "x").withOutputFiles("/in/a.csv");
    assertThatThrownBy(() -> sandbox.run(s)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/in/a.csv").hasMessageContaining("read-only");
  }

  @Test
  void content_isCopied_whenGiven() {
    byte[] bytes = "before".getBytes(StandardCharsets.UTF_8);
    Script s = Script.of(Language.PYTHON, "open('/in/a').read()").withFile("/in/a", bytes);
    bytes[0] = 'X';
    assertThatRun(sandbox.run(s)).isOk().hasValue("before");
  }

  // ---- the host disk ----

  @ParameterizedTest
  @EnumSource(Language.class)
  void files_neverReachTheHostDisk(Language language) throws IOException {
    String marker = "marker-" + UUID.randomUUID();
    Instant start = Instant.now().minusSeconds(1);
    ExecutionResult r = sandbox.run(Script.of(language, GuestCode.of(language, "readText('/in/m.txt').length",
            "with open('/in/m.txt', 'a') as f:\n    f.write('" + marker + "-appended')\nlen(open('/in/m.txt').read())"))
        .withFile("/in/m.txt", marker, Script.FileMode.WRITABLE));
    assertThatRun(r).isOk();
    byte[] needle = marker.getBytes(StandardCharsets.UTF_8);
    for (Path root : List.of(Path.of(System.getProperty("java.io.tmpdir")), Path.of(System.getProperty("user.dir")))) {
      try (Stream<Path> all = Files.walk(root, 4)) {
        List<Path> holding = all.filter(p -> recentSmallFile(p, start)).filter(p -> holds(p, needle)).toList();
        assertThat(holding).as("files under " + root + " written during the run holding its content").isEmpty();
      } catch (java.io.UncheckedIOException unreadableDirectory) {
        // another user's directory under /tmp: not ours to read, and not where the sandbox writes
      }
    }
  }

  private static boolean recentSmallFile(Path p, Instant since) {
    try {
      return Files.isRegularFile(p) && Files.size(p) < 16 * 1024 * 1024
          && Files.getLastModifiedTime(p).compareTo(FileTime.from(since)) >= 0;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean holds(Path p, byte[] needle) {
    try {
      byte[] b = Files.readAllBytes(p);
      outer:
      for (int i = 0; i + needle.length <= b.length; i++) {
        for (int j = 0; j < needle.length; j++) {
          if (b[i + j] != needle[j]) {
            continue outer;
          }
        }
        return true;
      }
      return false;
    } catch (IOException e) {
      return false;
    }
  }
}
