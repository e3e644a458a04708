package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.GuestCode.attempt;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every default-denied operation, attempted from guest code in both languages: it fails, the guest
 * sees an ordinary error of its own language, and nothing on the host changes.
 */
class DeniedOperationsTest {
  private static final String SECRET = "s3cret-host-content-7f1c";
  private static PolyglotSandbox sandbox;

  @TempDir static Path host;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
            // Some probes import large parts of the standard library (urllib.request: seconds of CPU when
            // cold); the default 10 s of each is tight on 2 busy cores.
            .limits(Limits.builder().wallTime(java.time.Duration.ofSeconds(60))
                .maxCpuTime(java.time.Duration.ofSeconds(60)).build())
            .build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static ExecutionResult run(Language language, String code) {
    return sandbox.run(language, code);
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void hostFileRead_isDenied(Language language) throws IOException {
    Path secret = Files.writeString(host.resolve("secret-" + language.id() + ".txt"), SECRET);
    ExecutionResult r = run(language, attempt(language,
        "load('" + secret + "')",
        "open('" + secret + "').read()"));
    assertThatRun(r).attemptWasDenied().recordedDenial(Operation.FILE_READ, secret.toString()).leaksNoHostDetail();
    assertThat(r.value() + r.stdout() + r.stderr()).doesNotContain(SECRET);

    ExecutionResult passwd = run(language, attempt(language, "load('/etc/passwd')", "open('/etc/passwd').read()"));
    assertThatRun(passwd).attemptWasDenied().recordedDenial(Operation.FILE_READ, "/etc/passwd");
    assertThat(String.valueOf(passwd.value())).doesNotContain("root:");
  }

  @Test
  void hostFileRead_throughModuleImportsAndTraversal_isDenied() throws IOException {
    Path secret = Files.writeString(host.resolve("module.mjs"), "export default '" + SECRET + "';");
    ExecutionResult js = run(Language.JAVASCRIPT,
        "let out = []; import('" + secret + "').then(m => out.push(m.default), e => out.push('DENIED ' + e)); out");
    assertThatRun(js).isOk();
    assertThat(js.value().toString()).doesNotContain(SECRET);
    assertThat(js.deniedOperations()).isNotEmpty();

    ExecutionResult py = run(Language.PYTHON, GuestCode.pythonAttempt(
        "open('/tmp/../../' + '" + secret + "'.lstrip('/')).read()"));
    assertThatRun(py).attemptWasDenied().recordedDenial(Operation.FILE_READ, secret.toString());
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void hostFileWrite_isDenied_andNothingChanges(Language language) throws IOException {
    Path existing = Files.writeString(host.resolve("existing-" + language.id() + ".txt"), "original");
    Path created = host.resolve("created-" + language.id() + ".txt");
    ExecutionResult r = run(language, GuestCode.of(language,
        // JavaScript on GraalJS has no file-writing API at all; try every door a script might.
        GuestCode.jsAttempts(
            "require('fs').writeFileSync('" + created + "', 'x')",
            "Java.type('java.io.FileWriter')",
            "Polyglot.eval('python', \"open('" + created + "', 'w').write('x')\")",
            "process.binding('fs')",
            "Deno.writeTextFileSync('" + created + "', 'x')"),
        "import os\n" + GuestCode.pythonAttempts("OSError",
            "open('" + created + "', 'w').write('x')",
            "open('" + existing + "', 'a').write('x')",
            "open('" + existing + "', 'w')",
            "os.remove('" + existing + "')",
            "os.rename('" + existing + "', '" + created + "')",
            "os.mkdir('" + host.resolve("newdir") + "')",
            "os.symlink('/etc/passwd', '" + created + "')")));
    assertThatRun(r).isOk().leaksNoHostDetail();
    assertThat((List<?>) r.value()).isNotEmpty().allSatisfy(v -> assertThat(v.toString()).startsWith("DENIED"));
    assertThat(created).doesNotExist();
    assertThat(host.resolve("newdir")).doesNotExist();
    assertThat(existing).hasContent("original");
    if (language == Language.PYTHON) {
      assertThatRun(r).recordedDenial(Operation.FILE_CREATE, created.toString())
          .recordedDenial(Operation.FILE_DELETE, existing.toString())
          .recordedDenial(Operation.FILE_LINK, created.toString());
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void hostDirectoryListing_showsNothingOfTheHost(Language language) {
    ExecutionResult r = run(language, GuestCode.of(language,
        "[" + GuestCode.jsAttempt("load('/etc')") + ", " + GuestCode.jsAttempt("load('/')") + "]",
        "import os\nout = [os.listdir('/')]\n"
            + "for d in ['/etc', '/proc/self', '" + host + "']:\n"
            + "    try:\n        out.append(os.listdir(d))\n"
            + "    except OSError as e:\n        out.append('DENIED ' + type(e).__name__)\n"
            + "out"));
    assertThatRun(r).isOk().leaksNoHostDetail();
    List<?> out = (List<?>) r.value();
    if (language == Language.PYTHON) {
      assertThat((List<?>) out.get(0)).as("the root of a policy without mounts is empty").isEmpty();
      assertThat(out.subList(1, out.size())).allSatisfy(v -> assertThat(v.toString()).startsWith("DENIED"));
      assertThatRun(r).recordedDenial(Operation.FILE_LIST, "/etc").recordedDenial(Operation.FILE_LIST, host.toString());
    } else {
      assertThat(out).allSatisfy(v -> assertThat(v.toString()).startsWith("DENIED"));
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void environmentVariables_areInvisible(Language language) {
    assertThat(System.getenv("PATH")).as("the host has a PATH to hide").isNotNull();
    ExecutionResult r = run(language, GuestCode.of(language,
        "[typeof process, typeof Java, typeof environment, typeof Deno, typeof Bun].join(',')",
        "import os\n[os.environ.get('PATH'), os.getenv('HOME'), os.environ.get('USER'), len(os.environ) <= 1]"));
    assertThatRun(r).isOk();
    if (language == Language.JAVASCRIPT) {
      assertThat(r.value()).isEqualTo("undefined,undefined,undefined,undefined,undefined");
    } else {
      assertThat(r.value()).isEqualTo(java.util.Arrays.asList(null, null, null, true));
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void processSpawn_isDenied(Language language) {
    Path marker = host.resolve("spawned-" + language.id());
    String touch = "/usr/bin/touch " + marker;
    if (language == Language.PYTHON) {
      for (String probe : List.of("import os; os.system('" + touch + "')",
          "import os; os.popen('" + touch + "').read()",
          "import subprocess; subprocess.run(['/usr/bin/touch', '" + marker + "'])",
          "import os; os.posix_spawn('/usr/bin/touch', ['touch', '" + marker + "'], {})",
          "import os; os.execv('/usr/bin/touch', ['touch', '" + marker + "'])")) {
        ExecutionResult r = run(language, probe);
        assertThat(r.outcome()).as("%s -> %s", probe, r).isEqualTo(Outcome.GUEST_ERROR);
        assertThatRun(r).leaksNoHostDetail();
      }
      assertThatRun(run(language, "import os; os.system('" + touch + "')"))
          .recordedDenial(Operation.PROCESS_SPAWN, "");
    } else {
      ExecutionResult r = run(language, GuestCode.jsAttempts(
          "require('child_process').execSync('" + touch + "')",
          "Java.type('java.lang.ProcessBuilder')",
          "Java.type('java.lang.Runtime').getRuntime().exec('" + touch + "')",
          "process.spawn('" + touch + "')"));
      assertThatRun(r).isOk();
      assertThat((List<?>) r.value()).allSatisfy(v -> assertThat(v.toString()).startsWith("DENIED"));
    }
    assertThat(marker).doesNotExist();
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void socketConnectAndListen_areDenied(Language language) throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      server.setSoTimeout(200);
      int port = server.getLocalPort();
      AtomicInteger accepted = new AtomicInteger();
      AtomicBoolean probing = new AtomicBoolean(true);
      Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
        while (probing.get()) {
          try (Socket ignored = server.accept()) {
            accepted.incrementAndGet();
          } catch (SocketTimeoutException e) {
            // keep listening until the probes are over
          } catch (IOException e) {
            return;
          }
        }
      });
      if (language == Language.PYTHON) {
        for (String probe : List.of(
            "import socket; socket.create_connection(('127.0.0.1', " + port + "), timeout=2)",
            "import socket; s = socket.socket(); s.connect(('127.0.0.1', " + port + "))",
            "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)",
            "import urllib.request; urllib.request.urlopen('http://127.0.0.1:" + port + "/', timeout=2)")) {
          ExecutionResult r = run(language, probe);
          assertThat(r.outcome()).as("%s -> %s", probe, r).isEqualTo(Outcome.GUEST_ERROR);
          assertThatRun(r).leaksNoHostDetail();
        }
        assertThatRun(run(language, "import socket; socket.create_connection(('127.0.0.1', " + port + "))"))
            .recordedDenial(Operation.NETWORK_SOCKET, "");
      } else {
        ExecutionResult r = run(language, "let out = " + GuestCode.jsAttempts(
            "fetch('http://127.0.0.1:" + port + "/')",
            "new XMLHttpRequest()",
            "new WebSocket('ws://127.0.0.1:" + port + "/')",
            "Java.type('java.net.Socket')",
            "require('net').connect(" + port + ")") + ";\n"
            + "import('http://127.0.0.1:" + port + "/x.mjs').then(() => out.push('OK'), e => out.push('DENIED ' + e));\n"
            + "out");
        assertThatRun(r).isOk();
        assertThat((List<?>) r.value()).hasSize(6).allSatisfy(v -> assertThat(v.toString()).startsWith("DENIED"));
      }
      // The probes are over: a connection one of them made is accepted or waits in the backlog, where the
      // last look finds it however long the acceptor took to be scheduled.
      probing.set(false);
      acceptor.join(60_000);
      server.setSoTimeout(100);
      try (Socket late = server.accept()) {
        accepted.incrementAndGet();
      } catch (SocketTimeoutException none) {
        // the backlog is empty
      }
      assertThat(accepted).as("connections the host accepted").hasValue(0);
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void hostClassLookup_isDenied(Language language) {
    ExecutionResult r = run(language, GuestCode.of(language,
        GuestCode.jsAttempts(
            "Java.type('java.lang.Runtime')",
            "Packages.java.lang.Runtime.getRuntime()",
            "java.lang.System.exit(1)",
            "(1).constructor.constructor('return Java')().type('java.lang.Runtime')"),
        GuestCode.pythonAttempts("BaseException",
            "__import__('java').type('java.lang.Runtime')",
            "__import__('java').add_to_classpath('/tmp')",
            "__import__('polyglot').import_value('java')",
            "__graalpython__.read_file('/etc/passwd')")));
    assertThatRun(r).isOk().leaksNoHostDetail();
    assertThat((List<?>) r.value()).allSatisfy(v -> assertThat(v.toString()).startsWith("DENIED"));
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void polyglotEvalIntoTheOtherLanguage_isDenied(Language language) {
    ExecutionResult r = run(language, attempt(language,
        "Polyglot.eval('python', '6*7')",
        "import polyglot; polyglot.eval(language='js', string='6*7')"));
    assertThatRun(r).attemptWasDenied().leaksNoHostDetail();
    assertThat(r.value().toString()).doesNotContain("42");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void threadCreation_isDenied(Language language) {
    if (language == Language.PYTHON) {
      ExecutionResult r = run(language,
          "import threading\nran = []\nt = threading.Thread(target=lambda: ran.append(1))\nt.start()\nt.join()\nran");
      assertThatRun(r).hasOutcome(Outcome.GUEST_ERROR).recordedDenial(Operation.THREAD_CREATE, "").leaksNoHostDetail();
      assertThat(r.errorMessage()).get().asString().contains("thread creation is not permitted");
    } else {
      ExecutionResult r = run(language, GuestCode.jsAttempts(
          "new Worker('x.js')",
          "Java.type('java.lang.Thread')",
          "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10)"));
      assertThatRun(r).isOk();
      assertThat(((List<?>) r.value()).subList(0, 2)).allSatisfy(v -> assertThat(v.toString()).startsWith("DENIED"));
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void nativeLibraries_areDenied(Language language) {
    ExecutionResult r = run(language, GuestCode.of(language,
        "[typeof WebAssembly, " + GuestCode.jsAttempt("Java.type('java.lang.System').loadLibrary('c')") + "]",
        GuestCode.pythonAttempts("BaseException",
            "__import__('ctypes').CDLL(None)",
            "__import__('ctypes').cdll.LoadLibrary('libc.so.6')")));
    assertThatRun(r).isOk().leaksNoHostDetail();
    List<?> out = (List<?>) r.value();
    if (language == Language.JAVASCRIPT) {
      assertThat(out.get(0)).isEqualTo("undefined");
      assertThat(out.get(1).toString()).startsWith("DENIED");
    } else {
      assertThat(out).allSatisfy(v -> assertThat(v.toString()).startsWith("DENIED"));
      // Below ctypes, the engine itself refuses: the run ends with a permission error the guest cannot catch.
      ExecutionResult dlopen = run(language, GuestCode.pythonAttempt("import _ctypes\n_ctypes.dlopen('libc.so.6', 0)"));
      assertThatRun(dlopen).hasOutcome(Outcome.GUEST_ERROR).recordedDenial(Operation.NATIVE_ACCESS, "").leaksNoHostDetail();
      assertThat(dlopen.errorMessage()).get().asString().contains("native access is not permitted");
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void exit_endsTheRunNotTheJvm(Language language) {
    if (language == Language.PYTHON) {
      ExecutionResult r = run(language, "import sys\nprint('before')\nsys.exit(3)\nprint('after')");
      assertThatRun(r).hasOutcome(Outcome.GUEST_ERROR);
      assertThat(r.exitStatus()).hasValue(3);
      assertThat(r.stdout()).isEqualTo("before\n");
      ExecutionResult hard = run(language, "import os\nos._exit(4)");
      assertThat(hard.exitStatus()).hasValue(4);
      assertThatRun(run(language, "import sys\nsys.exit(0)")).isOk();
    } else {
      ExecutionResult r = run(language, GuestCode.jsAttempts(
          "quit(3)", "exit(3)", "process.exit(3)", "Java.type('java.lang.System').exit(3)"));
      assertThatRun(r).isOk();
      assertThat((List<?>) r.value()).allSatisfy(v -> assertThat(v.toString()).startsWith("DENIED"));
    }
    assertThatRun(run(language, "6*7")).as("the sandbox still serves").hasValue(42L);
  }
}
