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

/**
 * GraalPy's process-wide operations and host identity, replaced inside each Python context before any
 * guest code runs.
 *
 * <p>GraalPy's Java posix layer (the only one CONSTRAINED allows) implements {@code signal.signal}
 * with the JVM's own signal handlers, {@code signal.alarm} and {@code setitimer} with host threads that
 * raise real signals at the JVM, {@code signal.raise_signal} with a real signal (SIGTERM ends the JVM),
 * and {@code time.tzset} with {@code TimeZone.setDefault}; and it answers {@code os.getuid},
 * {@code os.getpid}, {@code os.uname}, {@code pwd} and {@code socket.gethostname} with the host's
 * values. No GraalPy option that would change this is accepted under CONSTRAINED, so this class
 * replaces those functions in the builtin modules themselves ({@code _signal}, {@code signal},
 * {@code posix}, {@code os}, {@code time}, {@code pwd}, {@code _socket}, {@code _thread}).
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
 *       original {@code sleep}.
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
      def __sandbox_shield(report, pause):
          # Only built-in modules: os and signal (and enum, re, ... behind them) cost a fresh context
          # hundreds of ms to import, so they are left to the guest. They copy the functions replaced below
          # from posix and _signal when they are imported, and are patched here only if already loaded.
          import sys, posix, _signal, time, pwd, _socket, _thread, _locale
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
          put(time, 'sleep', sleep)
          put(pwd, 'getpwuid', getpwuid)
          put(pwd, 'getpwnam', getpwnam)
          put(pwd, 'getpwall', getpwall)
          put(_socket, 'gethostname', gethostname)
          put(_thread, 'interrupt_main', interrupt_main)
          put(_thread, 'get_native_id', get_native_id)
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

          class AsyncioHook:
              @staticmethod
              def find_spec(name, path=None, target=None):
                  if name != 'asyncio.unix_events':
                      return None
                  for finder in meta_path:
                      find = getattr(finder, 'find_spec', None)
                      if finder is AsyncioHook or find is None:
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
                          sandbox_asyncio(module)

                  spec.loader = Loader()
                  return spec

          meta_path.insert(0, AsyncioHook)
          del globals()['__sandbox_shield']
      __sandbox_shield
      """.formatted(UID, PID, KERNEL_RELEASE), "sandbox-shield").internal(true).cached(false).buildLiteral();

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
  static void install(Context context, EnforcementSink sink) {
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
    Value install = context.eval(PYTHON);
    install.execute(report, PAUSE);
  }
}
