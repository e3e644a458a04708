package org.polyglotsandbox.internal.filesystem;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.internal.EnforcementSink;

/**
 * The translations between the host's and the virtual name of GraalPy's home, without a context: what a
 * guest would otherwise read of the host in paths, errors and attributes.
 */
class InterpreterHomeTest {
  private static final Path HOST = Path.of("/home/alice/.cache/org.graalvm.polyglot/python/python-home/0123abcd");
  private final InterpreterHome home = new InterpreterHome("/usr/lib/graalpy", List.of(HOST));

  @Test
  void hostPaths_becomeVirtual_andOnlyInsideTheHome() {
    assertThat(home.toVirtual(HOST.toString())).isEqualTo(Path.of("/usr/lib/graalpy"));
    assertThat(home.toVirtual(HOST + "/lib/python3.12/os.py")).isEqualTo(Path.of("/usr/lib/graalpy/lib/python3.12/os.py"));
    assertThat(home.toVirtual(HOST + "/lib/../lib")).isEqualTo(Path.of("/usr/lib/graalpy/lib"));
    assertThat(home.toVirtual(HOST + "-other")).as("a sibling with the same prefix").isNull();
    assertThat(home.toVirtual(HOST + "/..")).as("the cache around it").isNull();
    assertThat(home.toVirtual(HOST.getParent().toString())).isNull();
    assertThat(home.toVirtual("lib/python3.12")).isNull();
    assertThat(home.toVirtual("/etc/passwd\0")).isNull();
    assertThat(home.toHost(Path.of("/usr/lib/graalpy/lib/python3.12/os.py"))).isEqualTo(HOST.resolve("lib/python3.12/os.py"));
    assertThat(home.isVirtual(Path.of("/usr/lib/graalpy2"))).isFalse();
  }

  @Test
  void errors_keepTheirKind_butNameOnlyTheVirtualHome() {
    IOException missing = home.scrub(new NoSuchFileException(HOST + "/lib/x.py", null, "gone from " + HOST));
    assertThat(missing).isExactlyInstanceOf(NoSuchFileException.class).hasMessage(
        "/usr/lib/graalpy/lib/x.py: gone from /usr/lib/graalpy").hasNoCause();
    IOException denied = home.scrub(new AccessDeniedException(HOST + "/a", HOST + "/b", null));
    assertThat(denied).isExactlyInstanceOf(AccessDeniedException.class)
        .hasMessage("/usr/lib/graalpy/a -> /usr/lib/graalpy/b");
    RuntimeException refused = home.scrub(new SecurityException("Operation is not allowed for: " + HOST + "/lib"));
    assertThat(refused).isExactlyInstanceOf(SecurityException.class)
        .hasMessage("Operation is not allowed for: /usr/lib/graalpy/lib");
    IOException plain = new IOException("Read-only file");
    assertThat(home.scrub(plain)).as("nothing to hide: the same exception").isSameAs(plain);
  }

  @Test
  void attributes_showTheFile_notTheHost() {
    Map<String, Object> host = Map.of("ino", 1234567L, "dev", 2049L, "uid", 1001, "gid", 1001, "nlink", 1,
        "size", 42L, "mode", 0100600, "lastModifiedTime", FileTime.fromMillis(1_764_000_000_000L),
        "ctime", FileTime.fromMillis(1_764_000_000_000L), "permissions", PosixFilePermissions.fromString("rw-------"));
    Path file = Path.of("/usr/lib/graalpy/lib/python3.12/os.py");
    Map<String, Object> seen = home.attributes(file, host);
    assertThat(seen).containsEntry("dev", 2L).containsEntry("uid", 0).containsEntry("gid", 0)
        .containsEntry("size", 42L).containsEntry("nlink", 1).containsEntry("mode", 0100644)
        .containsEntry("lastModifiedTime", InterpreterHome.FILE_TIME).containsEntry("ctime", InterpreterHome.FILE_TIME)
        .containsEntry("permissions", PosixFilePermissions.fromString("rw-r--r--"));
    assertThat((Long) seen.get("ino")).isNotEqualTo(1234567L).isPositive()
        .isEqualTo(InterpreterHome.inode(file))
        .isNotEqualTo(InterpreterHome.inode(Path.of("/usr/lib/graalpy/lib/python3.12/json/__init__.py")));
    Map<String, Object> dir = home.attributes(Path.of("/usr/lib/graalpy"), Map.of("mode", 040700));
    assertThat(dir).containsEntry("mode", 040755);
  }

  @Test
  void theHostPath_isParsedAsTheVirtualHome_onlyUntilTheHomeIsLocated() {
    List<String> denials = new ArrayList<>();
    EnforcementSink sink = new EnforcementSink() {
      @Override
      public void denied(Operation operation, String target, Layer layer) {
        denials.add(operation + " " + target);
      }

      @Override
      public void limitReached(Limit limit, String detail, Layer layer) {}
    };
    InterpreterFiles files = InterpreterFiles.locate();
    String host = files.pythonHomes().get(0).toString();
    try (GuestFileSystem guest = GuestFileSystem.empty(Policy.computeOnly(Language.PYTHON), sink)) {
      PythonFileSystem fs = files.forPython(guest);
      assertThat(fs.parsePath(host)).isEqualTo(Path.of(Policy.PYTHON_HOME_PATH));
      fs.homeLocated();
      assertThat(fs.parsePath(host)).isEqualTo(Path.of(host));
      assertThat(fs.parsePath(Policy.PYTHON_HOME_PATH + "/lib")).isEqualTo(Path.of("/usr/lib/graalpy/lib"));
    }
  }
}
