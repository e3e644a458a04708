package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.FILE_READ;
import static org.polyglotsandbox.Operation.PROCESS_SIGNAL;
import static org.polyglotsandbox.Operation.PROCESS_SPAWN;

import java.util.List;

/**
 * Processes and signals: each way to start a program tries to create a host marker file, which the
 * host then looks for; signals go to the host process and to process 1. GraalPy ends the run at
 * {@code os.system}; {@code subprocess} looks for the program first and is refused by the file system.
 */
final class ProcessProbes {
  private static final String ANY_PROGRAM = "<any program>";
  private static final String ANY_HOST_PROCESS = "<any host process>";

  private ProcessProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    ProbeFixtures s = b.fixtures();
    out.add(Probe.js("js.proc.node", PROCESS_SPAWN, ANY_PROGRAM).code(JS_PROC_NODE));
    out.add(Probe.js("js.proc.java-processbuilder", PROCESS_SPAWN, ANY_PROGRAM)
        .hostCheck(() -> s.markerCreated("js.proc.java-processbuilder")).code(JS_PROC_JAVA_PROCESSBUILDER));
    s.marker("js.proc.java-processbuilder");
  }

  static void python(ProbeBattery b, List<Probe> out) {
    ProbeFixtures s = b.fixtures();
    out.add(Probe.py("py.proc.system", PROCESS_SPAWN, ANY_PROGRAM).alone().denial(PROCESS_SPAWN, "")
        .hostCheck(() -> s.markerCreated("py.proc.system")).code(PY_PROC_SYSTEM));
    s.marker("py.proc.system");
    // subprocess looks for the program first; the file system hides it, so the spawn is never reached.
    out.add(Probe.py("py.proc.subprocess", PROCESS_SPAWN, ANY_PROGRAM).alone().denial(FILE_READ, "/usr/bin/touch")
        .hostCheck(() -> s.markerCreated("py.proc.subprocess")).code(PY_PROC_SUBPROCESS));
    s.marker("py.proc.subprocess");
    out.add(Probe.py("py.proc.posix-spawn", PROCESS_SPAWN, ANY_PROGRAM)
        .hostCheck(() -> s.markerCreated("py.proc.posix-spawn")).code(PY_PROC_POSIX_SPAWN));
    s.marker("py.proc.posix-spawn");
    out.add(Probe.py("py.proc.execv", PROCESS_SPAWN, ANY_PROGRAM)
        .hostCheck(() -> s.markerCreated("py.proc.execv")).code(PY_PROC_EXECV));
    s.marker("py.proc.execv");
    out.add(Probe.py("py.proc.fork", PROCESS_SPAWN, ANY_PROGRAM).code(PY_PROC_FORK));
    out.add(Probe.py("py.signal.self", PROCESS_SIGNAL, ANY_HOST_PROCESS).code(PY_SIGNAL_SELF));
    out.add(Probe.py("py.signal.init", PROCESS_SIGNAL, ANY_HOST_PROCESS).code(PY_SIGNAL_INIT));
  }

  // ---- guest code

  static final String JS_PROC_NODE = """
      if (typeof require === 'undefined' && typeof process === 'undefined') { return 'blocked: no require, no process'; }
      require('child_process').execSync('true');
      return 'reachable: ran a program';""";

  static final String JS_PROC_JAVA_PROCESSBUILDER = """
      const PB = Java.type('java.lang.ProcessBuilder');
      new PB(['touch', audit.markers['js.proc.java-processbuilder']]).start().waitFor();
      return 'reachable: started a process';""";

  static final String PY_PROC_SYSTEM = """
      import os
      status = os.system('touch ' + audit['markers']['py.proc.system'])
      return 'reachable: os.system returned ' + str(status)""";

  static final String PY_PROC_SUBPROCESS = """
      import subprocess
      subprocess.run(['/usr/bin/touch', audit['markers']['py.proc.subprocess']])
      return 'reachable: ran a program'""";

  static final String PY_PROC_POSIX_SPAWN = """
      import os
      os.posix_spawn('/usr/bin/touch', ['touch', audit['markers']['py.proc.posix-spawn']], {})
      return 'reachable: spawned a program'""";

  static final String PY_PROC_EXECV = """
      import os
      os.execv('/usr/bin/touch', ['touch', audit['markers']['py.proc.execv']])
      return 'unexpected: still running after exec'""";

  static final String PY_PROC_FORK = """
      import os
      pid = os.fork()
      if pid == 0:
          os._exit(0)
      return 'reachable: forked ' + str(pid)""";

  static final String PY_SIGNAL_SELF = """
      import os
      os.kill(os.getpid(), 0)
      return 'reachable: signalled the host process ' + str(os.getpid())""";

  static final String PY_SIGNAL_INIT = """
      import os
      os.kill(1, 0)
      return 'reachable: signalled process 1'""";
}
