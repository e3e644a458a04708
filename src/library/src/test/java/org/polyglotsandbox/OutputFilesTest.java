package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.polyglotsandbox.ExecutionResult.OutputFile;
import org.polyglotsandbox.SandboxEvent.OutputRejected.Reason;

/**
 * Declared output files: only the declared paths come out of the run's file system, as bytes, within
 * their caps, never through a link; they reach the host only through {@link OutputFile#writeTo}, which
 * stays inside the directory it is given. (JavaScript guests have no file-writing API, so files they
 * hand back come from writable mounts; Python guests write them.)
 */
class OutputFilesTest {
  @TempDir static Path host;
  private static final String SEED = "id,total\n1,12.5\n";
  private static PolyglotSandbox sandbox;

  @TempDir Path target;

  @BeforeAll
  static void build() throws IOException {
    Path seed = Files.writeString(host.resolve("seed.csv"), SEED);
    Path big = Files.write(host.resolve("big.bin"), new byte[2000]);
    sandbox = PolyglotSandbox.builder().policy(Policy.builder()
            .allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
            .mount(Mount.readWrite(seed, "/data/seed.csv"))
            .mount(Mount.readWrite(big, "/data/big.bin"))
            .mount(Mount.scratch("/out"))
            // GraalPy's first file operation in a JVM takes seconds on a busy machine.
            .limits(Limits.builder().maxOutputFileBytes(1000).maxTotalOutputFileBytes(1500)
                .wallTime(Duration.ofSeconds(60)).build())
            .build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static ExecutionResult run(Language language, String javascript, String python, String... declared) {
    return sandbox.run(Script.of(language, GuestCode.of(language, javascript, python)).withOutputFiles(declared));
  }

  private static String text(OutputFile f) {
    return new String(f.bytes(), StandardCharsets.UTF_8);
  }

  // ---- taking files out ----

  @ParameterizedTest
  @EnumSource(Language.class)
  void declaredFiles_comeBackAsBytes_andNothingElse(Language language) {
    ExecutionResult r = run(language, "1", String.join("\n",
        "with open('/out/report.csv', 'w') as f:",
        "    f.write('a,b\\n1,2\\n')",
        "with open('/out/undeclared.txt', 'w') as f:",
        "    f.write('not asked for')",
        "1"), "/data/seed.csv", "/out/report.csv");
    assertThatRun(r).isOk();
    assertThat(text(r.outputFiles().get("/data/seed.csv"))).isEqualTo(SEED);
    if (language == Language.PYTHON) {
      assertThat(r.outputFiles()).containsOnlyKeys("/data/seed.csv", "/out/report.csv");
      assertThat(text(r.outputFiles().get("/out/report.csv"))).isEqualTo("a,b\n1,2\n");
      assertThat(r.missingOutputFiles()).isEmpty();
    } else {
      assertThat(r.outputFiles()).containsOnlyKeys("/data/seed.csv");
      assertThat(r.missingOutputFiles()).containsExactly("/out/report.csv");
    }
    OutputFile seed = r.outputFiles().get("/data/seed.csv");
    seed.bytes()[0] = 'X';
    assertThat(text(seed)).as("bytes() hands out a copy").isEqualTo(SEED);
    assertThat(seed.size()).isEqualTo(SEED.length());
    assertThat(r.toModelText()).contains("output files (content not shown): /data/seed.csv (16 bytes)")
        .doesNotContain("12.5");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void oversizeFile_isRejected_namingTheFileAndTheCap(Language language) {
    ExecutionResult r = run(language, "1", "1", "/data/big.bin", "/data/seed.csv");
    assertThatRun(r).wasRejected(Reason.FILE_TOO_LARGE, "/data/big.bin");
    assertThat(r.outputRejection().orElseThrow().detail()).isEqualTo("2000 bytes, more than maxOutputFileBytes (1000)");
    assertThat(r.outputFiles()).containsOnlyKeys("/data/seed.csv");
  }

  @Test
  void filesOverTheTotalCap_areRejected() {
    ExecutionResult r = run(Language.PYTHON, "", String.join("\n",
        "for name in ('a', 'b'):",
        "    with open('/out/' + name + '.bin', 'wb') as f:",
        "        f.write(b'x' * 800)"), "/out/a.bin", "/out/b.bin");
    assertThatRun(r).wasRejected(Reason.FILE_TOO_LARGE, "/out/b.bin");
    assertThat(r.outputRejection().orElseThrow().detail()).endsWith("more than maxTotalOutputFileBytes (1500)");
    assertThat(r.outputFiles()).containsOnlyKeys("/out/a.bin");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void missingFile_isListed_notAnError_unlessRequired(Language language) {
    ExecutionResult optional = run(language, "6*7", "6*7", "/out/none.txt");
    assertThatRun(optional).hasValue(42L);
    assertThat(optional.missingOutputFiles()).containsExactly("/out/none.txt");
    assertThat(optional.outputFiles()).isEmpty();

    ExecutionResult required = sandbox.run(Script.of(language, "6*7").withRequiredOutputFiles("/out/none.txt"));
    assertThatRun(required).wasRejected(Reason.MISSING_FILE, "/out/none.txt");
  }

  @Test
  void directoryAtTheDeclaredPath_isRejected() {
    ExecutionResult r = run(Language.PYTHON, "", "import os\nos.makedirs('/out/report.csv')", "/out/report.csv");
    assertThatRun(r).wasRejected(Reason.NOT_A_REGULAR_FILE, "/out/report.csv");
    assertThat(r.outputRejection().orElseThrow().detail()).isEqualTo("is a directory, not a regular file");
  }

  @Test
  void linkAtTheDeclaredPath_isRefusedByTheFileSystem_soNothingIsReadThroughIt() {
    ExecutionResult r = run(Language.PYTHON, "", GuestCode.pythonAttempt(
        "import os\nos.symlink('/data/seed.csv', '/out/report.csv')"), "/out/report.csv");
    assertThatRun(r).attemptWasDenied().recordedDenial(Operation.FILE_LINK, "/out/report.csv");
    assertThat(r.missingOutputFiles()).containsExactly("/out/report.csv");
  }

  @Test
  void failedRun_stillHandsBackItsPartialFiles() {
    ExecutionResult r = run(Language.PYTHON, "", String.join("\n",
        "with open('/out/partial.txt', 'w') as f:",
        "    f.write('half')",
        "raise RuntimeError('crashed')"), "/out/partial.txt");
    assertThatRun(r).hasOutcome(Outcome.GUEST_ERROR);
    assertThat(r.outputRejection()).isEmpty();
    assertThat(text(r.outputFiles().get("/out/partial.txt"))).isEqualTo("half");
  }

  @Test
  void outputFileOutsideEveryMount_isRefusedBeforeTheRun() {
    Script s = Script.of(Language.JAVASCRIPT, "1").withOutputFiles("/etc/report.csv");
    assertThatThrownBy(() -> sandbox.run(s)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/etc/report.csv").hasMessageContaining("outside every mount");
  }

  @ParameterizedTest
  @ValueSource(strings = {"relative.txt", "/out/../etc/passwd", "/", "/out/a\\b", "/out/a:b", "/out/\u001b[2J"})
  void unsafeOutputPath_isRefusedWhenDeclared(String path) {
    assertThatThrownBy(() -> Script.of(Language.JAVASCRIPT, "1").withOutputFiles(path))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("output file");
  }

  // ---- writing to the host, only inside the chosen directory ----

  private static OutputFile seedFile() {
    ExecutionResult r = run(Language.JAVASCRIPT, "1", "", "/data/seed.csv");
    return r.outputFiles().get("/data/seed.csv");
  }

  @Test
  void writeTo_writesBelowTheDirectory_atTheGuestPath() throws IOException {
    Path written = seedFile().writeTo(target);
    assertThat(written).isEqualTo(target.toRealPath().resolve("data/seed.csv"));
    assertThat(written).hasContent(SEED);
  }

  @Test
  void writeTo_neverReplacesAnExistingFile() throws IOException {
    Path existing = Files.writeString(Files.createDirectories(target.resolve("data")).resolve("seed.csv"), "keep");
    assertThatThrownBy(() -> seedFile().writeTo(target)).isInstanceOf(FileAlreadyExistsException.class);
    assertThat(existing).hasContent("keep");
  }

  @Test
  void writeTo_neverFollowsALinkOnTheWay() throws IOException {
    Path elsewhere = Files.createDirectories(host.resolve("elsewhere"));
    Files.createSymbolicLink(target.resolve("data"), elsewhere);
    assertThatThrownBy(() -> seedFile().writeTo(target)).isInstanceOf(FileSystemException.class)
        .hasMessageContaining("symbolic link");
    assertThat(elsewhere).isEmptyDirectory();
  }

  @Test
  void writeTo_neverWritesThroughALinkAtTheTarget() throws IOException {
    Path outside = Files.writeString(host.resolve("outside.txt"), "outside");
    Files.createSymbolicLink(Files.createDirectories(target.resolve("data")).resolve("seed.csv"), outside);
    assertThatThrownBy(() -> seedFile().writeTo(target)).isInstanceOf(FileAlreadyExistsException.class);
    assertThat(outside).hasContent("outside");
    Path dangling = Files.createDirectories(target.resolve("d"));
    Files.delete(target.resolve("data/seed.csv"));
    Files.createSymbolicLink(target.resolve("data/seed.csv"), dangling.resolve("created-through-link"));
    assertThatThrownBy(() -> seedFile().writeTo(target)).isInstanceOf(FileAlreadyExistsException.class);
    assertThat(dangling).isEmptyDirectory();
  }

  @Test
  void writeTo_refusesATargetThatIsNotADirectory() throws IOException {
    Path file = Files.writeString(target.resolve("file"), "x");
    assertThatThrownBy(() -> seedFile().writeTo(file)).isInstanceOf(NotDirectoryException.class);
    assertThatThrownBy(() -> seedFile().writeTo(target.resolve("missing"))).isInstanceOf(IOException.class);
  }

  @Test
  void writeOutputFiles_writesNothingIfAnyTargetExists() throws IOException {
    ExecutionResult r = run(Language.PYTHON, "", "with open('/out/report.csv', 'w') as f:\n    f.write('r')",
        "/data/seed.csv", "/out/report.csv");
    Files.writeString(Files.createDirectories(target.resolve("out")).resolve("report.csv"), "older");
    assertThatThrownBy(() -> r.writeOutputFiles(target)).isInstanceOf(FileAlreadyExistsException.class)
        .hasMessageContaining("never overwritten");
    assertThat(target.resolve("data/seed.csv")).doesNotExist();
    assertThat(target.resolve("out/report.csv")).hasContent("older");

    Files.delete(target.resolve("out/report.csv"));
    List<Path> written = r.writeOutputFiles(target);
    assertThat(written).containsExactly(target.toRealPath().resolve("data/seed.csv"),
        target.toRealPath().resolve("out/report.csv"));
    assertThat(target.resolve("out/report.csv")).hasContent("r");
  }
}
