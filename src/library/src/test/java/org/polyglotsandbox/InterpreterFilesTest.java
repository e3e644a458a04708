package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.internal.filesystem.InterpreterFiles;

/**
 * GraalPy's standard library lives in a host cache shared by every context and every later JVM. In the
 * configuration the sandbox really uses, no guest may create, change or delete anything there.
 */
class InterpreterFilesTest {
  private static PolyglotSandbox sandbox;
  private static Path pythonHome;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
            .mount(Mount.scratch("/scratch"))
            .limits(Limits.builder().wallTime(java.time.Duration.ofSeconds(60)).build())
            .build())
        .build();
    ExecutionResult prefix = sandbox.run(Language.PYTHON, "import sys; sys.prefix");
    assertThatRun(prefix).isOk().hasValue(Policy.PYTHON_HOME_PATH);
    pythonHome = InterpreterFiles.locate().pythonHomes().get(0);
    assertThat(pythonHome).as("the extracted standard library").isDirectory();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  @Test
  void pythonGuest_canImportButNeverWriteTheStandardLibrary() throws IOException {
    Map<String, String> before = snapshot(pythonHome);
    ExecutionResult r = sandbox.run(Language.PYTHON, String.join("\n",
        "import os, sys, json, shutil",
        "lib = os.path.dirname(os.__file__)",
        "out = {}",
        "def attempt(name, f):",
        "    try:",
        "        f()",
        "        out[name] = 'OK'",
        "    except OSError as e:",
        "        out[name] = 'DENIED ' + type(e).__name__",
        "attempt('append', lambda: open(os.__file__, 'a').write('\\nimport evil\\n'))",
        "attempt('truncate', lambda: open(json.__file__, 'w'))",
        "attempt('create', lambda: open(os.path.join(lib, 'sitecustomize.py'), 'w').write('x'))",
        "attempt('create_pth', lambda: open(os.path.join(lib, 'evil.pth'), 'w').write('x'))",
        "attempt('delete', lambda: os.remove(json.__file__))",
        "attempt('rename', lambda: os.rename(os.path.join(lib, 'json'), os.path.join(lib, 'json2')))",
        "attempt('mkdir', lambda: os.mkdir(os.path.join(lib, 'evil')))",
        "attempt('rmtree', lambda: shutil.rmtree(os.path.join(lib, 'json')))",
        "attempt('chmod', lambda: os.chmod(os.__file__, 0o777))",
        "attempt('symlink', lambda: os.symlink('/scratch/x', os.path.join(lib, 'evil.py')))",
        "attempt('copy_in', lambda: (open('/scratch/x.py', 'w').write('x'), shutil.copy('/scratch/x.py', lib)))",
        "attempt('read', lambda: open(os.__file__).read(10))",
        "out"));
    assertThatRun(r).isOk();
    @SuppressWarnings("unchecked")
    Map<String, Object> out = new java.util.HashMap<>((Map<String, Object>) r.value());
    assertThat(out).containsEntry("read", "OK");
    out.remove("read");
    assertThat(out).hasSize(11).allSatisfy((k, v) -> assertThat(v).as(k).asString().startsWith("DENIED"));
    assertThat(snapshot(pythonHome)).as("the standard library on the host").isEqualTo(before);
    assertThatRun(sandbox.run(Language.PYTHON, "import json; json.dumps([1])")).hasValue("[1]");
  }

  @Test
  void javascriptGuest_cannotEvenReadTheInterpreterFiles() {
    String os = pythonHome + "/lib/python3.12/os.py";
    assertThat(Path.of(os)).exists();
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, GuestCode.jsAttempt("load('" + os + "')"));
    assertThatRun(r).attemptWasDenied().recordedDenial(Operation.FILE_READ, pythonHome.toString());
  }

  /** Relative path, size and modification time of every file below {@code root}. */
  static Map<String, String> snapshot(Path root) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      files.forEach(p -> {
        try {
          BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
          out.put(root.relativize(p).toString(), a.size() + "@" + a.lastModifiedTime().toMillis());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
    assertThat(out).hasSizeGreaterThan(100);
    return out;
  }
}
