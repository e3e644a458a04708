package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.CLOCK_READ;
import static org.polyglotsandbox.Operation.ENVIRONMENT_READ;
import static org.polyglotsandbox.Operation.JVM_EXIT;
import static org.polyglotsandbox.Operation.OUTPUT_WRITE;
import static org.polyglotsandbox.Operation.POLYGLOT_EVAL;
import static org.polyglotsandbox.Operation.STDIN_READ;

import java.util.List;

/**
 * What the runtime around the guest offers: the host's environment variables, the other language,
 * stdin, exiting (the run ends, never the JVM), the clock and output (both allowed).
 */
final class EnvironmentProbes {
  private static final String HOST_ENVIRONMENT = "<host environment>";
  private static final String OTHER_LANGUAGE = "<other language>";
  private static final String HOST_STDIN = "<host stdin>";
  private static final String HOST_JVM = "<host JVM>";
  private static final String HOST_CLOCK = "<host clock>";
  private static final String STDOUT_STDERR = "stdout, stderr";

  private EnvironmentProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    out.add(Probe.js("js.env.process", ENVIRONMENT_READ, HOST_ENVIRONMENT).code(JS_ENV_PROCESS));
    out.add(Probe.js("js.env.java-getenv", ENVIRONMENT_READ, HOST_ENVIRONMENT).code(JS_ENV_JAVA_GETENV));
    out.add(Probe.js("js.polyglot.eval", POLYGLOT_EVAL, OTHER_LANGUAGE).code(JS_POLYGLOT_EVAL));
    out.add(Probe.js("js.polyglot.import", POLYGLOT_EVAL, OTHER_LANGUAGE).code(JS_POLYGLOT_IMPORT));
    out.add(Probe.js("js.polyglot.eval-file", POLYGLOT_EVAL, OTHER_LANGUAGE).code(JS_POLYGLOT_EVAL_FILE));
    out.add(Probe.js("js.stdin.read", STDIN_READ, HOST_STDIN).code(JS_STDIN_READ));
    out.add(Probe.js("js.exit.quit", JVM_EXIT, HOST_JVM).code(JS_EXIT_QUIT));
    out.add(Probe.js("js.exit.java-system", JVM_EXIT, HOST_JVM).code(JS_EXIT_JAVA_SYSTEM));
    out.add(Probe.js("js.clock.resolution", CLOCK_READ, HOST_CLOCK).code(JS_CLOCK_RESOLUTION));
    out.add(Probe.js("js.output.print", OUTPUT_WRITE, STDOUT_STDERR).code(JS_OUTPUT_PRINT));
  }

  static void python(ProbeBattery b, List<Probe> out) {
    out.add(Probe.py("py.env.environ", ENVIRONMENT_READ, HOST_ENVIRONMENT).code(PY_ENV_ENVIRON));
    out.add(Probe.py("py.env.environb", ENVIRONMENT_READ, HOST_ENVIRONMENT).code(PY_ENV_ENVIRONB));
    out.add(Probe.py("py.env.getenv", ENVIRONMENT_READ, HOST_ENVIRONMENT).code(PY_ENV_GETENV));
    out.add(Probe.py("py.polyglot.eval", POLYGLOT_EVAL, OTHER_LANGUAGE).code(PY_POLYGLOT_EVAL));
    out.add(Probe.py("py.polyglot.eval-path", POLYGLOT_EVAL, OTHER_LANGUAGE).code(PY_POLYGLOT_EVAL_PATH));
    out.add(Probe.py("py.polyglot.import-value", POLYGLOT_EVAL, OTHER_LANGUAGE).code(PY_POLYGLOT_IMPORT_VALUE));
    out.add(Probe.py("py.polyglot.export-value", POLYGLOT_EVAL, OTHER_LANGUAGE).code(PY_POLYGLOT_EXPORT_VALUE));
    out.add(Probe.py("py.stdin.read", STDIN_READ, HOST_STDIN).code(PY_STDIN_READ));
    out.add(Probe.py("py.stdin.fd", STDIN_READ, HOST_STDIN).code(PY_STDIN_FD));
    out.add(Probe.py("py.exit.sys-exit", JVM_EXIT, HOST_JVM).alone().code(PY_EXIT_SYS_EXIT));
    out.add(Probe.py("py.exit.os-exit", JVM_EXIT, HOST_JVM).alone().code(PY_EXIT_OS_EXIT));
    out.add(Probe.py("py.clock.resolution", CLOCK_READ, HOST_CLOCK).code(PY_CLOCK_RESOLUTION));
    out.add(Probe.py("py.output.print", OUTPUT_WRITE, STDOUT_STDERR).code(PY_OUTPUT_PRINT));
  }

  // ---- guest code

  static final String JS_ENV_PROCESS = """
      const sources = [typeof process !== 'undefined' && process.env, typeof environment !== 'undefined' && environment,
        typeof Deno !== 'undefined' && Deno.env, typeof Bun !== 'undefined' && Bun.env];
      const found = sources.filter(Boolean);
      return found.length === 0 ? 'blocked: no process.env, environment, Deno or Bun' : 'reachable: an environment object exists';""";

  static final String JS_ENV_JAVA_GETENV = """
      return 'reachable: ' + Java.type('java.lang.System').getenv('PATH');""";

  static final String JS_POLYGLOT_EVAL = """
      return 'reachable: ' + Polyglot.eval('python', '6*7');""";

  static final String JS_POLYGLOT_IMPORT = """
      return 'reachable: ' + Polyglot.import('x');""";

  static final String JS_POLYGLOT_EVAL_FILE = """
      return 'reachable: ' + Polyglot.evalFile('python', '/etc/passwd');""";

  static final String JS_STDIN_READ = """
      const fns = ['readline', 'readbuffer', 'read'].filter(n => typeof globalThis[n] === 'function');
      if (fns.length === 0) { return 'blocked: no readline, readbuffer or read'; }
      const line = globalThis[fns[0]]();
      return line === null || line === undefined || line === '' ? 'blocked: end of file' : 'reachable: read ' + line;""";

  static final String JS_EXIT_QUIT = """
      const fns = ['quit', 'exit'].filter(n => typeof globalThis[n] === 'function');
      if (fns.length === 0 && typeof process === 'undefined') { return 'blocked: no quit, exit or process'; }
      globalThis[fns[0]](3);
      return 'unexpected: still running after exit';""";

  static final String JS_EXIT_JAVA_SYSTEM = """
      Java.type('java.lang.System').exit(3);
      return 'unexpected: still running after System.exit';""";

  static final String JS_CLOCK_RESOLUTION = """
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const t0 = Date.now(); let t1;
        while ((t1 = Date.now()) === t0) {}
        best = Math.min(best, t1 - t0);
      }
      return best <= 5 ? 'reachable: Date.now() ticks every ' + best + ' ms' : 'blocked: Date.now() ticks every ' + best + ' ms';""";

  static final String JS_OUTPUT_PRINT = """
      console.log('audit output ' + audit.nonce);
      console.error('audit error output ' + audit.nonce);
      return 'reachable: printed';""";

  static final String PY_ENV_ENVIRON = """
      import os
      seen = sorted(n for n in audit['hostEnv'] if n in os.environ)
      return 'reachable: host variables ' + str(seen[:10]) if seen else 'blocked: none of the host\\'s ' + str(len(audit['hostEnv'])) + ' variables'""";

  static final String PY_ENV_ENVIRONB = """
      import os
      seen = sorted(n for n in audit['hostEnv'] if n.encode() in os.environb)
      return 'reachable: host variables ' + str(seen[:10]) if seen else 'blocked: none of the host variables'""";

  static final String PY_ENV_GETENV = """
      import os
      v = os.getenv('PATH') or os.getenv('HOME')
      return 'reachable: PATH or HOME is ' + v if v else 'blocked: no PATH, no HOME'""";

  static final String PY_POLYGLOT_EVAL = """
      import polyglot
      return 'reachable: ' + str(polyglot.eval(language='js', string='6*7'))""";

  static final String PY_POLYGLOT_EVAL_PATH = """
      import polyglot
      return 'reachable: ' + str(polyglot.eval(path='/etc/passwd', language='js'))""";

  static final String PY_POLYGLOT_IMPORT_VALUE = """
      import polyglot
      return 'reachable: ' + repr(polyglot.import_value('x'))""";

  static final String PY_POLYGLOT_EXPORT_VALUE = """
      import polyglot
      polyglot.export_value('auditProbe', 1)
      return 'reachable: exported a value to the polyglot bindings'""";

  static final String PY_STDIN_READ = """
      import sys
      data = sys.stdin.read()
      return 'reachable: read ' + repr(data[:40]) if data else 'blocked: end of file'""";

  static final String PY_STDIN_FD = """
      import os
      data = os.read(0, 64)
      return 'reachable: read ' + repr(data[:40]) if data else 'blocked: end of file'""";

  static final String PY_EXIT_SYS_EXIT = """
      import sys
      sys.exit(3)""";

  static final String PY_EXIT_OS_EXIT = """
      import os
      os._exit(4)""";

  static final String PY_CLOCK_RESOLUTION = """
      import time
      ticks = sorted({time.perf_counter_ns() for _ in range(1000)})
      step = min(b - a for a, b in zip(ticks, ticks[1:])) if len(ticks) > 1 else None
      return 'reachable: perf_counter_ns ticks every ' + str(step) + ' ns' if step is not None and step < 1000000 else 'blocked: coarse clock'""";

  static final String PY_OUTPUT_PRINT = """
      import sys
      print('audit output ' + audit['nonce'])
      print('audit error output ' + audit['nonce'], file=sys.stderr)
      return 'reachable: printed'""";
}
