package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The per-run virtual file system enforces each mount's operations and never writes to the host. */
class FileSystemTest {
  @TempDir static Path host;
  private static PolyglotSandbox sandbox;
  private static Path csv;
  private static Path editable;

  @BeforeAll
  static void build() throws IOException {
    csv = Files.writeString(host.resolve("sales.csv"), "region,amount\nnorth,10\nsouth,32\n");
    editable = Files.writeString(host.resolve("notes.txt"), "host original");
    Path dir = Files.createDirectories(host.resolve("docs/sub"));
    Files.writeString(dir.resolve("a.txt"), "A");
    Path outside = Files.writeString(host.resolve("outside-secret.txt"), "outside");
    Files.createSymbolicLink(host.resolve("docs/link-to-secret"), outside);
    sandbox = PolyglotSandbox.builder().policy(Policy.builder()
            .allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
            .mount(Mount.readOnly(csv, "/data/sales.csv"))
            .mount(Mount.readOnly(host.resolve("docs"), "/docs"))
            .mount(Mount.readWrite(editable, "/rw/notes.txt"))
            .mount(Mount.scratch("/scratch"))
            .workingDirectory("/scratch")
            .build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void mountedFile_isReadable(Language language) {
    ExecutionResult r = sandbox.run(language, GuestCode.of(language,
        "readText('/data/sales.csv').trim().split('\\n').slice(1).map(l => +l.split(',')[1]).reduce((a, b) => a + b)",
        "sum(int(l.split(',')[1]) for l in open('/data/sales.csv').read().strip().split('\\n')[1:])"));
    assertThatRun(r).hasValue(42L);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void readOnlyMount_rejectsWrites(Language language) throws IOException {
    ExecutionResult r = sandbox.run(language, GuestCode.attempt(language,
        "readText('/data/other.csv')",
        "open('/data/sales.csv', 'a').write('evil,1\\n')"));
    assertThatRun(r).attemptWasDenied();
    if (language == Language.PYTHON) {
      assertThatRun(r).recordedDenial(Operation.FILE_WRITE, "/data/sales.csv");
      assertThat(r.value().toString()).contains("PermissionError");
    } else {
      assertThat(r.value().toString()).contains("EACCES");
    }
    assertThat(csv).hasContent("region,amount\nnorth,10\nsouth,32\n");
  }

  @Test
  void readWriteMount_changesStayInMemory() throws IOException {
    ExecutionResult r = sandbox.run(Language.PYTHON, String.join("\n",
        "with open('/rw/notes.txt', 'w') as f:",
        "    f.write('changed by guest')",
        "open('/rw/notes.txt').read()"));
    assertThatRun(r).hasValue("changed by guest");
    assertThat(editable).hasContent("host original");
    assertThatRun(sandbox.run(Language.PYTHON, "open('/rw/notes.txt').read()")).hasValue("host original");
  }

  @Test
  void scratchDirectory_isAWritableWorkingDirectory() {
    ExecutionResult r = sandbox.run(Language.PYTHON, String.join("\n",
        "import os, json",
        "os.makedirs('out/nested')",
        "with open('out/nested/r.json', 'w') as f:",
        "    json.dump({'ok': True}, f)",
        "os.rename('out/nested/r.json', 'out/r.json')",
        "[os.getcwd(), sorted(os.listdir('out')), json.load(open('/scratch/out/r.json'))['ok'],",
        " os.path.isdir('/scratch/out'), os.path.isfile('out/r.json')]"));
    assertThatRun(r).hasValue(List.of("/scratch", List.of("nested", "r.json"), true, true, true));
  }

  @Test
  void mountedDirectory_isListable_butLinksInsideItAreNotCopied() {
    ExecutionResult r = sandbox.run(Language.PYTHON, String.join("\n",
        "import os",
        "[sorted(os.listdir('/docs')), open('/docs/sub/a.txt').read(), os.path.exists('/docs/link-to-secret'),",
        " sorted(os.listdir('/'))]"));
    assertThatRun(r).hasValue(List.of(List.of("sub"), "A", false, List.of("data", "docs", "rw", "scratch")));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void dotDotTraversal_cannotLeaveAMount(Language language) {
    String escape = "/data/../../" + host.resolve("outside-secret.txt").toString().substring(1);
    ExecutionResult r = sandbox.run(language, GuestCode.attempt(language,
        "readText('" + escape + "')", "open('" + escape + "').read()"));
    assertThatRun(r).attemptWasDenied().recordedDenial(Operation.FILE_READ, "outside-secret.txt");
    assertThat(r.value().toString()).doesNotContain("outside\"").doesNotEndWith("outside");
  }

  @Test
  void linksCannotBeCreated_evenInsideAWritableMount() {
    ExecutionResult r = sandbox.run(Language.PYTHON, GuestCode.pythonAttempt(
        "import os\nos.symlink('/etc/passwd', '/scratch/passwd')"));
    assertThatRun(r).attemptWasDenied().recordedDenial(Operation.FILE_LINK, "/scratch/passwd");
  }

  @Test
  void mountPointsCannotBeRemoved() {
    ExecutionResult r = sandbox.run(Language.PYTHON, GuestCode.pythonAttempt("import os\nos.rmdir('/scratch')"));
    assertThatRun(r).attemptWasDenied();
  }
}
