package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.FILE_LIST;
import static org.polyglotsandbox.Operation.HOST_INFO;
import static org.polyglotsandbox.Operation.PROCESS_SIGNAL;
import static org.polyglotsandbox.Operation.PROCESS_STATE;

import java.util.List;
import java.util.Locale;
import java.util.TimeZone;
import java.util.function.Supplier;
import org.polyglotsandbox.PolicyReport;

/**
 * State the whole JVM shares and the host's identity: signal handlers, timers, signals at the JVM, the
 * default time zone and locale, the user, process, kernel and host name, and the directories around
 * GraalPy's home.
 *
 * <p>None of these probes changes the JVM if the wall holds. If it does not, they take care not to do
 * harm: a handler GraalPy's own {@code signal} would install is never installed (finding the builtin is
 * proof enough), a timer is disarmed at once, and the only signal raised is SIGWINCH, which the JVM
 * ignores.
 */
final class ProcessStateProbes {
  private static final String HANDLERS = "signal handlers";
  private static final String TIMERS = "timers and alarms";
  private static final String TIME_ZONE = "default time zone";
  private static final String LOCALE = "locale";
  private static final String UMASK = "umask";
  private static final String WORKING_DIRECTORY = "working directory";
  private static final String ENVIRONMENT = "environment variables";
  private static final String PROPERTIES = "system properties";
  private static final String PROPERTY = "polyglot-sandbox.probe";
  private static final String THE_JVM = "<the JVM itself>";
  private static final String IDENTITY = "<user, process, kernel, host name, CPUs>";
  private static final String PATHS = "<interpreter paths>";

  private ProcessStateProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    out.add(Probe.js("js.state.time-zone", PROCESS_STATE, TIME_ZONE).hostCheck(timeZoneChanged())
        .code(JS_STATE_TIME_ZONE));
    out.add(Probe.js("js.state.locale", PROCESS_STATE, LOCALE).hostCheck(localeChanged()).code(JS_STATE_LOCALE));
    out.add(Probe.js("js.state.system-property", PROCESS_STATE, PROPERTIES).hostCheck(propertySet())
        .code(JS_STATE_SYSTEM_PROPERTY));
    out.add(Probe.js("js.state.zone-names", PROCESS_STATE, TIME_ZONE).code(JS_STATE_ZONE_NAMES));
    out.add(Probe.js("js.info.identity", HOST_INFO, IDENTITY).code(JS_INFO_IDENTITY));
    out.add(Probe.js("js.info.paths", HOST_INFO, IDENTITY).code(JS_INFO_PATHS));
  }

  static void python(ProbeBattery b, List<Probe> out) {
    out.add(Probe.py("py.state.signal-handler", PROCESS_STATE, HANDLERS).code(PY_STATE_SIGNAL_HANDLER));
    out.add(Probe.py("py.state.setitimer", PROCESS_STATE, TIMERS).denial(PROCESS_STATE, "signal.setitimer")
        .code(PY_STATE_SETITIMER));
    out.add(Probe.py("py.state.alarm", PROCESS_STATE, TIMERS).denial(PROCESS_STATE, "signal.alarm")
        .code(PY_STATE_ALARM));
    out.add(Probe.py("py.state.tzset", PROCESS_STATE, TIME_ZONE).hostCheck(timeZoneChanged()).code(PY_STATE_TZSET));
    out.add(Probe.py("py.state.setlocale", PROCESS_STATE, LOCALE).hostCheck(localeChanged()).code(PY_STATE_SETLOCALE));
    out.add(Probe.py("py.state.umask", PROCESS_STATE, UMASK).hostCheck(umaskChanged()).code(PY_STATE_UMASK));
    out.add(Probe.py("py.state.chdir", PROCESS_STATE, WORKING_DIRECTORY).hostCheck(workingDirectoryChanged())
        .code(PY_STATE_CHDIR));
    out.add(Probe.py("py.state.putenv", PROCESS_STATE, ENVIRONMENT).hostCheck(environmentSet()).code(PY_STATE_PUTENV));
    out.add(Probe.py("py.state.system-property", PROCESS_STATE, PROPERTIES).hostCheck(propertySet())
        .code(PY_STATE_SYSTEM_PROPERTY));
    out.add(Probe.py("py.signal.raise", PROCESS_SIGNAL, THE_JVM).denial(PROCESS_SIGNAL, "signal.raise_signal")
        .code(PY_SIGNAL_RAISE));
    out.add(Probe.py("py.signal.interrupt-main", PROCESS_SIGNAL, THE_JVM)
        .denial(PROCESS_SIGNAL, "_thread.interrupt_main").code(PY_SIGNAL_INTERRUPT_MAIN));
    out.add(Probe.py("py.state.zone-names", PROCESS_STATE, TIME_ZONE).code(PY_STATE_ZONE_NAMES));
    out.add(Probe.py("py.state.locale-names", PROCESS_STATE, LOCALE).code(PY_STATE_LOCALE_NAMES));
    out.add(Probe.py("py.info.identity", HOST_INFO, IDENTITY).code(PY_INFO_IDENTITY));
    out.add(Probe.py("py.info.graalpython", HOST_INFO, IDENTITY).code(PY_INFO_GRAALPYTHON));
    out.add(Probe.py("py.info.jvm-usage", HOST_INFO, IDENTITY).code(PY_INFO_JVM_USAGE));
    out.add(Probe.py("py.info.paths", HOST_INFO, PATHS).code(PY_INFO_PATHS));
    out.add(Probe.py("py.info.paths-in-errors", HOST_INFO, PATHS).code(PY_INFO_PATHS_IN_ERRORS));
    out.add(Probe.py("py.info.home-stat", HOST_INFO, PATHS).code(PY_INFO_HOME_STAT));
    out.add(Probe.py("py.file.list-beside-home", FILE_LIST, PolicyReport.ANY_OTHER_PATH).denial(FILE_LIST, "")
        .code(PY_FILE_LIST_BESIDE_HOME));
  }

  /** Evidence that a run changed the JVM's default time zone (and puts it back). */
  private static Supplier<String> timeZoneChanged() {
    TimeZone before = TimeZone.getDefault();
    return () -> {
      TimeZone now = TimeZone.getDefault();
      if (now.getID().equals(before.getID())) {
        return null;
      }
      TimeZone.setDefault(before);
      return "the JVM's default time zone changed from " + before.getID() + " to " + now.getID();
    };
  }

  /** Evidence that a run changed one of the JVM's default locales (and puts them back). */
  private static Supplier<String> localeChanged() {
    Locale format = Locale.getDefault(Locale.Category.FORMAT);
    Locale display = Locale.getDefault(Locale.Category.DISPLAY);
    return () -> {
      Locale f = Locale.getDefault(Locale.Category.FORMAT);
      Locale d = Locale.getDefault(Locale.Category.DISPLAY);
      if (f.equals(format) && d.equals(display)) {
        return null;
      }
      Locale.setDefault(Locale.Category.FORMAT, format);
      Locale.setDefault(Locale.Category.DISPLAY, display);
      return "the JVM's default locale changed to " + f + " / " + d;
    };
  }

  /** Evidence that the JVM process's umask changed: a file created now gets other permissions than before. */
  private static Supplier<String> umaskChanged() {
    java.util.Set<java.nio.file.attribute.PosixFilePermission> before = newFilePermissions();
    return () -> {
      java.util.Set<java.nio.file.attribute.PosixFilePermission> now = newFilePermissions();
      return java.util.Objects.equals(before, now) ? null
          : "a new host file gets " + now + " instead of " + before + ": the process umask changed";
    };
  }

  private static java.util.Set<java.nio.file.attribute.PosixFilePermission> newFilePermissions() {
    try {
      java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("polyglot-sandbox-umask");
      try {
        java.nio.file.Path f = java.nio.file.Files.createFile(dir.resolve("f"));
        java.util.Set<java.nio.file.attribute.PosixFilePermission> p = java.nio.file.Files.getPosixFilePermissions(f);
        java.nio.file.Files.delete(f);
        return p;
      } finally {
        java.nio.file.Files.delete(dir);
      }
    } catch (java.io.IOException | UnsupportedOperationException e) {
      return null;
    }
  }

  /** Evidence that the JVM's working directory changed. */
  private static Supplier<String> workingDirectoryChanged() {
    String before = java.nio.file.Path.of("").toAbsolutePath().toString();
    return () -> {
      String now = java.nio.file.Path.of("").toAbsolutePath().toString();
      return now.equals(before) && before.equals(System.getProperty("user.dir")) ? null
          : "the JVM's working directory is now " + now;
    };
  }

  /** Evidence that a guest's variable reached the JVM's environment. */
  private static Supplier<String> environmentSet() {
    return () -> System.getenv("POLYGLOT_SANDBOX_PROBE") == null ? null : "the JVM's environment holds the guest's variable";
  }

  /** Evidence that a guest set a JVM system property (and removes it). */
  private static Supplier<String> propertySet() {
    return () -> {
      String v = System.getProperty(PROPERTY);
      if (v == null) {
        return null;
      }
      System.clearProperty(PROPERTY);
      return "the guest set the system property " + PROPERTY + "=" + v;
    };
  }

  // ---- guest code: JavaScript

  static final String JS_STATE_SYSTEM_PROPERTY = """
      if (typeof Java === 'undefined') { return 'blocked: no Java, no host class to reach System'; }
      Java.type('java.lang.System').setProperty('polyglot-sandbox.probe', 'js');
      return 'reachable: set a system property';""";

  static final String JS_STATE_TIME_ZONE = """
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      const offset = new Date(2020, 6, 1).getTimezoneOffset();
      if (typeof process !== 'undefined' && process.env) { process.env.TZ = 'Asia/Tokyo'; }
      return zone === 'UTC' && offset === 0 ? 'blocked: the run is in UTC and has no API to change the zone of the JVM'
          : 'reachable: the run sees the zone ' + zone;""";

  static final String JS_STATE_LOCALE = """
      const s = new Intl.NumberFormat('de-DE').format(1234.5);
      return 'blocked: Intl formats per call (' + s + '), no API reaches the default locale of the JVM';""";

  static final String JS_INFO_IDENTITY = """
      const seen = [];
      for (const name of ['process', 'os', 'java', 'Java', 'Packages', 'navigator', 'require']) {
        if (typeof globalThis[name] !== 'undefined') { seen.push(name); }
      }
      const stack = String(new Error().stack);
      for (const fact of audit.hostIdentity) {
        if (fact.length > 1 && stack.includes(fact)) { seen.push('stack shows ' + fact); }
      }
      return seen.length ? 'reachable: ' + seen.join(', ') : 'blocked: no process, os or host object; frames name no host path';""";

  static final String JS_INFO_PATHS = """
      const texts = [String(new Error('probe').stack)];
      try { null.x; } catch (e) { texts.push(String(e.stack), String(e)); }
      try { eval('('); } catch (e) { texts.push(String(e.stack)); }
      const read = [];
      for (const p of [audit.virtualHome + '/lib/python3.12/os.py', audit.hostHome[0] + '/lib/python3.12/os.py']) {
        // An error may name the path the probe gave it; anything else of the host's is a leak.
        try { readText(p); read.push(p); } catch (e) { texts.push((String(e) + String(e.stack)).split(p).join('<path>')); }
      }
      const text = texts.join('\\n');
      const leaked = audit.hostHome.filter(f => f.length > 1 && text.includes(f));
      return leaked.length || read.length ? 'reachable: ' + leaked.slice(0, 3).concat(read).join(', ')
          : 'blocked: frames and errors name no host path, and no interpreter file is readable';""";

  // ---- guest code: Python

  static final String PY_STATE_SIGNAL_HANDLER = """
      import sys, importlib, _imp
      builtin = type(len)
      found = []
      def look(route, f):
          if isinstance(f, builtin):
              found.append(route)
      import signal, _signal
      for name in ('signal', 'getsignal', 'setitimer', 'alarm', 'raise_signal'):
          look('_signal.' + name, getattr(_signal, name, None))
          look('signal.' + name, getattr(signal, name, None))
          look('signal.' + name + '.__wrapped__', getattr(getattr(signal, name, None), '__wrapped__', None))
      old = signal.signal(signal.SIGTERM, lambda s, f: None)
      for f in (signal.signal, signal.getsignal, _signal.signal):
          for cell in (getattr(f, '__closure__', None) or ()):
              try:
                  look('a closure', cell.cell_contents)
              except ValueError:
                  pass
          for v in (getattr(f, '__defaults__', None) or ()):
              look('a default', v)
      def route(name, get):
          try:
              look(name, get())
          except Exception:
              pass
      route('reload', lambda: importlib.reload(signal).signal)
      route('reload _signal', lambda: importlib.reload(_signal).signal)
      route('create_builtin', lambda: _imp.create_builtin(type(sys.__spec__)('_signal', None)).signal)
      del sys.modules['_signal']
      route('a fresh import', lambda: __import__('_signal').signal)
      if found:
          return 'reachable: the signal builtin of GraalPy through ' + ', '.join(found)
      return 'blocked: signal.signal keeps the handler per run (previous: ' + str(old) + '); no route to the builtin'""";

  static final String PY_STATE_SETITIMER = """
      import signal
      signal.setitimer(signal.ITIMER_REAL, 30)
      signal.setitimer(signal.ITIMER_REAL, 0)
      return 'reachable: armed an interval timer'""";

  static final String PY_STATE_ALARM = """
      import signal
      signal.alarm(30)
      signal.alarm(0)
      return 'reachable: armed an alarm'""";

  static final String PY_STATE_TZSET = """
      import os, time
      os.environ['TZ'] = 'Asia/Tokyo'
      time.tzset()
      if type(time.tzset) is type(len):
          return 'reachable: the tzset of GraalPy ran (it sets the default time zone of the JVM)'
      return 'blocked: tzset changes nothing; the zone is ' + time.strftime('%Z')""";

  static final String PY_STATE_SETLOCALE = """
      import locale
      locale.setlocale(locale.LC_ALL, 'de_DE.UTF-8')
      return 'blocked: the run has its own locale, ' + str(locale.setlocale(locale.LC_ALL))""";

  static final String PY_STATE_UMASK = """
      import os
      os.umask(0o077)
      previous = os.umask(0o077)
      return 'blocked: os.umask acts on a mask of the run (' + oct(previous) + ')'""";

  static final String PY_STATE_CHDIR = """
      import os
      os.chdir('/')
      return 'blocked: os.chdir moves inside the virtual file system (' + os.getcwd() + ')'""";

  static final String PY_STATE_PUTENV = """
      import os
      os.environ['POLYGLOT_SANDBOX_PROBE'] = '1'
      os.putenv('POLYGLOT_SANDBOX_PROBE', '1')
      return 'blocked: only the environment of the run changed'""";

  static final String PY_STATE_SYSTEM_PROPERTY = """
      import java
      java.type('java.lang.System').setProperty('polyglot-sandbox.probe', 'py')
      return 'reachable: set a system property'""";

  static final String PY_SIGNAL_RAISE = """
      import signal
      signal.raise_signal(signal.SIGWINCH)
      return 'reachable: raised SIGWINCH at the JVM'""";

  static final String PY_SIGNAL_INTERRUPT_MAIN = """
      import _thread
      _thread.interrupt_main()
      return 'reachable: interrupt_main ran'""";

  static final String JS_STATE_ZONE_NAMES = """
      const seen = [new Date(0).toString(), String(new Date(0).getTimezoneOffset()),
        Intl.DateTimeFormat().resolvedOptions().timeZone,
        new Date(0).toLocaleDateString(undefined, {weekday: 'long', month: 'long'})].join(' | ');
      const leaked = audit.hostZone.filter(z => z.length > 1 && seen.includes(z));
      return leaked.length === 0 && seen.includes('GMT+0000') && seen.includes('| 0 | UTC | January Thursday')
        ? 'blocked: UTC and English names: ' + seen : 'reachable: ' + seen;""";

  static final String PY_STATE_ZONE_NAMES = """
      import time, datetime
      seen = [time.strftime('%Z %z'), time.localtime().tm_zone, str(datetime.datetime.now().astimezone().tzinfo),
              repr(time.tzname), str(time.timezone), __import__('sys').version]
      text = ' | '.join(seen)
      leaked = [z for z in audit['hostZone'] if len(z) > 1 and z in text]
      if leaked or seen[:5] != ['UTC +0000', 'UTC', 'UTC', "('UTC', 'UTC')", '0']:
          return 'reachable: ' + text[:300]
      return 'blocked: UTC on every route ' + text[:200]""";

  static final String PY_STATE_LOCALE_NAMES = """
      import time, calendar
      seen = [time.strftime('%A %B %a %b', time.gmtime(0)), ' '.join(calendar.day_name), ' '.join(calendar.month_abbr)]
      if audit['hostDay'] != 'Thursday':
          try:
              time.strptime(audit['hostDay'], '%A')
              seen.append('strptime accepts ' + audit['hostDay'])
          except ValueError:
              pass
      text = ' | '.join(seen)
      english = seen[:3] == ['Thursday January Thu Jan', 'Monday Tuesday Wednesday Thursday Friday Saturday Sunday',
                             ' Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec']
      return "blocked: the C locale's English names " + text[:200] if english else 'reachable: ' + text[:300]""";

  static final String PY_INFO_GRAALPYTHON = """
      import __graalpython__ as g
      seen = [g.which(len), g.which(g), g.which(1), str(g.get_max_process_count()), g.get_jdk_version(),
              str(g.get_current_rss()), str(g.java_assert())]
      text = ' | '.join(seen)
      java = [w for w in ('com.oracle', 'java.', 'org.graalvm', 'truffle') if w in text]
      if java or seen[3] != '1' or seen[5] != '0' or seen[4] != g.get_graalvm_version():
          return 'reachable: ' + text[:300]
      return 'blocked: no Java class, one CPU, no RSS ' + text[:200]""";

  static final String PY_INFO_JVM_USAGE = """
      import time, resource
      u = resource.getrusage(resource.RUSAGE_SELF)
      t = resource.getrusage(resource.RUSAGE_THREAD)
      p, th = time.process_time(), time.thread_time()
      text = 'process_time %.3f thread_time %.3f utime %.3f stime %.3f maxrss %d/%d' % (p, th, u.ru_utime, u.ru_stime,
                                                                                      u.ru_maxrss, t.ru_maxrss)
      # The JVM's figures: process time beyond the thread's, or a resident set.
      if p - th > 0.05 or u.ru_utime - t.ru_utime > 0.05 or u.ru_maxrss or t.ru_maxrss or u.ru_stime:
          return 'reachable: ' + text
      return "blocked: only the run's own figures, " + text""";

  static final String PY_INFO_IDENTITY = """
      import os, sys, pwd, getpass, socket, platform
      seen = {'uid': os.getuid(), 'gid': os.getgid(), 'pid': os.getpid(), 'ppid': os.getppid(),
              'user': getpass.getuser(), 'home': os.path.expanduser('~'), 'pw': pwd.getpwuid(os.getuid()).pw_name,
              'kernel': os.uname().release, 'node': os.uname().nodename, 'host': socket.gethostname(),
              'platform': platform.platform(), 'cpus': os.cpu_count()}
      text = repr(seen)
      leaked = [f for f in audit['hostIdentity'] if len(f) > 1 and f in text]
      synthetic = (seen['uid'], seen['pid'], seen['user'], seen['home'], seen['host'], seen['cpus']) == (
          1000, 2, 'sandbox', '/home/sandbox', 'sandbox', 1)
      if leaked or not synthetic:
          return 'reachable: ' + text[:300]
      return 'blocked: a synthetic identity ' + text[:200]""";

  static final String PY_INFO_PATHS = """
      import sys, os, json, textwrap, importlib.util, inspect, sysconfig, site, pathlib, __graalpython__
      home = audit['virtualHome']
      paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, __graalpython__.home,
               os.__file__, json.__file__, json.__spec__.origin, importlib.util.find_spec('textwrap').origin,
               inspect.getfile(textwrap), inspect.getfile(json.dumps), json.dumps.__code__.co_filename,
               os.path.realpath(json.__file__), str(pathlib.Path(textwrap.__file__).resolve())]
      paths += [p for p in sys.path if p.startswith('/')] + list(sysconfig.get_paths().values())
      text = repr(paths) + repr(site.getsitepackages()) + repr(sys.executable) + repr(sysconfig.get_config_vars())
      for m in list(sys.modules.values()):
          try:
              text += repr(getattr(m, '__file__', ''))
          except Exception:
              pass  # another probe's import of a host-lookup module answers every attribute with an error
      leaked = [f for f in audit['hostHome'] if f in text]
      outside = [p for p in paths[:14] if not p.startswith(home)]
      if leaked or outside:
          return 'reachable: ' + str(leaked[:3] + outside[:3])[:300]
      return 'blocked: the home is ' + sys.prefix + '; ' + json.__file__""";

  static final String PY_INFO_PATHS_IN_ERRORS = """
      import os, sys, json, traceback, linecache, warnings
      home = sys.prefix
      texts = []
      def hook(pairs):
          texts.append(''.join(traceback.format_stack()))
          texts.append(repr([f.filename for f in traceback.extract_stack()]))
          warnings.warn('probe', stacklevel=2)
          return dict(pairs)
      with warnings.catch_warnings(record=True) as caught:
          warnings.simplefilter('always')
          json.loads('{"a": 1}', object_pairs_hook=hook)
      texts += [w.filename + str(w.message) for w in caught]
      try:
          json.loads('{')
      except ValueError:
          texts.append(traceback.format_exc())
      attempts = [lambda: open(home + '/missing.py'), lambda: open(os.__file__, 'a'), lambda: os.remove(json.__file__),
                  lambda: os.mkdir(home + '/x'), lambda: os.readlink(json.__file__), lambda: os.chmod(json.__file__, 0o777),
                  lambda: os.rename(json.__file__, home + '/y'), lambda: os.listdir(home + '/missing'),
                  lambda: os.statvfs(home), lambda: os.utime(json.__file__), lambda: os.rmdir(home + '/lib')]
      for a in attempts:
          try:
              a()
          except OSError as e:
              texts.append(repr(e) + str(e) + repr(e.filename) + repr(e.filename2) + traceback.format_exc())
      texts.append(linecache.getline(json.__file__, 1) + repr(list(linecache.cache)))
      text = '\\n'.join(texts)
      leaked = [f for f in audit['hostHome'] if f in text]
      if leaked or home not in text:
          return 'reachable: ' + str(leaked[:3]) + ' ' + text[:200]
      return 'blocked: frames, warnings and errors name only ' + home""";

  static final String PY_INFO_HOME_STAT = """
      import os, sys, json
      st = os.stat(json.__file__)
      d = os.stat(sys.prefix)
      fd = os.open(json.__file__, os.O_RDONLY)
      try:
          fs = os.fstat(fd)
      finally:
          os.close(fd)
      inodes = [e.inode() for e in os.scandir(os.path.dirname(json.__file__))]
      host = audit['hostHomeStat']
      seen = (st.st_ino, st.st_dev, int(st.st_mtime), st.st_uid, oct(st.st_mode), d.st_dev, oct(d.st_mode))
      same = (any(i in host['ino'] for i in [st.st_ino, fs.st_ino] + inodes)
              or any(v in host['dev'] for v in (st.st_dev, fs.st_dev, d.st_dev))
              or any(t in host['mtime'] for t in (int(st.st_mtime), int(fs.st_mtime))))
      return ('reachable: the host inode, device or time: ' if same else 'blocked: synthetic ') + str(seen)""";

  static final String PY_FILE_LIST_BESIDE_HOME = """
      import os, sys
      names = os.listdir(os.path.dirname(sys.prefix))
      return 'reachable: beside the home: ' + str(names[:5])""";
}
