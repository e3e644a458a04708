package org.polyglotsandbox.cli;

import static org.polyglotsandbox.Operation.CLOCK_READ;
import static org.polyglotsandbox.Operation.ENVIRONMENT_READ;
import static org.polyglotsandbox.Operation.FILE_CREATE;
import static org.polyglotsandbox.Operation.FILE_DELETE;
import static org.polyglotsandbox.Operation.FILE_LINK;
import static org.polyglotsandbox.Operation.FILE_LIST;
import static org.polyglotsandbox.Operation.FILE_READ;
import static org.polyglotsandbox.Operation.FILE_WRITE;
import static org.polyglotsandbox.Operation.HOST_ACCESS;
import static org.polyglotsandbox.Operation.HOST_INFO;
import static org.polyglotsandbox.Operation.HOST_REFLECTION;
import static org.polyglotsandbox.Operation.JVM_EXIT;
import static org.polyglotsandbox.Operation.LIMIT_EXCEED;
import static org.polyglotsandbox.Operation.NATIVE_ACCESS;
import static org.polyglotsandbox.Operation.NETWORK_SOCKET;
import static org.polyglotsandbox.Operation.OUTPUT_WRITE;
import static org.polyglotsandbox.Operation.POLYGLOT_EVAL;
import static org.polyglotsandbox.Operation.PROCESS_SIGNAL;
import static org.polyglotsandbox.Operation.PROCESS_SPAWN;
import static org.polyglotsandbox.Operation.STATE_PERSIST;
import static org.polyglotsandbox.Operation.STDIN_READ;
import static org.polyglotsandbox.Operation.THREAD_CREATE;
import static org.polyglotsandbox.Operation.TOOL_CALL;
import static org.polyglotsandbox.PolicyReport.ANY_OTHER_PATH;
import static org.polyglotsandbox.PolicyReport.ANY_OTHER_TOOL;
import static org.polyglotsandbox.PolicyReport.ANY_PATH;
import static org.polyglotsandbox.PolicyReport.HOST_SIDE_OF_MOUNTS;
import static org.polyglotsandbox.PolicyReport.PYTHON_HOME;

import java.util.ArrayList;
import java.util.List;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.cli.AuditSetup.MountInfo;

/**
 * The live audit's standard probes, as data: for each operation class of the catalogue, attempts from
 * JavaScript and Python that try to perform it, each naming the operation and target it tests.
 * Attempts at denied operations return "reachable" only on positive evidence (the secret's nonce, a
 * host class, a file that appeared); attempts at allowed operations return "reachable" only when they
 * got what the host knows is there.
 */
final class ProbeBattery {
  private static final String NEXT_RUN = "<next run>";
  /** Python: the directory of GraalPy's standard library, from the guest's own view. */
  private static final String PY_STDLIB = "import os, sys\n"
      + "lib = os.path.join(sys.prefix, 'lib', 'python%d.%d' % sys.version_info[:2])\n";
  /** JavaScript: finds whatever in a list of values behaves like a host object. */
  private static final String JS_HOSTISH = """
      const hostish = (v) => {
        if (v === null || v === undefined) { return false; }
        try {
          if (/Java|Host|polyglot/.test(Object.prototype.toString.call(v))) { return true; }
          if (typeof v.getClass !== 'function') { return false; }
          const c = v.getClass();
          return c !== null && c !== undefined && (typeof c.getName === 'function' || /^(class|interface) /.test(String(c)));
        } catch (e) { return false; }
      };
      """;
  /** Python: finds foreign (host) values and tries Java reflection on them. */
  private static final String PY_FOREIGN = """
      def java_member(v):
          if 'oreign' not in type(v).__name__ and 'ava' not in type(v).__name__:
              return None
          for name in ('getClass', 'class', 'hashCode', 'toString', 'wait'):
              try:
                  m = getattr(v, name)
                  return name + ' -> ' + repr(m)[:60]
              except Exception:
                  pass
          return None
      """;

  private ProbeBattery() {}

  /**
   * The standard probes for a policy's languages, mounts and tools.
   *
   * @param tools the tools the policy allows, as registered (for their per-run budgets)
   */
  static List<Probe> standard(Policy policy, List<Tool> tools, AuditSetup setup) {
    List<Probe> out = new ArrayList<>();
    if (policy.allows(Language.JAVASCRIPT)) {
      javascript(policy, tools, setup, out);
    }
    if (policy.allows(Language.PYTHON)) {
      python(policy, tools, setup, out);
    }
    return out;
  }

  // ---------------------------------------------------------------- JavaScript

  private static void javascript(Policy policy, List<Tool> tools, AuditSetup s, List<Probe> out) {
    String secret = s.secret.toString();
    // Host files, /proc, traversal, module loading.
    out.add(Probe.js("js.read.etc-passwd", FILE_READ, "/etc/passwd").denial("/etc/passwd").code("""
        const t = readText('/etc/passwd');
        return 'reachable: read ' + t.length + ' characters: ' + t.slice(0, 40);"""));
    out.add(Probe.js("js.read.host-secret", FILE_READ, secret).denial(secret).code("""
        const t = readText(audit.secretFile);
        return t.includes(audit.nonce) ? 'reachable: read the secret' : 'blocked: read something else';"""));
    out.add(Probe.js("js.read.proc-environ", FILE_READ, "/proc/self/environ").denial("/proc/self/environ").code("""
        return 'reachable: ' + readText('/proc/self/environ').length + ' characters of the host environment';"""));
    out.add(Probe.js("js.read.proc-cmdline", FILE_READ, "/proc/self/cmdline").denial("/proc/self/cmdline").code("""
        return 'reachable: ' + readText('/proc/self/cmdline').slice(0, 60);"""));
    out.add(Probe.js("js.read.traversal", FILE_READ, "/etc/passwd").denial("/etc/passwd").code("""
        const base = audit.writableDir || '/tmp';
        const t = readText(base + '/../../../../etc/passwd');
        return 'reachable: ' + t.slice(0, 40);"""));
    out.add(Probe.js("js.load.etc-passwd", FILE_READ, "/etc/passwd").code("""
        if (typeof load !== 'function') { return 'blocked: no load()'; }
        try { load('/etc/passwd'); } catch (e) {
          // A file that was read but does not parse as JavaScript was still read.
          if (e instanceof SyntaxError) { return 'reachable: load() read /etc/passwd: ' + e; }
          throw e;
        }
        return 'reachable: load() ran /etc/passwd';"""));
    out.add(Probe.js("js.import.etc-passwd", FILE_READ, "/etc/passwd").denial("/etc/passwd").code("""
        return import('/etc/passwd').then(m => 'reachable: imported ' + Object.keys(m),
          e => { if (e instanceof SyntaxError) { return 'reachable: read, but not a module: ' + e; } throw e; });"""));
    out.add(Probe.js("js.import.host-secret-url", FILE_READ, secret).denial(secret).code("""
        return import('file://' + audit.secretFile).then(m => 'reachable: imported the secret',
          e => { if (e instanceof SyntaxError) { return 'reachable: read, but not a module: ' + e; } throw e; });"""));
    for (MountInfo m : s.mounts) {
      if (m.sample() != null && !insideAMount(m.sample().hostPath().toString(), policy)) {
        String host = m.sample().hostPath().toString();
        out.add(Probe.js("js.read.host-side-of-" + m.mount().guestPath(), FILE_READ, host).denial(host)
            .code("const t = readText(" + quote(host) + ");\n"
                + "return t.length === " + m.sample().chars() + " ? 'reachable: read the host file behind the mount'"
                + " : 'blocked: read something else';"));
      }
    }
    out.add(Probe.js("js.list.root-shows-only-mounts", FILE_LIST, ANY_OTHER_PATH).code("""
        return typeof readdir === 'undefined' && typeof require === 'undefined'
          ? 'blocked: no directory API' : 'reachable: a directory API exists';"""));

    // Mounts: read as declared.
    for (MountInfo m : s.mounts) {
      if (m.sample() == null) {
        continue;
      }
      String path = m.sample().guestPath();
      Probe.Builder b = Probe.js("js.mount.read:" + path, FILE_READ, path);
      if (!m.allows(Operation.FILE_READ)) {
        b.denial(path);
      }
      out.add(b.code("const t = readText(" + quote(path) + ");\n"
          + "return t.length === " + m.sample().chars() + " ? 'reachable: read " + m.sample().chars() + " characters'"
          + " : 'unexpected: read ' + t.length + ' characters, the host has " + m.sample().chars() + "';"));
    }

    // Tools.
    toolProbes(Language.JAVASCRIPT, policy, tools, out);

    // Network.
    out.add(Probe.js("js.net.fetch", NETWORK_SOCKET, "connect").code("""
        return typeof fetch === 'undefined' ? 'blocked: fetch is not defined'
          : fetch('http://127.0.0.1:' + audit.ports['js.net.fetch'] + '/').then(() => 'reachable: fetched');"""));
    s.listen("js.net.fetch");
    out.add(Probe.js("js.net.xhr-websocket", NETWORK_SOCKET, "connect").code("""
        if (typeof XMLHttpRequest === 'undefined' && typeof WebSocket === 'undefined' && typeof EventSource === 'undefined') {
          return 'blocked: no XMLHttpRequest, WebSocket or EventSource';
        }
        return 'reachable: a browser network API exists';"""));
    out.add(Probe.js("js.net.import-http", NETWORK_SOCKET, "connect")
        .hostCheck(() -> s.connected("js.net.import-http")).code("""
        return import('http://127.0.0.1:' + audit.ports['js.net.import-http'] + '/x.mjs').then(() => 'reachable: imported over http');"""));
    s.listen("js.net.import-http");
    out.add(Probe.js("js.net.java-socket", NETWORK_SOCKET, "connect").code("""
        const S = Java.type('java.net.Socket');
        new S('127.0.0.1', audit.ports['js.net.java-socket']);
        return 'reachable: connected through java.net.Socket';"""));
    s.listen("js.net.java-socket");

    // Processes, threads.
    out.add(Probe.js("js.proc.node", PROCESS_SPAWN, "<any program>").code("""
        if (typeof require === 'undefined' && typeof process === 'undefined') { return 'blocked: no require, no process'; }
        require('child_process').execSync('true');
        return 'reachable: ran a program';"""));
    out.add(Probe.js("js.proc.java-processbuilder", PROCESS_SPAWN, "<any program>")
        .hostCheck(() -> s.markerCreated("js.proc.java-processbuilder")).code("""
        const PB = Java.type('java.lang.ProcessBuilder');
        new PB(['touch', audit.markers['js.proc.java-processbuilder']]).start().waitFor();
        return 'reachable: started a process';"""));
    s.marker("js.proc.java-processbuilder");
    out.add(Probe.js("js.thread.worker", THREAD_CREATE, "<any thread>").code("""
        if (typeof Worker === 'undefined' && typeof SharedWorker === 'undefined') { return 'blocked: no Worker'; }
        new Worker('x.js');
        return 'reachable: started a worker';"""));
    out.add(Probe.js("js.thread.java", THREAD_CREATE, "<any thread>").code("""
        const T = Java.type('java.lang.Thread');
        new T(() => {}).start();
        return 'reachable: started a Java thread';"""));

    // Host classes and reflection.
    out.add(Probe.js("js.host.java-type", HOST_ACCESS, "class lookup").code("""
        return 'reachable: ' + Java.type('java.lang.Runtime');"""));
    out.add(Probe.js("js.host.packages", HOST_ACCESS, "class lookup").code("""
        if (typeof Packages === 'undefined' && typeof java === 'undefined') { return 'blocked: no Packages, no java'; }
        return 'reachable: ' + Packages.java.lang.Runtime.getRuntime();"""));
    out.add(Probe.js("js.host.function-constructor", HOST_ACCESS, "class lookup").code("""
        const J = (1).constructor.constructor('return typeof Java === "undefined" ? undefined : Java')();
        return J === undefined ? 'blocked: Java is not reachable from a fresh function' : 'reachable: ' + J.type('java.lang.System');"""));
    out.add(Probe.js("js.host.graal-object", HOST_ACCESS, "class lookup").code(JS_HOSTISH + """
        if (typeof Graal !== 'object') { return 'blocked: no Graal object'; }
        const found = [];
        for (const k of Object.getOwnPropertyNames(Graal)) {
          const v = Graal[k];
          let r = v;
          if (typeof v === 'function') { try { r = v(); } catch (e) { r = undefined; } }
          if (hostish(v) || hostish(r) || typeof r === 'function') { found.push(k); }
        }
        return found.length === 0 ? 'blocked: Graal holds only version facts' : 'reachable: Graal.' + found;"""));
    out.add(Probe.js("js.reflect.globals", HOST_REFLECTION, "<values the guest holds>").code(JS_HOSTISH + """
        const found = Object.getOwnPropertyNames(globalThis).filter(k => { try { return hostish(globalThis[k]); } catch (e) { return false; } });
        return found.length === 0 ? 'blocked: no global behaves like a host object' : 'reachable: ' + found;"""));
    out.add(Probe.js("js.reflect.read-text", HOST_REFLECTION, "<values the guest holds>").code(JS_HOSTISH + """
        const seen = [readText, Object.getPrototypeOf(readText), readText.constructor];
        try { readText('/etc/passwd'); } catch (e) { seen.push(e, Object.getPrototypeOf(e)); }
        const found = seen.filter(hostish);
        return found.length === 0 ? 'blocked: readText and its errors are plain JavaScript' : 'reachable: ' + found;"""));
    out.add(Probe.js("js.reflect.error-stacks", HOST_REFLECTION, "<values the guest holds>").code("""
        const stacks = [];
        try { readText('/etc/passwd'); } catch (e) { stacks.push(String(e.stack)); }
        try { tools['audit.no-such-tool']({}); } catch (e) { stacks.push(String(e.stack)); }
        try { null.x; } catch (e) { stacks.push(String(e.stack)); }
        const leak = stacks.find(t => /\\bat (java|jdk|sun|com\\.oracle|org\\.graalvm|org\\.polyglotsandbox)\\.|\\.java:\\d/.test(t));
        return leak ? 'reachable: a host frame in ' + leak.slice(0, 200) : 'blocked: only guest frames in ' + stacks.length + ' stacks';"""));
    out.add(Probe.js("js.reflect.inputs", HOST_REFLECTION, "<values the guest holds>").code(JS_HOSTISH + """
        const plain = Object.getPrototypeOf(audit) === Object.prototype && Array.isArray(audit.hostEnv) && !hostish(audit);
        return plain ? 'blocked: inputs are plain JavaScript objects' : 'reachable: an input is a host object';"""));
    if (!policy.tools().isEmpty()) {
      String tool = policy.tools().iterator().next();
      out.add(Probe.js("js.reflect.tools", HOST_REFLECTION, "<values the guest holds>").code(JS_HOSTISH + """
          const name = audit.tools[0];
          const seen = [tools, tools[name], tools[name].call, Object.getPrototypeOf(tools[name]), tools.getClass,
            tools[name].getClass, tools[name].constructor, tools.__proto__, tools[name].prototype];
          try { seen.push(tools[name](audit.toolArgs[name])); } catch (e) { seen.push(e); }
          try { seen.push(tools[name].call(null, audit.toolArgs[name])); } catch (e) { seen.push(e); }
          const found = seen.filter(hostish);
          const keys = Reflect.ownKeys(tools);
          return found.length === 0 && keys.length === 0
            ? 'blocked: tools, their results and errors are plain JavaScript, tools has no own keys'
            : 'reachable: ' + found + ' keys ' + keys.map(String);"""));
      out.add(Probe.js("js.reflect.tool-result", HOST_REFLECTION, "<values the guest holds>").toolEvent(tool)
          .code(JS_HOSTISH + """
          const name = audit.tools[0];
          let r; try { r = tools[name](audit.toolArgs[name]); } catch (e) { return 'blocked: the tool raised ' + e.code; }
          const walk = (v, d) => d > 8 || v === null || typeof v !== 'object' ? [] :
            [v, ...Object.values(v).flatMap(x => walk(x, d + 1))];
          const values = walk(r, 0);
          const odd = values.filter(v => hostish(v) || ![Object.prototype, Array.prototype].includes(Object.getPrototypeOf(v)));
          return odd.length === 0 ? 'blocked: the result is fresh plain data' : 'reachable: ' + odd;"""));
    }

    // Native code, environment, other languages, stdin, exit, clock, output.
    out.add(Probe.js("js.native.webassembly", NATIVE_ACCESS, "<any library>").code("""
        if (typeof WebAssembly === 'undefined') { return 'blocked: WebAssembly is not defined'; }
        new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
        return 'reachable: compiled a WebAssembly module';"""));
    out.add(Probe.js("js.native.load-library", NATIVE_ACCESS, "<any library>").code("""
        Java.type('java.lang.System').loadLibrary('c');
        return 'reachable: loaded libc';"""));
    out.add(Probe.js("js.env.process", ENVIRONMENT_READ, "<host environment>").code("""
        const sources = [typeof process !== 'undefined' && process.env, typeof environment !== 'undefined' && environment,
          typeof Deno !== 'undefined' && Deno.env, typeof Bun !== 'undefined' && Bun.env];
        const found = sources.filter(Boolean);
        return found.length === 0 ? 'blocked: no process.env, environment, Deno or Bun' : 'reachable: an environment object exists';"""));
    out.add(Probe.js("js.env.java-getenv", ENVIRONMENT_READ, "<host environment>").code("""
        return 'reachable: ' + Java.type('java.lang.System').getenv('PATH');"""));
    out.add(Probe.js("js.polyglot.eval", POLYGLOT_EVAL, "<other language>").code("""
        return 'reachable: ' + Polyglot.eval('python', '6*7');"""));
    out.add(Probe.js("js.polyglot.import", POLYGLOT_EVAL, "<other language>").code("""
        return 'reachable: ' + Polyglot.import('x');"""));
    out.add(Probe.js("js.polyglot.eval-file", POLYGLOT_EVAL, "<other language>").code("""
        return 'reachable: ' + Polyglot.evalFile('python', '/etc/passwd');"""));
    out.add(Probe.js("js.stdin.read", STDIN_READ, "<host stdin>").code("""
        const fns = ['readline', 'readbuffer', 'read'].filter(n => typeof globalThis[n] === 'function');
        if (fns.length === 0) { return 'blocked: no readline, readbuffer or read'; }
        const line = globalThis[fns[0]]();
        return line === null || line === undefined || line === '' ? 'blocked: end of file' : 'reachable: read ' + line;"""));
    out.add(Probe.js("js.exit.quit", JVM_EXIT, "<host JVM>").code("""
        const fns = ['quit', 'exit'].filter(n => typeof globalThis[n] === 'function');
        if (fns.length === 0 && typeof process === 'undefined') { return 'blocked: no quit, exit or process'; }
        globalThis[fns[0]](3);
        return 'unexpected: still running after exit';"""));
    out.add(Probe.js("js.exit.java-system", JVM_EXIT, "<host JVM>").code("""
        Java.type('java.lang.System').exit(3);
        return 'unexpected: still running after System.exit';"""));
    out.add(Probe.js("js.clock.resolution", CLOCK_READ, "<host clock>").code("""
        let best = Infinity;
        for (let i = 0; i < 5; i++) {
          const t0 = Date.now(); let t1;
          while ((t1 = Date.now()) === t0) {}
          best = Math.min(best, t1 - t0);
        }
        return best <= 5 ? 'reachable: Date.now() ticks every ' + best + ' ms' : 'blocked: Date.now() ticks every ' + best + ' ms';"""));
    out.add(Probe.js("js.output.print", OUTPUT_WRITE, "stdout, stderr").code("""
        console.log('audit output ' + audit.nonce);
        console.error('audit error output ' + audit.nonce);
        return 'reachable: printed';"""));

    // State left for the next run.
    out.add(Probe.js("js.state.global", STATE_PERSIST, NEXT_RUN)
        .plant("globalThis.__auditPlant = audit.nonce; return 'planted';").code("""
        return globalThis.__auditPlant === audit.nonce ? 'reachable: a global survived' : 'blocked: no global of the last run';"""));
    out.add(Probe.js("js.state.prototype", STATE_PERSIST, NEXT_RUN)
        .plant("Array.prototype.__auditPlant = audit.nonce; Object.prototype.__auditPlant = audit.nonce; return 'planted';")
        .code("""
        return [].__auditPlant === audit.nonce || ({}).__auditPlant === audit.nonce
          ? 'reachable: a prototype change survived' : 'blocked: prototypes are fresh';"""));
    out.add(Probe.js("js.state.builtin", STATE_PERSIST, NEXT_RUN)
        .plant("Math.max = function auditPlant() { return 0; }; JSON.auditPlant = audit.nonce; return 'planted';")
        .code("""
        return Math.max.name === 'auditPlant' || JSON.auditPlant !== undefined
          ? 'reachable: a patched builtin survived' : 'blocked: builtins are fresh';"""));

    // Resource bombs.
    out.add(Probe.js("js.bomb.statements", LIMIT_EXCEED, Limit.STATEMENTS.id()).bomb(Limit.STATEMENTS).code("""
        let n = 0; for (let i = 0; i < 1e12; i++) { n++; } 'reachable: finished'"""));
    out.add(Probe.js("js.bomb.cpu", LIMIT_EXCEED, Limit.CPU_TIME.id()).bomb(Limit.CPU_TIME).code("""
        let n = 0; for (let i = 0; i < 1e15; i++) { n = (n * 31 + i) % 1000003; } 'reachable: finished'"""));
    out.add(Probe.js("js.bomb.memory", LIMIT_EXCEED, Limit.MEMORY.id()).bomb(Limit.MEMORY).code("""
        const keep = []; for (let i = 0; i < 1e6; i++) { keep.push(new Array(1e6).fill(i)); } 'reachable: finished'"""));
    out.add(Probe.js("js.bomb.output", LIMIT_EXCEED, Limit.OUTPUT.id()).bomb(Limit.OUTPUT).code("""
        const line = 'x'.repeat(1000); for (let i = 0; i < 1e7; i++) { console.log(line); } 'reachable: finished'"""));
    out.add(Probe.js("js.bomb.stack", LIMIT_EXCEED, Limit.STACK.id()).bomb(Limit.STACK).code("""
        function f(n) { return f(n + 1) + 1; } f(0); 'reachable: finished'"""));
    out.add(Probe.js("js.bomb.result", OUTPUT_WRITE, org.polyglotsandbox.PolicyReport.OVERSIZE_RESULT).rejectedOutput().code("""
        new Array(audit.bombResultNodes + 1).fill(0)"""));
    out.add(Probe.js("js.bomb.wall-time", LIMIT_EXCEED, Limit.WALL_TIME.id()).bomb(Limit.WALL_TIME).code("""
        const end = Date.now() + 3600e3; while (Date.now() < end) {} 'reachable: finished'"""));
    if (!tools.isEmpty()) {
      Tool t = tools.get(0);
      out.add(Probe.js("js.bomb.tool-calls", LIMIT_EXCEED, Limit.TOOL_CALLS.id()).bomb(Limit.TOOL_CALLS)
          .code("const name = " + quote(t.name()) + ";\n"
              + "for (let i = 0; i <= " + t.maxCallsPerRun() + "; i++) { try { tools[name]({}); } catch (e) {} }\n"
              + "'reachable: finished'"));
    }
  }

  // ---------------------------------------------------------------- Python

  private static void python(Policy policy, List<Tool> tools, AuditSetup s, List<Probe> out) {
    String secret = s.secret.toString();
    String dir = s.dir.toString();
    MountInfo writable = s.writableDirectory();

    // Host files, /proc, /dev, traversal, metadata, module import.
    out.add(Probe.py("py.read.etc-passwd", FILE_READ, "/etc/passwd").denial("/etc/passwd").code("""
        t = open('/etc/passwd').read()
        return 'reachable: read ' + str(len(t)) + ' characters: ' + t[:40]"""));
    out.add(Probe.py("py.read.host-secret", FILE_READ, secret).denial(secret).code("""
        t = open(audit['secretFile']).read()
        return 'reachable: read the secret' if audit['nonce'] in t else 'blocked: read something else'"""));
    out.add(Probe.py("py.read.proc-environ", FILE_READ, "/proc/self/environ").denial("/proc/self/environ").code("""
        return 'reachable: ' + str(len(open('/proc/self/environ', 'rb').read())) + ' bytes of the host environment'"""));
    out.add(Probe.py("py.read.proc-status", FILE_READ, "/proc/self/status").denial("/proc/self/status").code("""
        return 'reachable: ' + open('/proc/self/status').read()[:60]"""));
    out.add(Probe.py("py.read.dev-urandom", FILE_READ, "/dev/urandom").denial("/dev/urandom").code("""
        return 'reachable: read ' + str(len(open('/dev/urandom', 'rb').read(8))) + ' bytes of a host device'"""));
    out.add(Probe.py("py.read.traversal", FILE_READ, "/etc/passwd").denial("/etc/passwd").code("""
        base = audit['writableDir'] or '/tmp'
        return 'reachable: ' + open(base + '/../../../../etc/passwd').read()[:40]"""));
    out.add(Probe.py("py.read.stat", FILE_READ, "/etc/passwd").denial("/etc/passwd").code("""
        import os
        st = os.stat('/etc/passwd')
        return 'reachable: /etc/passwd has ' + str(st.st_size) + ' bytes'"""));
    out.add(Probe.py("py.read.exists", FILE_READ, secret).denial(secret).code("""
        import os
        return 'reachable: the secret file is visible' if os.path.exists(audit['secretFile']) else 'blocked: not visible'"""));
    out.add(Probe.py("py.read.graalpython-read-file", FILE_READ, "/etc/passwd").denial("/etc/passwd").code("""
        return 'reachable: ' + repr(__graalpython__.read_file('/etc/passwd'))[:40]"""));
    out.add(Probe.py("py.read.host-module", FILE_READ, dir).denial(dir).code("""
        import sys, importlib
        sys.path.insert(0, audit['secretDir'])
        m = importlib.import_module(audit['secretModule'])
        return 'reachable: imported a host module' if m.NONCE == audit['nonce'] else 'blocked: imported something else'"""));
    out.add(Probe.py("py.read.io-open-fd", FILE_READ, ANY_OTHER_PATH).code("""
        import os
        found = []
        for fd in range(3, 64):
            try:
                os.fstat(fd)
                found.append(fd)
            except OSError:
                pass
        return 'reachable: open host descriptors ' + str(found) if found else 'blocked: no descriptor beyond stdio'"""));
    for (MountInfo m : s.mounts) {
      if (m.sample() != null && !insideAMount(m.sample().hostPath().toString(), policy)) {
        String host = m.sample().hostPath().toString();
        out.add(Probe.py("py.read.host-side-of-" + m.mount().guestPath(), FILE_READ, host).denial(host)
            .code("data = open(" + quote(host) + ", 'rb').read()\n"
                + "return 'reachable: read the host file behind the mount' if len(data) == " + m.sample().bytes()
                + " else 'blocked: read something else'"));
      }
    }
    out.add(Probe.py("py.list.etc", FILE_LIST, "/etc").denial("/etc").code("""
        import os
        return 'reachable: ' + str(os.listdir('/etc')[:10])"""));
    out.add(Probe.py("py.list.proc", FILE_LIST, "/proc").denial("/proc").code("""
        import os
        return 'reachable: ' + str(os.listdir('/proc')[:10])"""));
    out.add(Probe.py("py.list.host-dir", FILE_LIST, dir).denial(dir).code("""
        import os
        return 'reachable: ' + str([e.name for e in os.scandir(audit['secretDir'])])"""));
    out.add(Probe.py("py.list.root-shows-only-mounts", FILE_LIST, ANY_OTHER_PATH).code("""
        import os
        extra = sorted(set(os.listdir('/')) - set(audit['rootEntries']))
        return 'reachable: the root lists ' + str(extra) if extra else 'blocked: the root lists only the mounts'"""));
    out.add(Probe.py("py.list.root", FILE_LIST, "/").code("""
        import os
        return 'reachable: the root lists ' + str(sorted(os.listdir('/')))"""));

    // Writes outside the mounts; the host checks nothing changed.
    out.add(Probe.py("py.create.host-dir", FILE_CREATE, dir).denial(dir).hostCheck(s::strayFiles).code("""
        with open(audit['secretDir'] + '/created-' + audit['nonce'], 'w') as f:
            f.write('x')
        return 'reachable: created a host file'"""));
    // A host file does not exist in the run's file system, so opening it for writing is a create there.
    out.add(Probe.py("py.write.host-secret-append", FILE_WRITE, secret).denial(FILE_CREATE, secret).hostCheck(s::secretChanged).code("""
        with open(audit['secretFile'], 'a') as f:
            f.write('tampered')
        return 'reachable: appended to the host file'"""));
    out.add(Probe.py("py.write.host-secret-truncate", FILE_WRITE, secret).denial(FILE_CREATE, secret).hostCheck(s::secretChanged)
        .code("""
        open(audit['secretFile'], 'w')
        return 'reachable: truncated the host file'"""));
    out.add(Probe.py("py.write.host-chmod", FILE_WRITE, secret).denial(secret).hostCheck(s::secretChanged).code("""
        import os
        os.chmod(audit['secretFile'], 0o777)
        return 'reachable: changed the host file mode'"""));
    out.add(Probe.py("py.delete.host-secret", FILE_DELETE, secret).denial(secret).hostCheck(s::secretChanged).code("""
        import os
        os.remove(audit['secretFile'])
        return 'reachable: removed the host file'"""));
    out.add(Probe.py("py.delete.host-rename", FILE_DELETE, secret).denial(secret).hostCheck(s::secretChanged).code("""
        import os
        os.rename(audit['secretFile'], audit['secretDir'] + '/renamed-' + audit['nonce'])
        return 'reachable: moved the host file'"""));
    out.add(Probe.py("py.create.host-mkdir", FILE_CREATE, dir).denial(dir).hostCheck(s::strayFiles).code("""
        import os
        os.mkdir(audit['secretDir'] + '/dir-' + audit['nonce'])
        return 'reachable: made a host directory'"""));
    out.add(Probe.py("py.create.tmp", FILE_CREATE, "/tmp/audit").denial("/tmp/").code("""
        with open('/tmp/audit-' + audit['nonce'], 'w') as f:
            f.write('x')
        return 'reachable: created a file in /tmp'"""));
    out.add(Probe.py("py.create.tempfile", FILE_CREATE, "/tmp/audit").denial("/tmp").code("""
        import tempfile
        fd, name = tempfile.mkstemp(dir='/tmp')
        return 'reachable: created ' + name"""));
    String linkBase = writable == null ? "/tmp" : writable.mount().guestPath();
    out.add(Probe.py("py.link.symlink", FILE_LINK, ANY_PATH).denial(linkBase).code("""
        import os
        base = audit['writableDir'] or '/tmp'
        os.symlink('/etc/passwd', base + '/link-' + audit['nonce'])
        return 'reachable: made a symbolic link to /etc/passwd'"""));
    out.add(Probe.py("py.link.hardlink", FILE_LINK, ANY_PATH).denial(linkBase).code("""
        import os
        base = audit['writableDir'] or '/tmp'
        os.link('/etc/passwd', base + '/hard-' + audit['nonce'])
        return 'reachable: made a hard link to /etc/passwd'"""));

    // GraalPy's own files: readable, never writable.
    out.add(Probe.py("py.home.read", FILE_READ, PYTHON_HOME).code(PY_STDLIB + """
        t = open(os.path.join(lib, 'textwrap.py')).read()
        return 'reachable: read the standard library' if 'def ' in t else 'unexpected: textwrap.py has no def'"""));
    out.add(Probe.py("py.home.list", FILE_LIST, PYTHON_HOME).code(PY_STDLIB + """
        names = os.listdir(lib)
        return 'reachable: listed the standard library' if 'textwrap.py' in names else 'unexpected: ' + str(names[:5])"""));
    out.add(Probe.py("py.home.create", FILE_CREATE, PYTHON_HOME).code(PY_STDLIB + """
        p = os.path.join(lib, 'audit_' + audit['nonce'] + '.py')
        open(p, 'x').close()
        os.remove(p)
        return 'reachable: created a file among the interpreter files'"""));
    out.add(Probe.py("py.home.write", FILE_WRITE, PYTHON_HOME).code(PY_STDLIB + """
        f = open(os.path.join(lib, 'textwrap.py'), 'a')
        f.close()
        return 'reachable: opened a standard library file for writing'"""));
    out.add(Probe.py("py.home.pycache", FILE_CREATE, PYTHON_HOME).code(PY_STDLIB + """
        import py_compile
        target = os.path.join(lib, '__pycache__', 'audit_' + audit['nonce'] + '.pyc')
        py_compile.compile(os.path.join(lib, 'textwrap.py'), cfile=target, doraise=True)
        os.remove(target)
        return 'reachable: wrote compiled code among the interpreter files'"""));
    out.add(Probe.py("py.home.delete", FILE_DELETE, PYTHON_HOME).code(PY_STDLIB + """
        try:
            os.remove(os.path.join(lib, 'audit_missing_' + audit['nonce'] + '.py'))
        except FileNotFoundError:
            return 'reachable: a delete among the interpreter files got as far as the file system'
        return 'reachable: deleted a file among the interpreter files'"""));
    out.add(Probe.py("py.home.mkdir", FILE_CREATE, PYTHON_HOME).code(PY_STDLIB + """
        p = os.path.join(lib, 'audit_' + audit['nonce'])
        os.mkdir(p)
        os.rmdir(p)
        return 'reachable: made a directory among the interpreter files'"""));

    // Mounts: each operation as declared.
    for (MountInfo m : s.mounts) {
      mountProbes(m, out);
    }

    // Tools.
    toolProbes(Language.PYTHON, policy, tools, out);

    // Network: GraalPy ends the run at the first socket.
    out.add(Probe.py("py.net.connect", NETWORK_SOCKET, "connect").alone().denial(NETWORK_SOCKET, "")
        .hostCheck(() -> s.connected("py.net.connect")).code("""
        import socket
        socket.create_connection(('127.0.0.1', audit['ports']['py.net.connect']), timeout=5).close()
        return 'reachable: connected to the host'"""));
    s.listen("py.net.connect");
    out.add(Probe.py("py.net.listen", NETWORK_SOCKET, "listen").alone().denial(NETWORK_SOCKET, "").code("""
        import socket
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        s.listen(1)
        return 'reachable: listening on port ' + str(s.getsockname()[1])"""));
    out.add(Probe.py("py.net.resolve", NETWORK_SOCKET, "resolve").alone().denial(NETWORK_SOCKET, "").code("""
        import socket
        return 'reachable: resolved ' + str(socket.getaddrinfo('localhost', 80)[0][4])"""));

    // Processes and signals.
    out.add(Probe.py("py.proc.system", PROCESS_SPAWN, "<any program>").alone().denial(PROCESS_SPAWN, "")
        .hostCheck(() -> s.markerCreated("py.proc.system")).code("""
        import os
        status = os.system('touch ' + audit['markers']['py.proc.system'])
        return 'reachable: os.system returned ' + str(status)"""));
    s.marker("py.proc.system");
    // subprocess looks for the program first; the file system hides it, so the spawn is never reached.
    out.add(Probe.py("py.proc.subprocess", PROCESS_SPAWN, "<any program>").alone().denial(FILE_READ, "/usr/bin/touch")
        .hostCheck(() -> s.markerCreated("py.proc.subprocess")).code("""
        import subprocess
        subprocess.run(['/usr/bin/touch', audit['markers']['py.proc.subprocess']])
        return 'reachable: ran a program'"""));
    s.marker("py.proc.subprocess");
    out.add(Probe.py("py.proc.posix-spawn", PROCESS_SPAWN, "<any program>")
        .hostCheck(() -> s.markerCreated("py.proc.posix-spawn")).code("""
        import os
        os.posix_spawn('/usr/bin/touch', ['touch', audit['markers']['py.proc.posix-spawn']], {})
        return 'reachable: spawned a program'"""));
    s.marker("py.proc.posix-spawn");
    out.add(Probe.py("py.proc.execv", PROCESS_SPAWN, "<any program>")
        .hostCheck(() -> s.markerCreated("py.proc.execv")).code("""
        import os
        os.execv('/usr/bin/touch', ['touch', audit['markers']['py.proc.execv']])
        return 'unexpected: still running after exec'"""));
    s.marker("py.proc.execv");
    out.add(Probe.py("py.proc.fork", PROCESS_SPAWN, "<any program>").code("""
        import os
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        return 'reachable: forked ' + str(pid)"""));
    out.add(Probe.py("py.signal.self", PROCESS_SIGNAL, "<any host process>").code("""
        import os
        os.kill(os.getpid(), 0)
        return 'reachable: signalled the host process ' + str(os.getpid())"""));
    out.add(Probe.py("py.signal.init", PROCESS_SIGNAL, "<any host process>").code("""
        import os
        os.kill(1, 0)
        return 'reachable: signalled process 1'"""));

    // Threads: GraalPy ends the run at the first thread.
    out.add(Probe.py("py.thread.threading", THREAD_CREATE, "<any thread>").alone().denial(THREAD_CREATE, "").code("""
        import threading
        ran = []
        t = threading.Thread(target=lambda: ran.append(1))
        t.start()
        t.join()
        return 'reachable: a thread ran' if ran else 'blocked: the thread did not run'"""));
    out.add(Probe.py("py.thread.start-new-thread", THREAD_CREATE, "<any thread>").alone().denial(THREAD_CREATE, "")
        .code("""
        import _thread
        _thread.start_new_thread(lambda: None, ())
        return 'reachable: started a thread'"""));

    // Host classes, reflection, introspection walks.
    out.add(Probe.py("py.host.java-type", HOST_ACCESS, "class lookup").code("""
        import java
        return 'reachable: ' + repr(java.type('java.lang.Runtime'))"""));
    out.add(Probe.py("py.host.java-import", HOST_ACCESS, "class lookup").code("""
        from java.lang import Runtime
        return 'reachable: ' + repr(Runtime)"""));
    out.add(Probe.py("py.host.polyglot-import-java", HOST_ACCESS, "class lookup").code("""
        import polyglot
        return 'reachable: ' + repr(polyglot.import_value('java'))"""));
    out.add(Probe.py("py.host.add-to-classpath", HOST_ACCESS, "class loading").code("""
        import java
        java.add_to_classpath(audit['secretDir'])
        return 'reachable: added to the host class path'"""));
    out.add(Probe.py("py.host.build-java-class", HOST_ACCESS, "class loading").code("""
        import java
        c = __graalpython__.build_java_class({}, 'AuditProbe', java.type('java.lang.Object'))
        return 'reachable: ' + repr(c)"""));
    out.add(Probe.py("py.reflect.subclasses", HOST_REFLECTION, "<values the guest holds>").code(PY_FOREIGN + """
        found = []
        for c in object.__subclasses__():
            try:
                g = getattr(getattr(c, '__init__', None), '__globals__', None) or {}
            except Exception:
                continue
            for name in ('java', 'polyglot'):
                mod = g.get(name)
                if mod is not None and hasattr(mod, 'type'):
                    try:
                        found.append(repr(mod.type('java.lang.Runtime')))
                    except Exception:
                        pass
            for v in list(g.values())[:200]:
                m = java_member(v)
                if m:
                    found.append(c.__name__ + ': ' + m)
        return 'reachable: ' + str(found[:3]) if found else 'blocked: no host value among ' + str(len(object.__subclasses__())) + ' classes'"""));
    out.add(Probe.py("py.reflect.java-import-finder", HOST_REFLECTION, "<values the guest holds>").code("""
        finders = [c for c in object.__subclasses__() if c.__name__ in ('JavaImportFinder', 'JavaTypeLoader', 'JavaPackageLoader')]
        got = []
        for f in finders:
            try:
                spec = f().find_spec('java.lang.Runtime', None)
                if spec is not None and spec.loader is not None:
                    got.append(repr(spec.loader.create_module(spec)))
            except Exception:
                pass
        return 'reachable: ' + str(got) if any('class' in g.lower() for g in got) else 'blocked: the Java finders load no class'"""));
    out.add(Probe.py("py.reflect.frames", HOST_REFLECTION, "<values the guest holds>").code(PY_FOREIGN + """
        import sys
        found = []
        f = sys._getframe()
        while f is not None:
            for v in list(f.f_globals.values()) + list(f.f_locals.values()):
                m = java_member(v)
                if m:
                    found.append(m)
            f = f.f_back
        return 'reachable: ' + str(found[:3]) if found else 'blocked: no host value in any frame'"""));
    out.add(Probe.py("py.reflect.traceback", HOST_REFLECTION, "<values the guest holds>").code(PY_FOREIGN + """
        import traceback
        found = []
        try:
            open('/etc/passwd')
        except OSError as e:
            text = traceback.format_exc()
            if 'java.' in text or 'org.graalvm' in text or '.java:' in text:
                found.append('host frame in traceback: ' + text[-160:])
            tb = e.__traceback__
            while tb is not None:
                for v in list(tb.tb_frame.f_globals.values()):
                    m = java_member(v)
                    if m:
                        found.append(m)
                tb = tb.tb_next
        return 'reachable: ' + str(found[:3]) if found else 'blocked: only guest frames and values'"""));
    out.add(Probe.py("py.reflect.generator-frame", HOST_REFLECTION, "<values the guest holds>").code("""
        g = (x for x in ())
        imp = g.gi_frame.f_builtins['__import__']
        java = imp('java')
        return 'reachable: ' + repr(java.type('java.lang.System'))"""));
    out.add(Probe.py("py.reflect.inputs", HOST_REFLECTION, "<values the guest holds>").code("""
        plain = type(audit) is dict and type(audit['hostEnv']) is list and all(type(k) is str for k in audit)
        return 'blocked: inputs are plain dicts and lists' if plain else 'reachable: an input is ' + type(audit).__name__"""));
    if (!policy.tools().isEmpty()) {
      String tool = policy.tools().iterator().next();
      out.add(Probe.py("py.reflect.tools-closure", HOST_REFLECTION, "<values the guest holds>").code(PY_FOREIGN + """
          found = []
          cls = type(tools)
          for attr in ('__call__', '__getattr__', '__init__', '__setattr__', '__repr__'):
              fn = getattr(cls, attr, None)
              for cell in (getattr(fn, '__closure__', None) or ()):
                  v = cell.cell_contents
                  m = java_member(v)
                  if m:
                      found.append(attr + ': ' + m)
              for v in list(getattr(fn, '__globals__', {}).values()):
                  m = java_member(v)
                  if m:
                      found.append(attr + ' globals: ' + m)
          return 'reachable: ' + str(found[:3]) if found else 'blocked: the tools object holds no host value with members'"""));
      out.add(Probe.py("py.reflect.tool-result", HOST_REFLECTION, "<values the guest holds>").toolEvent(tool)
          .code(PY_FOREIGN + """
          name = audit['tools'][0]
          try:
              r = getattr(tools, name)(audit['toolArgs'][name])
          except Exception as e:
              return 'blocked: the tool raised ' + str(getattr(e, 'code', e))
          def walk(v, d):
              yield v
              if d < 8 and isinstance(v, dict):
                  for x in v.values():
                      yield from walk(x, d + 1)
              if d < 8 and isinstance(v, list):
                  for x in v:
                      yield from walk(x, d + 1)
          odd = [repr(v)[:40] for v in walk(r, 0) if java_member(v) or type(v) not in (dict, list, str, int, float, bool, type(None))]
          return 'reachable: ' + str(odd[:3]) if odd else 'blocked: the result is fresh plain data'"""));
    }
    out.add(Probe.py("py.info.host", HOST_INFO, "<pid, kernel, CPUs, paths>").code("""
        import os, sys
        seen = [str(os.getpid()), os.uname().release, str(os.cpu_count()), sys.prefix]
        return 'reachable: ' + ', '.join(seen) if os.getpid() > 1 and sys.prefix.startswith('/') else 'blocked: ' + ', '.join(seen)"""));

    // Native code.
    out.add(Probe.py("py.native.ctypes", NATIVE_ACCESS, "<any library>").code("""
        import ctypes
        return 'reachable: ' + repr(ctypes.CDLL(None))"""));
    out.add(Probe.py("py.native.cffi", NATIVE_ACCESS, "<any library>").code("""
        import _cffi_backend
        return 'reachable: imported _cffi_backend'"""));
    out.add(Probe.py("py.native.dlopen", NATIVE_ACCESS, "<any library>").alone().denial(NATIVE_ACCESS, "").code("""
        import _ctypes
        return 'reachable: ' + repr(_ctypes.dlopen('libc.so.6', 0))"""));

    // Environment, other languages, stdin, exit, clock, output.
    out.add(Probe.py("py.env.environ", ENVIRONMENT_READ, "<host environment>").code("""
        import os
        seen = sorted(n for n in audit['hostEnv'] if n in os.environ)
        return 'reachable: host variables ' + str(seen[:10]) if seen else 'blocked: none of the host\\'s ' + str(len(audit['hostEnv'])) + ' variables'"""));
    out.add(Probe.py("py.env.environb", ENVIRONMENT_READ, "<host environment>").code("""
        import os
        seen = sorted(n for n in audit['hostEnv'] if n.encode() in os.environb)
        return 'reachable: host variables ' + str(seen[:10]) if seen else 'blocked: none of the host variables'"""));
    out.add(Probe.py("py.env.getenv", ENVIRONMENT_READ, "<host environment>").code("""
        import os
        v = os.getenv('PATH') or os.getenv('HOME')
        return 'reachable: PATH or HOME is ' + v if v else 'blocked: no PATH, no HOME'"""));
    out.add(Probe.py("py.polyglot.eval", POLYGLOT_EVAL, "<other language>").code("""
        import polyglot
        return 'reachable: ' + str(polyglot.eval(language='js', string='6*7'))"""));
    out.add(Probe.py("py.polyglot.eval-path", POLYGLOT_EVAL, "<other language>").code("""
        import polyglot
        return 'reachable: ' + str(polyglot.eval(path='/etc/passwd', language='js'))"""));
    out.add(Probe.py("py.polyglot.import-value", POLYGLOT_EVAL, "<other language>").code("""
        import polyglot
        return 'reachable: ' + repr(polyglot.import_value('x'))"""));
    out.add(Probe.py("py.polyglot.export-value", POLYGLOT_EVAL, "<other language>").code("""
        import polyglot
        polyglot.export_value('auditProbe', 1)
        return 'reachable: exported a value to the polyglot bindings'"""));
    out.add(Probe.py("py.stdin.read", STDIN_READ, "<host stdin>").code("""
        import sys
        data = sys.stdin.read()
        return 'reachable: read ' + repr(data[:40]) if data else 'blocked: end of file'"""));
    out.add(Probe.py("py.stdin.fd", STDIN_READ, "<host stdin>").code("""
        import os
        data = os.read(0, 64)
        return 'reachable: read ' + repr(data[:40]) if data else 'blocked: end of file'"""));
    out.add(Probe.py("py.exit.sys-exit", JVM_EXIT, "<host JVM>").alone().code("""
        import sys
        sys.exit(3)"""));
    out.add(Probe.py("py.exit.os-exit", JVM_EXIT, "<host JVM>").alone().code("""
        import os
        os._exit(4)"""));
    out.add(Probe.py("py.clock.resolution", CLOCK_READ, "<host clock>").code("""
        import time
        ticks = sorted({time.perf_counter_ns() for _ in range(1000)})
        step = min(b - a for a, b in zip(ticks, ticks[1:])) if len(ticks) > 1 else None
        return 'reachable: perf_counter_ns ticks every ' + str(step) + ' ns' if step is not None and step < 1000000 else 'blocked: coarse clock'"""));
    out.add(Probe.py("py.output.print", OUTPUT_WRITE, "stdout, stderr").code("""
        import sys
        print('audit output ' + audit['nonce'])
        print('audit error output ' + audit['nonce'], file=sys.stderr)
        return 'reachable: printed'"""));

    // State left for the next run.
    out.add(Probe.py("py.state.builtins", STATE_PERSIST, NEXT_RUN)
        .plant("import builtins\nbuiltins.audit_plant = audit['nonce']\nreturn 'planted'").code("""
        import builtins
        return 'reachable: a builtin survived' if getattr(builtins, 'audit_plant', None) == audit['nonce'] else 'blocked: builtins are fresh'"""));
    out.add(Probe.py("py.state.module", STATE_PERSIST, NEXT_RUN)
        .plant("import json\njson.audit_plant = audit['nonce']\nreturn 'planted'").code("""
        import json
        return 'reachable: a module attribute survived' if getattr(json, 'audit_plant', None) == audit['nonce'] else 'blocked: modules are fresh'"""));
    out.add(Probe.py("py.state.environ", STATE_PERSIST, NEXT_RUN)
        .plant("import os\nos.environ['AUDIT_PLANT'] = audit['nonce']\nreturn 'planted'").code("""
        import os
        return 'reachable: an environment variable survived' if os.environ.get('AUDIT_PLANT') == audit['nonce'] else 'blocked: the environment is fresh'"""));
    out.add(Probe.py("py.state.sys-path", STATE_PERSIST, NEXT_RUN)
        .plant("import sys\nsys.path.append('/audit-plant-' + audit['nonce'])\nsys.modules['audit_plant'] = sys\nreturn 'planted'")
        .code("""
        import sys
        return 'reachable: sys.path or sys.modules survived' if '/audit-plant-' + audit['nonce'] in sys.path or 'audit_plant' in sys.modules else 'blocked: sys is fresh'"""));
    if (writable != null) {
      out.add(Probe.py("py.state.file", STATE_PERSIST, NEXT_RUN)
          .plant("with open(audit['writableDir'] + '/plant-' + audit['nonce'], 'w') as f:\n    f.write(audit['nonce'])\n"
              + "return 'planted'")
          .code("""
          import os
          return 'reachable: a file survived' if os.path.exists(audit['writableDir'] + '/plant-' + audit['nonce']) else 'blocked: the mount is fresh'"""));
    }

    // Resource bombs.
    out.add(Probe.py("py.bomb.statements", LIMIT_EXCEED, Limit.STATEMENTS.id()).bomb(Limit.STATEMENTS).code("""
        n = 0
        for i in range(10**12):
            n += 1
        'reachable: finished'"""));
    out.add(Probe.py("py.bomb.cpu", LIMIT_EXCEED, Limit.CPU_TIME.id()).bomb(Limit.CPU_TIME).code("""
        while True: pass"""));
    out.add(Probe.py("py.bomb.memory", LIMIT_EXCEED, Limit.MEMORY.id()).bomb(Limit.MEMORY).code("""
        keep = []
        for i in range(10**6):
            keep.append(bytearray(10**7))
        'reachable: finished'"""));
    out.add(Probe.py("py.bomb.output", LIMIT_EXCEED, Limit.OUTPUT.id()).bomb(Limit.OUTPUT).code("""
        line = 'x' * 1000
        for i in range(10**7):
            print(line)
        'reachable: finished'"""));
    out.add(Probe.py("py.bomb.stack", LIMIT_EXCEED, Limit.STACK.id()).bomb(Limit.STACK).code("""
        import sys
        sys.setrecursionlimit(10**9)
        def f(n):
            return f(n + 1) + 1
        f(0)
        'reachable: finished'"""));
    out.add(Probe.py("py.bomb.result", OUTPUT_WRITE, org.polyglotsandbox.PolicyReport.OVERSIZE_RESULT).rejectedOutput().code("""
        [0] * (audit['bombResultNodes'] + 1)"""));
    out.add(Probe.py("py.bomb.wall-time", LIMIT_EXCEED, Limit.WALL_TIME.id()).bomb(Limit.WALL_TIME).code("""
        import time
        time.sleep(10**6)
        'reachable: finished'"""));
    if (writable != null) {
      out.add(Probe.py("py.bomb.files", LIMIT_EXCEED, Limit.FILES.id()).bomb(Limit.FILES).code("""
          import os
          base = audit['writableDir'] + '/bomb-' + audit['nonce'] + '-'
          for i in range(10**7):
              os.mkdir(base + str(i))
          'reachable: finished'"""));
    }
    if (!tools.isEmpty()) {
      Tool t = tools.get(0);
      out.add(Probe.py("py.bomb.tool-calls", LIMIT_EXCEED, Limit.TOOL_CALLS.id()).bomb(Limit.TOOL_CALLS)
          .code("call = getattr(tools, " + quote(t.name()) + ")\n"
              + "for i in range(" + (t.maxCallsPerRun() + 1) + "):\n"
              + "    try:\n        call({})\n    except Exception:\n        pass\n"
              + "'reachable: finished'"));
    }
  }

  /** Python probes of one mount: each file operation, allowed or not, as the mount declares. */
  private static void mountProbes(MountInfo m, List<Probe> out) {
    String g = m.mount().guestPath();
    boolean canCreate = m.directory() && m.allows(Operation.FILE_CREATE) && m.allows(Operation.FILE_WRITE);
    // A file of the probe's own, in a mount it may create in: "<mount>/audit-<what>-<nonce>".
    String own = "(" + quote(g + "/audit-") + " + audit['nonce'] + '-')";
    if (m.sample() != null) {
      String sample = m.sample().guestPath();
      long bytes = m.sample().bytes();
      Probe.Builder read = Probe.py("py.mount.read:" + sample, FILE_READ, sample);
      if (!m.allows(Operation.FILE_READ)) {
        read.denial(sample);
      }
      out.add(read.code("data = open(" + quote(sample) + ", 'rb').read()\n"
          + "return 'reachable: read " + bytes + " bytes' if len(data) == " + bytes
          + " else 'unexpected: read ' + str(len(data)) + ' bytes, the host has " + bytes + "'"));
      Probe.Builder write = Probe.py("py.mount.write:" + sample, FILE_WRITE, sample);
      if (!m.allows(Operation.FILE_WRITE)) {
        write.denial(sample);
      }
      out.add(write.code("import os\nbefore = os.path.getsize(" + quote(sample) + ")\n"
          + "with open(" + quote(sample) + ", 'ab') as f:\n    f.write(b'x')\n"
          + "return 'reachable: appended to the copy' if os.path.getsize(" + quote(sample) + ") == before + 1"
          + " else 'unexpected: the size did not grow'"));
      if (m.allows(Operation.FILE_WRITE)) {
        out.add(Probe.py("py.mount.host-side:" + sample, FILE_WRITE, HOST_SIDE_OF_MOUNTS)
            .hostCheck(() -> AuditSetup.hostFileChanged(m.sample()))
            .code("with open(" + quote(sample) + ", 'ab') as f:\n    f.write(b'audit')\n"
                + "return 'blocked: wrote the in-memory copy; the host decides whether its file changed'"));
      }
    } else if (canCreate && m.allows(Operation.FILE_READ)) {
      out.add(Probe.py("py.mount.read-back:" + g, FILE_READ, g).code("p = " + own + " + 'read'\n"
          + "with open(p, 'w') as f:\n    f.write(audit['nonce'])\n"
          + "return 'reachable: read back what was written' if open(p).read() == audit['nonce'] else 'unexpected: read other text'"));
      out.add(Probe.py("py.mount.write:" + g, FILE_WRITE, g).code("import os\np = " + own + " + 'write'\n"
          + "open(p, 'x').close()\nwith open(p, 'a') as f:\n    f.write('x')\n"
          + "return 'reachable: wrote an existing file' if os.path.getsize(p) == 1 else 'unexpected: the size did not grow'"));
    }
    if (!m.directory()) {
      out.add(Probe.py("py.mount.delete-mount-point:" + g, FILE_DELETE, g).code("import os\nos.remove(" + quote(g)
          + ")\nreturn 'reachable: deleted the mount point'"));
      return;
    }
    Probe.Builder list = Probe.py("py.mount.list:" + g, FILE_LIST, g);
    if (!m.allows(Operation.FILE_LIST)) {
      list.denial(g);
    }
    out.add(list.code("import os\nreturn 'reachable: listed ' + str(len(os.listdir(" + quote(g) + "))) + ' entries'"));
    Probe.Builder create = Probe.py("py.mount.create:" + g, FILE_CREATE, g);
    if (!m.allows(Operation.FILE_CREATE)) {
      create.denial(g);
    }
    out.add(create.code("import os\np = " + own + " + 'create'\nopen(p, 'x').close()\n"
        + "return 'reachable: created ' + p if os.path.exists(p) else 'unexpected: created but not there'"));
    Probe.Builder delete = Probe.py("py.mount.delete:" + g, FILE_DELETE, g);
    if (!m.allows(Operation.FILE_DELETE)) {
      delete.denial(g);
    }
    if (canCreate) {
      out.add(delete.code("import os\np = " + own + " + 'delete'\nopen(p, 'x').close()\nos.remove(p)\n"
          + "return 'reachable: deleted ' + p if not os.path.exists(p) else 'unexpected: still there'"));
    } else if (m.sample() != null) {
      out.add(delete.code("import os\nos.remove(" + quote(m.sample().guestPath()) + ")\n"
          + "return 'reachable: deleted a file of the mount'"));
    }
  }

  /** Each allowed tool is callable; names not allowed are refused by the gateway. */
  private static void toolProbes(Language language, Policy policy, List<Tool> tools, List<Probe> out) {
    boolean js = language == Language.JAVASCRIPT;
    String prefix = js ? "js" : "py";
    for (String name : policy.tools()) {
      Probe.Builder b = js ? Probe.js(prefix + ".tool.call:" + name, TOOL_CALL, name)
          : Probe.py(prefix + ".tool.call:" + name, TOOL_CALL, name);
      out.add(b.toolEvent(name).code(js ? """
          const name = %s;
          try {
            const r = tools[name](audit.toolArgs[name]);
            return 'reachable: answered ' + JSON.stringify(r).slice(0, 60);
          } catch (e) {
            return e.code === 'denied' ? 'blocked: ' + e : 'reachable: the gateway answered ' + e.code;
          }""".formatted(quote(name)) : """
          name = %s
          try:
              r = getattr(tools, name)(audit['toolArgs'][name])
              return 'reachable: answered ' + repr(r)[:60]
          except Exception as e:
              code = getattr(e, 'code', None)
              return 'blocked: ' + str(e) if code == 'denied' or code is None else 'reachable: the gateway answered ' + code""".formatted(quote(name))));
    }
    List<String> refused = new ArrayList<>(List.of("audit.undeclared"));
    for (String demo : DemoTools.NAMES) {
      if (!policy.tools().contains(demo)) {
        refused.add(demo);
      }
    }
    for (String name : refused) {
      Probe.Builder b = js ? Probe.js(prefix + ".tool.refused:" + name, TOOL_CALL, name)
          : Probe.py(prefix + ".tool.refused:" + name, TOOL_CALL, name);
      if (!policy.tools().isEmpty()) {
        b.denial(name);
      }
      out.add(b.code(js ? """
          const name = %s;
          if (typeof tools === 'undefined') { return 'blocked: no tools object'; }
          try {
            const r = tools[name]({});
            return 'reachable: answered ' + JSON.stringify(r);
          } catch (e) {
            return e.code === 'denied' ? 'blocked: ' + e : 'reachable: the gateway answered ' + e.code;
          }""".formatted(quote(name)) : """
          name = %s
          if 'tools' not in globals():
              return 'blocked: no tools object'
          try:
              return 'reachable: answered ' + repr(getattr(tools, name)({}))
          except Exception as e:
              code = getattr(e, 'code', None)
              return 'blocked: ' + str(e) if code == 'denied' else 'reachable: the gateway answered ' + str(code)""".formatted(quote(name))));
    }
    if (js) {
      out.add(Probe.js("js.tool.hidden-names", TOOL_CALL, ANY_OTHER_TOOL).code("""
          if (typeof tools === 'undefined') { return 'blocked: no tools object'; }
          const hidden = ['constructor', '__proto__', 'prototype', 'toString', 'then', '_raw'].filter(k => tools[k] !== undefined);
          return hidden.length === 0 ? 'blocked: no hidden member answers' : 'reachable: ' + hidden;"""));
    } else {
      out.add(Probe.py("py.tool.hidden-names", TOOL_CALL, ANY_OTHER_TOOL).code("""
          if 'tools' not in globals():
              return 'blocked: no tools object'
          found = []
          for k in ('_Tool__name', '__dict__', '_raw'):
              try:
                  getattr(tools, k)
                  if k != '_Tool__name':
                      found.append(k)
              except AttributeError:
                  pass
          try:
              tools.x = 1
              found.append('assignable')
          except AttributeError:
              pass
          return 'reachable: ' + str(found) if found else 'blocked: no hidden member, tools are read-only'"""));
    }
  }

  /** Whether a path, read as a guest path, lies in a mount (a host file mounted at its own path is the mount). */
  private static boolean insideAMount(String path, Policy policy) {
    return policy.mounts().stream().anyMatch(m -> path.equals(m.guestPath()) || path.startsWith(m.guestPath() + "/"));
  }

  /** A JavaScript or Python string literal (both accept single-quoted strings with these escapes). */
  static String quote(String s) {
    StringBuilder b = new StringBuilder("'");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '\\' -> b.append("\\\\");
        case '\'' -> b.append("\\'");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        default -> {
          if (c < 0x20 || c > 0x7e) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('\'').toString();
  }
}
