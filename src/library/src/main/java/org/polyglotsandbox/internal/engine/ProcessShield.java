package org.polyglotsandbox.internal.engine;

import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyExecutable;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.internal.EnforcementSink;
import org.polyglotsandbox.internal.boundary.GuestFunction;
import org.polyglotsandbox.internal.limits.RunGuard;

/**
 * GraalPy's process-wide operations and host identity, replaced inside each Python context before any
 * guest code runs.
 *
 * <p>GraalPy's Java posix layer (the only one CONSTRAINED allows) implements {@code signal.signal}
 * with the JVM's own signal handlers, {@code signal.alarm} and {@code setitimer} with host threads that
 * raise real signals at the JVM, {@code signal.raise_signal} with a real signal (SIGTERM ends the JVM),
 * and {@code time.tzset} with {@code TimeZone.setDefault}; and it answers {@code os.getuid},
 * {@code os.getpid}, {@code os.uname}, {@code pwd} and {@code socket.gethostname} with the host's
 * values. Its {@code time}, {@code resource} and {@code __graalpython__} modules answer for the whole
 * JVM or the host: CPU time and resident set of the JVM, the host's CPU count, Java class names, the
 * JVM's version, and day, month and zone names in the JVM's default locale and zone. No GraalPy option
 * that would change this is accepted under CONSTRAINED, so this class replaces those functions in the
 * builtin modules themselves ({@code _signal}, {@code signal}, {@code posix}, {@code os}, {@code time},
 * {@code pwd}, {@code _socket}, {@code _thread}, {@code resource}, {@code __graalpython__}, and
 * {@code sys.version}).
 *
 * <p>The replacements keep no reference to the originals (a guest can read closures, globals and
 * defaults), and a builtin module exists once per context, so re-importing or reloading it gives the
 * replaced functions back. What each one does:
 * <ul>
 *   <li>virtual, per run: signal handlers ({@code signal}, {@code getsignal}; a handler is recorded and
 *       never runs, because no signal reaches the guest), {@code siginterrupt}, {@code set_wakeup_fd},
 *       {@code getitimer} and disarming ({@code alarm(0)}, {@code setitimer(which, 0)}); {@code tzset}
 *       does nothing (the time zone is always UTC);
 *   <li>denied with {@code PermissionError} and a {@link Operation#PROCESS_STATE} or
 *       {@link Operation#PROCESS_SIGNAL} event: arming a timer or alarm, {@code raise_signal},
 *       {@code os.kill}, {@code os.killpg}, {@code _thread.interrupt_main};
 *   <li>synthetic identity: uid and gid {@value #UID}, user {@code sandbox} with home
 *       {@code /home/sandbox}, pid {@value #PID} (parent 1), host name {@code sandbox}, kernel release
 *       {@value #KERNEL_RELEASE}, one CPU, no load average; the locale {@code C} (GraalPy starts a
 *       context in the JVM's default locale, the host's). What it cannot reach: GraalPy formats
 *       {@code format(x, 'n')} with the JVM's default locale whatever the context's;
 *   <li>the run's own figures: {@code time.process_time(_ns)}, {@code thread_time(_ns)} and
 *       {@code resource.getrusage(RUSAGE_SELF)} and {@code (RUSAGE_THREAD)} give the CPU time of the
 *       run's guest thread since the program started ({@link RunGuard#guestCpuNanos()}, the figure the
 *       result's usage reports; 0 while the context is made), system time 0, {@code ru_maxrss} 0 (the
 *       sandbox has no per-run resident set to give), and {@code RUSAGE_CHILDREN} all zeros. GraalPy has no
 *       {@code clock_gettime}, {@code os.times} or {@code os.wait4}, and {@code getrlimit} answers fixed
 *       "unlimited" values, not the host's;
 *   <li>UTC and the C locale's English names: {@code time.strftime} is the sandbox's own (glibc's
 *       directives and flags, day and month names in English, {@code %Z} {@code UTC} and {@code %z}
 *       {@code +0000} unless the struct says otherwise), so {@code calendar}, {@code datetime} and
 *       {@code _strptime}, which build their names with it, are English too; {@code strptime} is
 *       {@code _strptime}'s (as CPython's is), {@code localtime} and {@code gmtime} name their zone
 *       {@code UTC}; {@code sys.version} names a fixed build ({@code main, Jan  1 2000, 00:00:00}) and
 *       the GraalVM version in place of the JVM's;
 *   <li>GraalPy's own module: {@code __graalpython__.which} gives the Python type's name instead of the
 *       Java class's, {@code get_max_process_count} 1, {@code get_current_rss} 0, {@code java_assert}
 *       false, {@code get_jdk_version} the GraalVM version, and {@code read_file} reads through the
 *       run's file system (GraalPy's failed inside on a non-string). The rest stay: GraalPy's library
 *       uses them at import, and they answer about the virtual home or nothing;
 *   <li>an event loop the sandbox controls: asyncio's default loop makes a self-pipe with
 *       {@code socket.socketpair()}, which the sandbox denies. An import hook (the first entry of
 *       {@code sys.meta_path}) replaces {@code asyncio.unix_events.DefaultEventLoopPolicy} and
 *       {@code SelectorEventLoop} when that module is first imported (so a run that never imports
 *       asyncio pays nothing) with a loop that uses no file descriptor: it sleeps until its next timer in
 *       steps of at most 50 ms (so a cancelled or timed-out run stops between two of them), and raises {@code RuntimeError} at once when it has neither a ready callback nor a
 *       timer, since no socket, pipe or thread exists that could wake it. A guest that removes the
 *       hook gets the default loop and its {@code PermissionError}, nothing more;
 *   <li>{@code time.sleep}: GraalPy's was seen charging a sleeping guest for thread-local actions (100-138
 *       MB and 250-370 ms of CPU in a 2 s sleep); this one parks the thread in the host ({@link #PAUSE})
 *       for at most {@value #PAUSE_MAX_MILLIS} ms at a time, and returns to Python in between, where a
 *       cancelled or timed-out run stops. It keeps {@code time.monotonic}, which is harmless, not the
 *       original {@code sleep};
 *   <li>bounded inputs ({@link BuiltinBounds}), for builtins that compute for minutes in one Java call a
 *       stopped run cannot interrupt: {@code math.factorial}, {@code math.comb}, {@code math.perm} and
 *       {@code sys.set_int_max_str_digits} pass their arguments, as ints, to {@link PythonBuiltinBounds}
 *       in the host, which holds the originals (the one exception to keeping none: there, a guest cannot
 *       reach them); and the same import hook bounds the precision of {@code decimal}'s contexts when
 *       {@code _pydecimal} is first imported.
 * </ul>
 */
final class ProcessShield {
  static final int UID = 1000;
  static final int PID = 2;
  static final String KERNEL_RELEASE = "6.0.0-sandbox";

  /** What the guest-side code reports, by index: an operation and its target. */
  private record Denial(Operation operation, String target) {}

  private static final List<Denial> DENIALS = List.of(
      new Denial(Operation.PROCESS_STATE, "signal.alarm"),
      new Denial(Operation.PROCESS_STATE, "signal.setitimer"),
      new Denial(Operation.PROCESS_SIGNAL, "signal.raise_signal"),
      new Denial(Operation.PROCESS_SIGNAL, "os.kill"),
      new Denial(Operation.PROCESS_SIGNAL, "os.killpg"),
      new Denial(Operation.PROCESS_SIGNAL, "_thread.interrupt_main"));

  // Not cached: every context parses its own copy (about 25 ms of a fresh context, RESULTS.md 2026-12-02),
  // so that the function, which runs once per context, never adds up to the compilation threshold across
  // contexts.
  // Shared, it did: GraalVM 25.0.3's partial evaluator then built a graph of hundreds of MiB for it on a
  // compiler thread, outside every run's allocation, and failed with OutOfMemoryError after 20 s in a
  // 512 MiB heap while the runs beside it starved (ContextCodeCompilationTest).
  private static final Source PYTHON = Source.newBuilder("python", """
      def __sandbox_shield(report, pause, cpu, bounded):
          # Only built-in modules: os and signal (and enum, re, ... behind them) cost a fresh context
          # hundreds of ms to import, so they are left to the guest. They copy the functions replaced below
          # from posix and _signal when they are imported, and are patched here only if already loaded.
          import sys, posix, _signal, time, pwd, _socket, _thread, _locale, resource, __graalpython__, math
          os = sys.modules.get('os')
          PermissionError_ = PermissionError

          def deny(index, what):
              report(index)
              return PermissionError_(1, 'Operation not permitted: ' + what
                                      + ' is not available in the sandbox')

          # Signals: a table per run. No signal ever reaches guest code, so handlers are kept, never run.
          nsig = _signal.NSIG
          default_int = _signal.default_int_handler
          handlers = {}
          wakeup = [-1]

          def signum_of(signalnum):
              n = signalnum.__index__()
              if n < 1 or n >= nsig:
                  raise ValueError('signal number out of range')
              return n

          def default_of(n):
              return default_int if n == _signal.SIGINT else 0

          def signal(signalnum, handler):
              n = signum_of(signalnum)
              if n in (_signal.SIGKILL, _signal.SIGSTOP):
                  raise OSError(22, 'Invalid argument')
              if not callable(handler):
                  try:
                      h = handler.__index__()
                  except Exception:
                      h = -1
                  if h not in (0, 1):
                      raise TypeError('signal handler must be signal.SIG_IGN, signal.SIG_DFL, or a callable object')
                  handler = h
              old = handlers.get(n, default_of(n))
              handlers[n] = handler
              return old

          def getsignal(signalnum):
              n = signum_of(signalnum)
              return handlers.get(n, default_of(n))

          def siginterrupt(signalnum, flag):
              signum_of(signalnum)
              return None

          def set_wakeup_fd(fd, *, warn_on_full_buffer=True):
              old = wakeup[0]
              wakeup[0] = fd.__index__()
              return old

          def alarm(seconds):
              if seconds.__index__() != 0:
                  raise deny(0, 'signal.alarm')
              return 0

          def setitimer(which, seconds, interval=0.0):
              if which.__index__() not in (0, 1, 2):
                  raise OSError(22, 'Invalid argument')
              if float(seconds) != 0.0:
                  raise deny(1, 'signal.setitimer')
              return (0.0, 0.0)

          def getitimer(which):
              if which.__index__() not in (0, 1, 2):
                  raise OSError(22, 'Invalid argument')
              return (0.0, 0.0)

          def raise_signal(signalnum):
              signum_of(signalnum)
              raise deny(2, 'signal.raise_signal')

          def kill(pid, signal):
              raise deny(3, 'os.kill')

          def killpg(pgid, signal):
              raise deny(4, 'os.killpg')

          def interrupt_main(signum=_signal.SIGINT):
              raise deny(5, '_thread.interrupt_main')

          def tzset():
              return None

          # time.sleep: GraalPy's blocks through Truffle's safepoint API, and a sleeping thread was seen
          # waking again and again for thread-local actions, charged to the guest (100-138 MB and 250-370
          # ms of CPU in a 2 s sleep). This one parks the thread in the host for at most 10 ms at a time
          # and comes back to Python in between, where a cancelled or timed-out run stops.
          monotonic_ = time.monotonic

          def sleep(secs):
              if not isinstance(secs, (int, float)):
                  to_float = getattr(type(secs), '__float__', None)
                  if to_float is None:
                      raise TypeError("'" + type(secs).__name__ + "' object cannot be interpreted as an integer")
                  secs = to_float(secs)
              secs = float(secs)
              if secs != secs:
                  raise ValueError('Invalid value NaN (not a number)')
              if secs < 0:
                  raise ValueError('sleep length must be non-negative')
              end = monotonic_() + secs
              left = secs
              while left > 0:
                  pause(left if left < 0.01 else 0.01)
                  left = end - monotonic_()
              return None

          # Identity: a fixed user, process and machine.
          uid, pid, user, home = %d, %d, 'sandbox', '/home/sandbox'
          uname_result = type(posix.uname())
          machine = posix.uname().machine
          passwd = pwd.struct_passwd
          entry = passwd((user, 'x', uid, uid, user, home, '/bin/sh'))

          def getuid():
              return uid

          def getgid():
              return uid

          def getpid():
              return pid

          def getppid():
              return 1

          def getpgid(p):
              if p.__index__() not in (0, pid):
                  raise ProcessLookupError(3, 'No such process')
              return pid

          def getsid(p):
              if p.__index__() not in (0, pid):
                  raise ProcessLookupError(3, 'No such process')
              return pid

          def getpgrp():
              return pid

          def uname():
              return uname_result(('Linux', user, '%s', '#1 SMP', machine))

          def cpu_count():
              return 1

          def getloadavg():
              raise OSError('Load averages are unobtainable')

          sysconf_values = {'SC_NPROCESSORS_CONF': 1, 'SC_NPROCESSORS_ONLN': 1, 'SC_PAGESIZE': 4096,
                            'SC_PAGE_SIZE': 4096, 'SC_CLK_TCK': 100, 'SC_OPEN_MAX': 1024}
          sysconf_names = dict(posix.sysconf_names)

          def sysconf(name):
              if isinstance(name, str):
                  if name not in sysconf_names:
                      raise ValueError('unrecognized configuration name')
              else:
                  code = name.__index__()
                  name = next((k for k, v in sysconf_names.items() if v == code), None)
              if name not in sysconf_values:
                  raise OSError(22, 'Invalid argument')
              return sysconf_values[name]

          def getpwuid(u):
              if u.__index__() != uid:
                  raise KeyError('getpwuid(): uid not found: ' + str(u))
              return entry

          def getpwnam(name):
              if name != user:
                  raise KeyError("getpwnam(): name not found: '" + str(name) + "'")
              return entry

          def getpwall():
              return [entry]

          def gethostname():
              return user

          def get_native_id():
              return pid

          # GraalPy's own module: which() names Java classes, get_max_process_count() the host's CPUs,
          # get_current_rss() the JVM's (and fails inside), java_assert() the JVM's -ea flag,
          # get_jdk_version() the host's JDK, read_file(1) fails inside the interpreter. The rest stay:
          # GraalPy's library code uses them, and they answer about the virtual home or nothing.
          graalvm_version = __graalpython__.get_graalvm_version()

          def which(obj):
              t = type(obj)
              return t.__name__ if t.__module__ == 'builtins' else t.__module__ + '.' + t.__qualname__

          def get_max_process_count():
              return 1

          def get_current_rss():
              return 0

          def java_assert():
              return False

          def get_jdk_version():
              return graalvm_version

          def read_file(a):
              if not isinstance(a, str):
                  raise TypeError('read_file() argument must be str, not ' + type(a).__name__)
              with open(a, 'rb') as f:
                  return f.read()

          # sys.version carries GraalPy's build time in the JVM's default zone and the JVM's version:
          # a fixed build line instead, in the shape platform._sys_version parses.
          version_tail = sys.version.split('[', 1)[-1]
          edition = version_tail.split(',')[1].strip() if version_tail.count(',') >= 2 else 'GraalVM CE'
          arch = version_tail[version_tail.rfind('(') + 1:version_tail.rfind(')')] if '(' in version_tail else 'amd64'
          vi = sys.version_info
          sys.version = (str(vi[0]) + '.' + str(vi[1]) + '.' + str(vi[2]) + ' (main, Jan  1 2000, 00:00:00)\\n[Graal, '
                         + edition + ', Java ' + graalvm_version + ' (' + arch + ')]')

          # CPU and memory: GraalPy answers for the whole JVM (every run beside this one). A run sees its own
          # CPU time (cpu(): the guest thread's since the program started, 0 before) and no resident set.
          def process_time_ns():
              return cpu()

          def process_time():
              return cpu() / 1e9

          def thread_time_ns():
              return cpu()

          def thread_time():
              return cpu() / 1e9

          struct_rusage = resource.struct_rusage
          rusage_own = (resource.RUSAGE_SELF, getattr(resource, 'RUSAGE_THREAD', resource.RUSAGE_SELF))

          def getrusage(who):
              who = who.__index__()
              if who in rusage_own:
                  used = cpu() / 1e9
              elif who == resource.RUSAGE_CHILDREN:
                  used = 0.0
              else:
                  raise ValueError('invalid who parameter')
              return struct_rusage((used, 0.0) + (0,) * 14)

          # Zone and locale: GraalPy's strftime names days, months and the zone in the JVM's default locale
          # and zone (the host's), and calendar, datetime and _strptime build their names with it. This one
          # writes the C locale's English names and UTC; localtime and gmtime name their zone UTC.
          gmtime_ = time.gmtime
          struct_time = time.struct_time
          days = ('Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday')
          months = ('January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September',
                    'October', 'November', 'December')

          def gmtime(secs=None):
              return struct_time(tuple(gmtime_(secs))[:9] + ('UTC', 0))

          def localtime(secs=None):
              return gmtime(secs)

          def iso_weeks(y):
              p = (y + y // 4 - y // 100 + y // 400) %% 7
              q = (y - 1 + (y - 1) // 4 - (y - 1) // 100 + (y - 1) // 400) %% 7
              return 53 if p == 4 or q == 3 else 52

          def iso_year_week(y, yday, wday):
              week = (yday - (wday + 1) + 10) // 7
              if week < 1:
                  return y - 1, iso_weeks(y - 1)
              if week > iso_weeks(y):
                  return y + 1, 1
              return y, week

          def epoch_seconds(y, mon, d, hh, mm, ss):
              # Days from the civil date (proleptic Gregorian), then seconds.
              y2 = y - 1 if mon <= 2 else y
              era = y2 // 400
              yoe = y2 - era * 400
              doy = (153 * (mon + (-3 if mon > 2 else 9)) + 2) // 5 + d - 1
              doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
              return (era * 146097 + doe - 719468) * 86400 + hh * 3600 + mm * 60 + ss

          def strftime(format, t=None):
              if not isinstance(format, str):
                  raise TypeError('strftime() argument 1 must be str, not ' + type(format).__name__)
              if t is None:
                  t = localtime()
              elif not isinstance(t, (tuple, struct_time)):
                  raise TypeError('Tuple or struct_time argument required')
              zone = getattr(t, 'tm_zone', None) if isinstance(t, struct_time) else None
              offset = getattr(t, 'tm_gmtoff', None) if isinstance(t, struct_time) else None
              v = tuple(t)
              if len(v) < 9:
                  raise TypeError('function takes at least 9 arguments (' + str(len(v)) + ' given)')
              y, mon, d, hh, mm, ss, wday, yday, isdst = [x.__index__() for x in v[:9]]
              mon = mon or 1
              d = d or 1
              yday = yday or 1
              if not 1 <= mon <= 12:
                  raise ValueError('month out of range')
              if not 1 <= d <= 31:
                  raise ValueError('day of month out of range')
              if not 0 <= hh <= 23:
                  raise ValueError('hour out of range')
              if not 0 <= mm <= 59:
                  raise ValueError('minute out of range')
              if not 0 <= ss <= 61:
                  raise ValueError('seconds out of range')
              if wday < 0:
                  raise ValueError('day of week out of range')
              if not 1 <= yday <= 366:
                  raise ValueError('day of year out of range')
              wday %%= 7
              zone = 'UTC' if zone is None else str(zone)
              offset = 0 if offset is None else offset.__index__()
              out = []
              i, n = 0, len(format)
              while i < n:
                  c = format[i]
                  i += 1
                  if c != '%%' or i >= n:
                      out.append(c)
                      continue
                  start = i - 1
                  flag = ''
                  while i < n and format[i] in '-_0^#':
                      flag = format[i]
                      i += 1
                  while i < n and format[i] in 'EO':
                      i += 1
                  if i >= n:
                      out.append(format[start:])
                      break
                  c = format[i]
                  i += 1
                  num = None
                  if c == 'a':
                      s = days[wday][:3]
                  elif c == 'A':
                      s = days[wday]
                  elif c in 'bh':
                      s = months[mon - 1][:3]
                  elif c == 'B':
                      s = months[mon - 1]
                  elif c == 'c':
                      s = strftime('%%a %%b %%e %%H:%%M:%%S %%Y', v)
                  elif c == 'C':
                      num, width = y // 100, 2
                  elif c == 'd':
                      num, width = d, 2
                  elif c in 'Dx':
                      s = strftime('%%m/%%d/%%y', v)
                  elif c == 'e':
                      num, width = d, 2
                      flag = flag or '_'
                  elif c == 'F':
                      s = strftime('%%Y-%%m-%%d', v)
                  elif c == 'G':
                      num, width = iso_year_week(y, yday, wday)[0], 1
                  elif c == 'g':
                      num, width = iso_year_week(y, yday, wday)[0] %% 100, 2
                  elif c == 'H':
                      num, width = hh, 2
                  elif c == 'I':
                      num, width = (hh %% 12) or 12, 2
                  elif c == 'j':
                      num, width = yday, 3
                  elif c == 'k':
                      num, width = hh, 2
                      flag = flag or '_'
                  elif c == 'l':
                      num, width = (hh %% 12) or 12, 2
                      flag = flag or '_'
                  elif c == 'm':
                      num, width = mon, 2
                  elif c == 'M':
                      num, width = mm, 2
                  elif c == 'n':
                      s = '\\n'
                  elif c == 'p':
                      s = 'AM' if hh < 12 else 'PM'
                  elif c == 'P':
                      s = 'am' if hh < 12 else 'pm'
                  elif c == 'r':
                      s = strftime('%%I:%%M:%%S %%p', v)
                  elif c == 'R':
                      s = strftime('%%H:%%M', v)
                  elif c == 's':
                      num, width = epoch_seconds(y, mon, d, hh, mm, ss) - offset, 1
                  elif c == 'S':
                      num, width = ss, 2
                  elif c == 't':
                      s = '\\t'
                  elif c in 'TX':
                      s = strftime('%%H:%%M:%%S', v)
                  elif c == 'u':
                      num, width = wday + 1, 1
                  elif c == 'U':
                      num, width = (yday - 1 + 7 - (wday + 1) %% 7) // 7, 2
                  elif c == 'V':
                      num, width = iso_year_week(y, yday, wday)[1], 2
                  elif c == 'w':
                      num, width = (wday + 1) %% 7, 1
                  elif c == 'W':
                      num, width = (yday - 1 + 7 - wday) // 7, 2
                  elif c == 'y':
                      num, width = y %% 100, 2
                  elif c == 'Y':
                      num, width = y, 1
                  elif c == 'z':
                      sign = '-' if offset < 0 else '+'
                      a = -offset if offset < 0 else offset
                      s = sign + str(a // 3600).rjust(2, '0') + str(a // 60 %% 60).rjust(2, '0')
                  elif c == 'Z':
                      s = zone
                  elif c == '%%':
                      s = '%%'
                  else:
                      s = format[start:i]
                  if num is not None:
                      digits = str(-num if num < 0 else num)
                      if flag == '-':
                          pass
                      elif flag == '_':
                          digits = digits.rjust(width, ' ')
                      else:
                          digits = digits.rjust(width, '0')
                      s = ('-' if num < 0 else '') + digits
                  elif flag == '^':
                      s = s.upper()
                  elif flag == '#':
                      s = s.swapcase()
                  out.append(s)
              return ''.join(out)

          def strptime(string, format='%%a %%b %%d %%H:%%M:%%S %%Y'):
              import _strptime
              return _strptime._strptime_time(string, format)

          def put(module, name, f):
              # Only what the module has; a function object may serve several modules under one name.
              if name in vars(module):
                  f.__name__ = f.__qualname__ = name
                  f.__module__ = module.__name__ if module is not os else 'posix'
                  setattr(module, name, f)

          signal_module = sys.modules.get('signal')
          replaced = {'signal': signal, 'getsignal': getsignal, 'siginterrupt': siginterrupt,
                      'set_wakeup_fd': set_wakeup_fd, 'alarm': alarm, 'setitimer': setitimer,
                      'getitimer': getitimer, 'raise_signal': raise_signal}
          for name, f in replaced.items():
              put(_signal, name, f)
              # signal.py wraps signal and getsignal (they call _signal's at call time) and copies the rest.
              g = vars(signal_module).get(name) if signal_module is not None else None
              if g is not None and name in ('signal', 'getsignal'):
                  g.__wrapped__ = f
              elif g is not None:
                  setattr(signal_module, name, f)
          for m in (posix, os) if os is not None else (posix,):
              for name, f in (('kill', kill), ('killpg', killpg), ('getuid', getuid), ('getgid', getgid),
                              ('getpid', getpid), ('getppid', getppid), ('getpgid', getpgid),
                              ('getsid', getsid), ('getpgrp', getpgrp), ('uname', uname),
                              ('cpu_count', cpu_count), ('getloadavg', getloadavg), ('sysconf', sysconf)):
                  if name in vars(m):
                      put(m, name, f)
          put(time, 'tzset', tzset)
          for name, f in (('which', which), ('get_max_process_count', get_max_process_count),
                          ('get_current_rss', get_current_rss), ('java_assert', java_assert),
                          ('get_jdk_version', get_jdk_version), ('read_file', read_file)):
              put(__graalpython__, name, f)
          for name, f in (('process_time', process_time), ('process_time_ns', process_time_ns),
                          ('thread_time', thread_time), ('thread_time_ns', thread_time_ns),
                          ('strftime', strftime), ('strptime', strptime), ('gmtime', gmtime),
                          ('localtime', localtime)):
              put(time, name, f)
          put(resource, 'getrusage', getrusage)
          put(time, 'sleep', sleep)
          put(pwd, 'getpwuid', getpwuid)
          put(pwd, 'getpwnam', getpwnam)
          put(pwd, 'getpwall', getpwall)
          put(_socket, 'gethostname', gethostname)
          put(_thread, 'interrupt_main', interrupt_main)
          put(_thread, 'get_native_id', get_native_id)
          # Builtins that run in one Java call, which a stopped run cannot interrupt (BuiltinBounds): their
          # arguments go to bounded(), in the host, which holds the originals, checks the bound and calls
          # them. Only ints reach it: range(v).stop converts v as the originals do (__index__, the same
          # TypeError), once, so what was checked is what is computed.
          originals = (math.factorial, math.comb, math.perm, sys.set_int_max_str_digits, ValueError, OverflowError,
                       TypeError)
          type_, int_, range_ = type, int, range

          def as_index(v):
              return v if type_(v) is int_ else range_(v).stop

          # The parameters as GraalPy's own name them (a missing one's TypeError says its name).
          def factorial(a, /):
              return bounded(0, as_index(a))

          def comb(a, b, /):
              return bounded(1, as_index(a), as_index(b))

          def perm(n, k=None):
              return bounded(2, as_index(n), None if k is None else as_index(k))

          def set_int_max_str_digits(maxdigits):
              return bounded(3, as_index(maxdigits))

          for module, name, f in ((math, 'factorial', factorial), (math, 'comb', comb), (math, 'perm', perm),
                                  (sys, 'set_int_max_str_digits', set_int_max_str_digits)):
              f.__doc__ = getattr(module, name).__doc__
              put(module, name, f)
          # Locale: GraalPy starts each context in the JVM's default locale (the host's); the run starts in C,
          # as CPython does, and setlocale(category, '') then answers C too.
          _locale.setlocale(_locale.LC_ALL, 'C')
          for name in ('socket', 'threading', 'platform'):
              m = sys.modules.get(name)
              if m is not None:
                  for attr, f in (('gethostname', gethostname), ('interrupt_main', interrupt_main),
                                  ('get_native_id', get_native_id)):
                      if attr in vars(m):
                          setattr(m, attr, f)
          # asyncio: its default loop wants socket.socketpair() for a self-pipe, which the sandbox denies.
          # When asyncio.unix_events is first imported, its default policy is replaced by one whose loop
          # needs no file descriptor: no guest has sockets, pipes or threads, so nothing but a timer can
          # wake it, and it sleeps (time.sleep: the run's wall time and cancellation stop it) until the next.
          monotonic = time.monotonic
          meta_path = sys.meta_path
          no_wake = ('asyncio: the event loop has nothing left to run and nothing to wait for: every task'
                     ' awaits something that nothing will complete (the sandbox has no sockets, pipes or'
                     ' threads that could wake it)')

          def sandbox_asyncio(unix_events):
              from asyncio import base_events, events

              class Selector:
                  def select(self, timeout=None):
                      if timeout is None:
                          raise RuntimeError(no_wake)
                      # In short steps: a cancelled or timed-out run stops between two of them.
                      end = monotonic() + timeout
                      left = timeout
                      while left > 0:
                          sleep(min(left, 0.05))
                          left = end - monotonic()
                      return []

                  def get_map(self):
                      return {}

                  def close(self):
                      return None

              class SandboxEventLoop(base_events.BaseEventLoop):
                  def __init__(self):
                      base_events.BaseEventLoop.__init__(self)
                      self._selector = Selector()

                  def _process_events(self, event_list):
                      return None

                  def _write_to_self(self):
                      return None

                  # asyncio.to_thread and run_in_executor(None, ...) are how Python awaits a blocking call
                  # (a tool): with no threads to run it on, it runs at once on the loop's own thread, and the
                  # future it gives is already done. A guest's own executor would need threads: refused.
                  def run_in_executor(self, executor, func, *args):
                      self._check_closed()
                      if executor is not None:
                          raise PermissionError('asyncio: run_in_executor with an executor needs threads, which'
                                                ' the sandbox does not give; pass None to run the call at once')
                      future = self.create_future()
                      try:
                          future.set_result(func(*args))
                      except (SystemExit, KeyboardInterrupt):
                          raise
                      except BaseException as e:
                          future.set_exception(e)
                      return future

                  def set_default_executor(self, executor):
                      raise PermissionError('asyncio: a default executor needs threads, which the sandbox does'
                                            ' not give')

              class SandboxEventLoopPolicy(events.BaseDefaultEventLoopPolicy):
                  _loop_factory = SandboxEventLoop

              for cls in (SandboxEventLoop, SandboxEventLoopPolicy):
                  cls.__module__ = 'asyncio.unix_events'
              unix_events.SelectorEventLoop = SandboxEventLoop
              unix_events.DefaultEventLoopPolicy = SandboxEventLoopPolicy

          # decimal: GraalPy's is _pydecimal, whose arithmetic at precision p makes ints of p digits in single
          # Java calls. Its Context refuses a precision above the sandbox's maximum, which MAX_PREC then names.
          # Guest code like the rest of the module: a guard against a program's own mistake, not a wall.
          max_prec = %d

          def sandbox_decimal(module):
              context_setattr = module.Context.__setattr__

              def __setattr__(self, name, value):
                  if name == 'prec' and isinstance(value, int_) and value > max_prec:
                      shown = str(value) if value < 10 ** 18 else 'an int of ' + str(value.bit_length()) + ' bits'
                      raise ValueError('decimal: precision ' + shown + " is above the sandbox's maximum of "
                                       + str(max_prec) + ' digits')
                  return context_setattr(self, name, value)

              __setattr__.__qualname__ = 'Context.__setattr__'
              __setattr__.__module__ = module.__name__
              module.Context.__setattr__ = __setattr__
              module.MAX_PREC = max_prec

          patches = {'asyncio.unix_events': sandbox_asyncio, '_pydecimal': sandbox_decimal}

          class SandboxImportHook:
              @staticmethod
              def find_spec(name, path=None, target=None):
                  patch = patches.get(name)
                  if patch is None:
                      return None
                  for finder in meta_path:
                      find = getattr(finder, 'find_spec', None)
                      if finder is SandboxImportHook or find is None:
                          continue
                      spec = find(name, path, target)
                      if spec is not None:
                          break
                  else:
                      return None
                  loader = spec.loader

                  class Loader:
                      def create_module(self, spec):
                          return loader.create_module(spec)

                      def exec_module(self, module):
                          loader.exec_module(module)
                          patch(module)

                  spec.loader = Loader()
                  return spec

          meta_path.insert(0, SandboxImportHook)
          del globals()['__sandbox_shield']
          return originals
      __sandbox_shield
      """.formatted(UID, PID, KERNEL_RELEASE, BuiltinBounds.MAX_DECIMAL_PRECISION), "sandbox-shield").internal(true).cached(false).buildLiteral();

  static final long PAUSE_MAX_MILLIS = 10;

  /**
   * Parks the calling guest thread for the given seconds, at most {@value #PAUSE_MAX_MILLIS} ms: the
   * shield's {@code time.sleep} calls it in a loop, so that a cancelled run stops between two calls.
   */
  private static final ProxyExecutable PAUSE = GuestFunction.named("pause", args -> {
    if (args.length == 1 && args[0].isNumber() && args[0].fitsInDouble()) {
      double seconds = args[0].asDouble();
      if (seconds > 0) {
        LockSupport.parkNanos((long) (Math.min(seconds * 1000, PAUSE_MAX_MILLIS) * 1_000_000));
      }
    }
    return null;
  });

  private ProcessShield() {}

  /** Replaces the functions in a fresh Python context; denials are reported to {@code sink}. */
  static void install(Context context, RunGuard guard) {
    EnforcementSink sink = guard;
    // Named (GuestFunction): str() of a function dug out of a closure must not show a host class.
    ProxyExecutable report = GuestFunction.named("report", args -> {
      // Only an index into a fixed table: a guest that digs this out of a closure can only record a denial.
      if (args.length == 1 && args[0].isNumber() && args[0].fitsInInt()) {
        int i = args[0].asInt();
        if (i >= 0 && i < DENIALS.size()) {
          Denial d = DENIALS.get(i);
          sink.denied(d.operation(), d.target(), Layer.PROCESS_SHIELD);
        }
      }
      return null;
    });
    // Only a number: the guest thread's CPU time in this run.
    ProxyExecutable cpu = GuestFunction.named("cpu", args -> guard.guestCpuNanos());
    PythonBuiltinBounds bounds = new PythonBuiltinBounds();
    Value install = context.eval(PYTHON);
    bounds.take(install.execute(report, PAUSE, cpu, GuestFunction.named("bounded", bounds)));
  }
}
