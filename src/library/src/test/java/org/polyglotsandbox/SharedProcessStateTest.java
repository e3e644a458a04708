package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TimeZone;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Guest code changes nothing the whole JVM process shares, and sees a
 * synthetic identity instead of the host's. Every attempt comes from guest code; the host side checks
 * its own state (time zone, locales, system properties) around the runs. The real signal behaviour is
 * proven in a forked JVM by {@link HostSignalsForkedTest}.
 */
@SuppressWarnings("unchecked")
class SharedProcessStateTest {
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).build()).build())
        .build();
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static ExecutionResult python(String code) {
    return sandbox.run(Language.PYTHON, code);
  }

  /** Runs each Python expression in turn; the value lists {@code OK <repr>} or {@code <ExceptionType>: <message>}. */
  private static List<Object> attempts(String... expressions) {
    StringBuilder b = new StringBuilder("import os, sys, signal, _signal, time, locale\n__out = []\nfor __f in [");
    for (String e : expressions) {
      b.append("lambda: ").append(e).append(",\n");
    }
    b.append("]:\n    try:\n        __out.append('OK ' + repr(__f()))\n    except BaseException as e:\n"
        + "        __out.append(type(e).__name__ + ': ' + str(e))\n__out\n");
    ExecutionResult r = python(b.toString());
    assertThatRun(r).isOk().leaksNoHostDetail();
    return (List<Object>) r.value();
  }

  @Test
  void signalHandlers_areVirtual_perRun() {
    List<Object> r = attempts(
        "signal.signal(signal.SIGTERM, lambda s, f: None)",
        "signal.signal(signal.SIGINT, lambda s, f: None)",
        "signal.signal(signal.SIGHUP, signal.SIG_IGN)",
        "signal.signal(signal.SIGUSR1, lambda s, f: None)",
        "signal.signal(signal.SIGUSR2, lambda s, f: None)",
        "signal.getsignal(signal.SIGHUP)",
        "signal.signal(signal.SIGHUP, signal.SIG_DFL)",
        "signal.signal(signal.SIGKILL, signal.SIG_IGN)",
        "signal.signal(999, signal.SIG_IGN)",
        "signal.signal(signal.SIGTERM, 'not a handler')",
        "signal.siginterrupt(signal.SIGTERM, True)",
        "signal.set_wakeup_fd(-1)");
    assertThat(r).containsExactly(
        "OK <Handlers.SIG_DFL: 0>",
        "OK <built-in function default_int_handler>",
        "OK <Handlers.SIG_DFL: 0>",
        "OK <Handlers.SIG_DFL: 0>",
        "OK <Handlers.SIG_DFL: 0>",
        "OK <Handlers.SIG_IGN: 1>",
        "OK <Handlers.SIG_IGN: 1>",
        "OSError: [Errno 22] Invalid argument",
        "ValueError: signal number out of range",
        "TypeError: signal handler must be signal.SIG_IGN, signal.SIG_DFL, or a callable object",
        "OK None",
        "OK -1");
    // The next run starts with the defaults again.
    assertThat(attempts("signal.getsignal(signal.SIGTERM)", "signal.getsignal(signal.SIGHUP)"))
        .containsExactly("OK <Handlers.SIG_DFL: 0>", "OK <Handlers.SIG_DFL: 0>");
  }

  @Test
  void timersAndSignalsAtTheJvm_areDenied_andAudited() {
    ExecutionResult r = python("""
        import signal, os, _thread, _signal
        out = []
        for f in [lambda: signal.setitimer(signal.ITIMER_REAL, 0.5), lambda: signal.setitimer(signal.ITIMER_PROF, 1, 1),
                  lambda: signal.alarm(1), lambda: _signal.alarm(1), lambda: signal.raise_signal(signal.SIGTERM),
                  lambda: os.kill(os.getpid(), signal.SIGTERM), lambda: os.kill(1, 0), lambda: os.killpg(0, 9),
                  lambda: _thread.interrupt_main()]:
            try:
                out.append('OK ' + repr(f()))
            except PermissionError as e:
                out.append('DENIED ' + str(e))
        out += [repr(signal.getitimer(signal.ITIMER_REAL)), repr(signal.setitimer(signal.ITIMER_REAL, 0)),
                repr(signal.alarm(0))]
        out
        """);
    assertThatRun(r).isOk()
        .recordedDenial(Operation.PROCESS_STATE, "signal.setitimer")
        .recordedDenial(Operation.PROCESS_STATE, "signal.alarm")
        .recordedDenial(Operation.PROCESS_SIGNAL, "signal.raise_signal")
        .recordedDenial(Operation.PROCESS_SIGNAL, "os.kill")
        .recordedDenial(Operation.PROCESS_SIGNAL, "os.killpg")
        .recordedDenial(Operation.PROCESS_SIGNAL, "_thread.interrupt_main");
    assertThat((List<Object>) r.value()).containsExactly(
        "DENIED [Errno 1] Operation not permitted: signal.setitimer is not available in the sandbox",
        "DENIED [Errno 1] Operation not permitted: signal.setitimer is not available in the sandbox",
        "DENIED [Errno 1] Operation not permitted: signal.alarm is not available in the sandbox",
        "DENIED [Errno 1] Operation not permitted: signal.alarm is not available in the sandbox",
        "DENIED [Errno 1] Operation not permitted: signal.raise_signal is not available in the sandbox",
        "DENIED [Errno 1] Operation not permitted: os.kill is not available in the sandbox",
        "DENIED [Errno 1] Operation not permitted: os.kill is not available in the sandbox",
        "DENIED [Errno 1] Operation not permitted: os.killpg is not available in the sandbox",
        "DENIED [Errno 1] Operation not permitted: _thread.interrupt_main is not available in the sandbox",
        "(0.0, 0.0)", "(0.0, 0.0)", "0");
  }

  @Test
  void theOriginalBuiltins_cannotBeReachedAgain() {
    // Every route a guest has to GraalPy's own functions: the modules, signal.py's copies and wrappers,
    // closures and defaults of the replacements, reload, a fresh import, _imp, and every loaded module.
    ExecutionResult r = python("""
        import sys, importlib, _imp, os, posix, time, pwd, _socket, _thread, signal, _signal
        builtin = type(len)
        names = {'signal', 'getsignal', 'setitimer', 'getitimer', 'alarm', 'raise_signal', 'siginterrupt',
                 'set_wakeup_fd', 'kill', 'killpg', 'getuid', 'getgid', 'getpid', 'getppid', 'uname',
                 'cpu_count', 'sysconf', 'getloadavg', 'tzset', 'getpwuid', 'getpwnam', 'gethostname',
                 'interrupt_main', 'get_native_id'}
        found = []
        def look(route, v):
            if isinstance(v, builtin) and getattr(v, '__name__', None) in names:
                found.append(route + ' ' + v.__name__)
        def scan(route, m):
            for k, v in list(vars(m).items()):
                look(route + '.' + k, v)
                look(route + '.' + k + '.__wrapped__', getattr(v, '__wrapped__', None))
                if not isinstance(v, type(scan)):
                    continue
                for cell in (v.__closure__ or ()):
                    try:
                        look(route + '.' + k + ' closure', cell.cell_contents)
                    except ValueError:
                        pass
                for d in (v.__defaults__ or ()):
                    look(route + '.' + k + ' default', d)
                g = getattr(v, '__globals__', None)
                if isinstance(g, dict):
                    for gk, gv in list(g.items()):
                        look(route + '.' + k + ' globals.' + gk, gv)
        for name, m in list(sys.modules.items()):
            scan(name, m)
        for name in ['signal', '_signal', 'posix', 'os', 'time', 'pwd', '_socket', '_thread']:
            try:
                scan('reload ' + name, importlib.reload(sys.modules[name]))
            except Exception:
                pass
            try:
                scan('create_builtin ' + name, _imp.create_builtin(type(sys.__spec__)(name, None)))
            except Exception:
                pass
            saved = sys.modules.pop(name)
            try:
                scan('reimport ' + name, __import__(name))
            except Exception:
                pass
            sys.modules[name] = saved
        found
        """);
    assertThatRun(r).isOk();
    assertThat((List<Object>) r.value()).isEmpty();
  }

  @Test
  void pythonIdentity_isSynthetic() {
    List<Object> r = attempts(
        "os.getuid()", "os.getgid()", "os.getpid()", "os.getppid()", "os.getpgrp()", "os.getsid(0)",
        "__import__('pwd').getpwuid(os.getuid())[:]", "__import__('pwd').getpwuid(0)",
        // What getpass.getuser() answers (importing getpass can fail on GraalPy when another context of the
        // JVM loaded its native termios first).
        "__import__('pwd').getpwuid(os.getuid())[0]",
        "os.path.expanduser('~')", "os.uname()[:]", "__import__('platform').node()",
        "__import__('socket').gethostname()", "os.cpu_count()", "os.sysconf('SC_NPROCESSORS_ONLN')",
        "os.getloadavg()", "__import__('threading').get_native_id()", "__import__('posix').getpid()");
    String machine = (String) python("import posix; posix.uname().machine").value();
    assertThat(r).containsExactly(
        "OK 1000", "OK 1000", "OK 2", "OK 1", "OK 2", "OK 2",
        "OK ('sandbox', 'x', 1000, 1000, 'sandbox', '/home/sandbox', '/bin/sh')",
        "KeyError: 'getpwuid(): uid not found: 0'", "OK 'sandbox'", "OK '/home/sandbox'",
        "OK ('Linux', 'sandbox', '6.0.0-sandbox', '#1 SMP', '" + machine + "')", "OK 'sandbox'",
        "OK 'sandbox'", "OK 1", "OK 1", "OSError: Load averages are unobtainable", "OK 2", "OK 2");
    String all = String.valueOf(r);
    assertThat(all).doesNotContain(String.valueOf(ProcessHandle.current().pid()))
        .doesNotContain(System.getProperty("os.version"))
        .doesNotContain("'" + System.getProperty("user.name") + "'")
        .doesNotContain(System.getProperty("user.home") + "'");
  }

  @Test
  void pythonGuest_cannotListBesideTheInterpreterHome() {
    ExecutionResult r = python("""
        import os, sys
        out = []
        for p in [os.path.dirname(sys.prefix), os.path.dirname(os.path.dirname(sys.prefix))]:
            try:
                out.append('LISTED ' + str(os.listdir(p)))
            except OSError as e:
                out.append('DENIED ' + type(e).__name__)
        out.append(str(len(os.listdir(sys.prefix)) > 0))
        out
        """);
    assertThatRun(r).isOk();
    assertThat((List<Object>) r.value()).containsExactly("DENIED PermissionError", "DENIED PermissionError", "True");
  }

  @Test
  void timeZoneLocaleEnvironmentAndProperties_ofTheJvm_neverChange() {
    TimeZone zone = TimeZone.getDefault();
    Locale format = Locale.getDefault(Locale.Category.FORMAT);
    Locale display = Locale.getDefault(Locale.Category.DISPLAY);
    Locale locale = Locale.getDefault();
    Properties properties = (Properties) System.getProperties().clone();
    Map<String, String> environment = Map.copyOf(System.getenv());

    ExecutionResult py = python("""
        import os, time, locale
        os.environ['TZ'] = 'Asia/Tokyo'
        os.putenv('TZ', 'Asia/Tokyo')
        time.tzset()
        out = [locale.setlocale(locale.LC_ALL, 'de_DE.UTF-8'), time.strftime('%Z'), time.timezone,
               oct(os.umask(0o077)), oct(os.umask(0o022))]
        os.environ['SANDBOX_PLANTED'] = '1'
        os.mkdir('/work') if False else None
        os.chdir('/')
        out
        """);
    assertThatRun(py).isOk();
    ExecutionResult js = sandbox.run(Language.JAVASCRIPT, """
        [Intl.DateTimeFormat().resolvedOptions().timeZone, new Date(0).getTimezoneOffset(),
         new Intl.NumberFormat('de-DE').format(1234.5), typeof process]""");
    assertThatRun(js).isOk().hasValue(List.of("UTC", 0L, "1.234,5", "undefined"));

    assertThat(TimeZone.getDefault()).isEqualTo(zone);
    assertThat(Locale.getDefault(Locale.Category.FORMAT)).isEqualTo(format);
    assertThat(Locale.getDefault(Locale.Category.DISPLAY)).isEqualTo(display);
    assertThat(Locale.getDefault()).isEqualTo(locale);
    assertThat(System.getenv()).isEqualTo(environment);
    Properties now = System.getProperties();
    for (String key : now.stringPropertyNames()) {
      assertThat(now.getProperty(key)).as(key).isEqualTo(properties.getProperty(key));
    }
    // And nothing of it is left for the next run.
    assertThat(attempts("time.strftime('%Z')", "'SANDBOX_PLANTED' in os.environ", "locale.setlocale(locale.LC_ALL)",
        "os.getcwd()")).containsExactly("OK 'UTC'", "OK False", "OK 'C'", "OK '/'");
  }

  @Test
  void javascript_showsUtc_andNoHostIdentity() {
    ExecutionResult r = sandbox.run(Language.JAVASCRIPT, """
        const out = [new Date(0).toString(), Intl.DateTimeFormat().resolvedOptions().timeZone];
        for (const n of ['process', 'os', 'Java', 'java', 'Packages', 'require', 'navigator', 'performance', 'Graal']) {
          out.push(n + ':' + typeof globalThis[n]);
        }
        try { null.x; } catch (e) { out.push(String(e.stack)); }
        out""");
    assertThatRun(r).isOk().leaksNoHostDetail();
    List<?> v = (List<Object>) r.value();
    assertThat((List<Object>) v.subList(0, 11)).containsExactly("Thu Jan 01 1970 00:00:00 GMT+0000 (GMT)", "UTC",
        "process:undefined", "os:undefined", "Java:undefined", "java:undefined", "Packages:undefined",
        "require:undefined", "navigator:undefined", "performance:undefined", "Graal:undefined");
    assertThat(String.valueOf(v.get(11))).doesNotContain(System.getProperty("user.home"))
        .doesNotContain(System.getProperty("user.dir")).doesNotContain(".java");
  }
}
