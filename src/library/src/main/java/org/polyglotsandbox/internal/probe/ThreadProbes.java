package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.THREAD_CREATE;

import java.util.List;

/** Threads: workers and Java threads in JavaScript; GraalPy ends the run at the first thread. */
final class ThreadProbes {
  private static final String ANY_THREAD = "<any thread>";

  private ThreadProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    out.add(Probe.js("js.thread.worker", THREAD_CREATE, ANY_THREAD).code(JS_THREAD_WORKER));
    out.add(Probe.js("js.thread.java", THREAD_CREATE, ANY_THREAD).code(JS_THREAD_JAVA));
  }

  static void python(ProbeBattery b, List<Probe> out) {
    out.add(Probe.py("py.thread.threading", THREAD_CREATE, ANY_THREAD).alone().denial(THREAD_CREATE, "")
        .code(PY_THREAD_THREADING));
    out.add(Probe.py("py.thread.start-new-thread", THREAD_CREATE, ANY_THREAD).alone().denial(THREAD_CREATE, "")
        .code(PY_THREAD_START_NEW_THREAD));
  }

  // ---- guest code

  static final String JS_THREAD_WORKER = """
      if (typeof Worker === 'undefined' && typeof SharedWorker === 'undefined') { return 'blocked: no Worker'; }
      new Worker('x.js');
      return 'reachable: started a worker';""";

  static final String JS_THREAD_JAVA = """
      const T = Java.type('java.lang.Thread');
      new T(() => {}).start();
      return 'reachable: started a Java thread';""";

  static final String PY_THREAD_THREADING = """
      import threading
      ran = []
      t = threading.Thread(target=lambda: ran.append(1))
      t.start()
      t.join()
      return 'reachable: a thread ran' if ran else 'blocked: the thread did not run'""";

  static final String PY_THREAD_START_NEW_THREAD = """
      import _thread
      _thread.start_new_thread(lambda: None, ())
      return 'reachable: started a thread'""";
}
