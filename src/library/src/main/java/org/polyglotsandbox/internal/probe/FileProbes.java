package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.FILE_CREATE;
import static org.polyglotsandbox.Operation.FILE_DELETE;
import static org.polyglotsandbox.Operation.FILE_LINK;
import static org.polyglotsandbox.Operation.FILE_LIST;
import static org.polyglotsandbox.Operation.FILE_READ;
import static org.polyglotsandbox.Operation.FILE_WRITE;
import static org.polyglotsandbox.PolicyReport.ANY_OTHER_PATH;
import static org.polyglotsandbox.PolicyReport.ANY_PATH;
import static org.polyglotsandbox.PolicyReport.PYTHON_HOME;
import static org.polyglotsandbox.internal.probe.ProbeBattery.quote;

import java.util.List;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.internal.probe.ProbeFixtures.MountInfo;

/**
 * Files and paths outside the mounts: host files, {@code /proc}, {@code /dev}, traversal, module
 * imports and loading, the host files behind the mounts, listing, writes, deletes and links outside
 * the mounts, and GraalPy's own files (readable, never writable).
 */
final class FileProbes {
  private FileProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    String secret = b.fixtures().secret.toString();
    out.add(Probe.js("js.read.etc-passwd", FILE_READ, "/etc/passwd").denial("/etc/passwd").code(JS_READ_ETC_PASSWD));
    out.add(Probe.js("js.read.host-secret", FILE_READ, secret).denial(secret).code(JS_READ_HOST_SECRET));
    out.add(Probe.js("js.read.proc-environ", FILE_READ, "/proc/self/environ").denial("/proc/self/environ")
        .code(JS_READ_PROC_ENVIRON));
    out.add(Probe.js("js.read.proc-cmdline", FILE_READ, "/proc/self/cmdline").denial("/proc/self/cmdline")
        .code(JS_READ_PROC_CMDLINE));
    out.add(Probe.js("js.read.traversal", FILE_READ, "/etc/passwd").denial("/etc/passwd").code(JS_READ_TRAVERSAL));
    out.add(Probe.js("js.load.etc-passwd", FILE_READ, "/etc/passwd").code(JS_LOAD_ETC_PASSWD));
    out.add(Probe.js("js.import.etc-passwd", FILE_READ, "/etc/passwd").denial("/etc/passwd")
        .code(JS_IMPORT_ETC_PASSWD));
    out.add(Probe.js("js.import.host-secret-url", FILE_READ, secret).denial(secret).code(JS_IMPORT_HOST_SECRET_URL));
    for (MountInfo m : hostSidesOfMounts(b)) {
      String host = m.sample().hostPath().toString();
      out.add(Probe.js("js.read.host-side-of-" + m.mount().guestPath(), FILE_READ, host).denial(host)
          .code(JS_READ_HOST_SIDE.formatted(quote(host), m.sample().chars())));
    }
    out.add(Probe.js("js.list.root-shows-only-mounts", FILE_LIST, ANY_OTHER_PATH).code(JS_LIST_ROOT_SHOWS_ONLY_MOUNTS));
    // GraalPy's home is Python's alone: JavaScript sees nothing at its virtual path or its host path.
    String hostHome = b.fixtures().hostPythonHomes.get(0).toString();
    out.add(Probe.js("js.read.python-home", FILE_READ, ANY_OTHER_PATH).denial(Policy.PYTHON_HOME_PATH)
        .code(JS_READ_PYTHON_HOME));
    out.add(Probe.js("js.read.python-home-host-path", FILE_READ, ANY_OTHER_PATH).denial(hostHome)
        .code(JS_READ_PYTHON_HOME_HOST_PATH));
  }

  static void python(ProbeBattery b, List<Probe> out) {
    pythonReads(b, out);
    pythonLists(b, out);
    pythonWrites(b, out);
    pythonHome(out);
    // The host's path of the home names nothing in the run: the guest sees only the virtual home.
    String hostHome = b.fixtures().hostPythonHomes.get(0).toString();
    out.add(Probe.py("py.read.home-by-host-path", FILE_READ, ANY_OTHER_PATH).denial(hostHome)
        .code(PY_READ_HOME_BY_HOST_PATH));
    out.add(Probe.py("py.list.home-by-host-path", FILE_LIST, ANY_OTHER_PATH).denial(hostHome)
        .code(PY_LIST_HOME_BY_HOST_PATH));
  }

  private static void pythonReads(ProbeBattery b, List<Probe> out) {
    String secret = b.fixtures().secret.toString();
    String dir = b.fixtures().dir.toString();
    out.add(Probe.py("py.read.etc-passwd", FILE_READ, "/etc/passwd").denial("/etc/passwd").code(PY_READ_ETC_PASSWD));
    out.add(Probe.py("py.read.host-secret", FILE_READ, secret).denial(secret).code(PY_READ_HOST_SECRET));
    out.add(Probe.py("py.read.proc-environ", FILE_READ, "/proc/self/environ").denial("/proc/self/environ")
        .code(PY_READ_PROC_ENVIRON));
    out.add(Probe.py("py.read.proc-status", FILE_READ, "/proc/self/status").denial("/proc/self/status")
        .code(PY_READ_PROC_STATUS));
    out.add(Probe.py("py.read.dev-urandom", FILE_READ, "/dev/urandom").denial("/dev/urandom")
        .code(PY_READ_DEV_URANDOM));
    out.add(Probe.py("py.read.traversal", FILE_READ, "/etc/passwd").denial("/etc/passwd").code(PY_READ_TRAVERSAL));
    out.add(Probe.py("py.read.stat", FILE_READ, "/etc/passwd").denial("/etc/passwd").code(PY_READ_STAT));
    out.add(Probe.py("py.read.exists", FILE_READ, secret).denial(secret).code(PY_READ_EXISTS));
    out.add(Probe.py("py.read.graalpython-read-file", FILE_READ, "/etc/passwd").denial("/etc/passwd")
        .code(PY_READ_GRAALPYTHON_READ_FILE));
    out.add(Probe.py("py.read.host-module", FILE_READ, dir).denial(dir).code(PY_READ_HOST_MODULE));
    out.add(Probe.py("py.read.io-open-fd", FILE_READ, ANY_OTHER_PATH).code(PY_READ_IO_OPEN_FD));
    for (MountInfo m : hostSidesOfMounts(b)) {
      String host = m.sample().hostPath().toString();
      out.add(Probe.py("py.read.host-side-of-" + m.mount().guestPath(), FILE_READ, host).denial(host)
          .code(PY_READ_HOST_SIDE.formatted(quote(host), m.sample().bytes())));
    }
  }

  private static void pythonLists(ProbeBattery b, List<Probe> out) {
    String dir = b.fixtures().dir.toString();
    out.add(Probe.py("py.list.etc", FILE_LIST, "/etc").denial("/etc").code(PY_LIST_ETC));
    out.add(Probe.py("py.list.proc", FILE_LIST, "/proc").denial("/proc").code(PY_LIST_PROC));
    out.add(Probe.py("py.list.host-dir", FILE_LIST, dir).denial(dir).code(PY_LIST_HOST_DIR));
    out.add(Probe.py("py.list.root-shows-only-mounts", FILE_LIST, ANY_OTHER_PATH).code(PY_LIST_ROOT_SHOWS_ONLY_MOUNTS));
    out.add(Probe.py("py.list.root", FILE_LIST, "/").code(PY_LIST_ROOT));
  }

  /** Writes outside the mounts; the host checks nothing changed. */
  private static void pythonWrites(ProbeBattery b, List<Probe> out) {
    ProbeFixtures s = b.fixtures();
    String secret = s.secret.toString();
    String dir = s.dir.toString();
    out.add(Probe.py("py.create.host-dir", FILE_CREATE, dir).denial(dir).hostCheck(s::strayFiles)
        .code(PY_CREATE_HOST_DIR));
    // A host file does not exist in the run's file system, so opening it for writing is a create there.
    out.add(Probe.py("py.write.host-secret-append", FILE_WRITE, secret).denial(FILE_CREATE, secret)
        .hostCheck(s::secretChanged).code(PY_WRITE_HOST_SECRET_APPEND));
    out.add(Probe.py("py.write.host-secret-truncate", FILE_WRITE, secret).denial(FILE_CREATE, secret)
        .hostCheck(s::secretChanged).code(PY_WRITE_HOST_SECRET_TRUNCATE));
    out.add(Probe.py("py.write.host-chmod", FILE_WRITE, secret).denial(secret).hostCheck(s::secretChanged)
        .code(PY_WRITE_HOST_CHMOD));
    out.add(Probe.py("py.delete.host-secret", FILE_DELETE, secret).denial(secret).hostCheck(s::secretChanged)
        .code(PY_DELETE_HOST_SECRET));
    out.add(Probe.py("py.delete.host-rename", FILE_DELETE, secret).denial(secret).hostCheck(s::secretChanged)
        .code(PY_DELETE_HOST_RENAME));
    out.add(Probe.py("py.create.host-mkdir", FILE_CREATE, dir).denial(dir).hostCheck(s::strayFiles)
        .code(PY_CREATE_HOST_MKDIR));
    out.add(Probe.py("py.create.tmp", FILE_CREATE, "/tmp/audit").denial("/tmp/").code(PY_CREATE_TMP));
    out.add(Probe.py("py.create.tempfile", FILE_CREATE, "/tmp/audit").denial("/tmp").code(PY_CREATE_TEMPFILE));
    MountInfo writable = s.writableDirectory();
    String linkBase = writable == null ? "/tmp" : writable.mount().guestPath();
    out.add(Probe.py("py.link.symlink", FILE_LINK, ANY_PATH).denial(linkBase).code(PY_LINK_SYMLINK));
    out.add(Probe.py("py.link.hardlink", FILE_LINK, ANY_PATH).denial(linkBase).code(PY_LINK_HARDLINK));
  }

  /** GraalPy's own files: readable, never writable. */
  private static void pythonHome(List<Probe> out) {
    out.add(Probe.py("py.home.read", FILE_READ, PYTHON_HOME).code(PY_HOME_READ));
    out.add(Probe.py("py.home.list", FILE_LIST, PYTHON_HOME).code(PY_HOME_LIST));
    out.add(Probe.py("py.home.create", FILE_CREATE, PYTHON_HOME).code(PY_HOME_CREATE));
    out.add(Probe.py("py.home.write", FILE_WRITE, PYTHON_HOME).code(PY_HOME_WRITE));
    out.add(Probe.py("py.home.pycache", FILE_CREATE, PYTHON_HOME).code(PY_HOME_PYCACHE));
    out.add(Probe.py("py.home.delete", FILE_DELETE, PYTHON_HOME).code(PY_HOME_DELETE));
    out.add(Probe.py("py.home.mkdir", FILE_CREATE, PYTHON_HOME).code(PY_HOME_MKDIR));
  }

  /** The mounts whose sample's host file lies outside every mount: reading it on the host side must fail. */
  private static List<MountInfo> hostSidesOfMounts(ProbeBattery b) {
    return b.fixtures().mounts.stream().filter(m -> m.sample() != null
        // Read as a guest path, a host file mounted at its own path is inside the mount.
        && b.policy().mountFor(m.sample().hostPath().toString()).isEmpty()).toList();
  }

  // ---- guest code: JavaScript

  static final String JS_READ_ETC_PASSWD = """
      const t = readText('/etc/passwd');
      return 'reachable: read ' + t.length + ' characters: ' + t.slice(0, 40);""";

  static final String JS_READ_HOST_SECRET = """
      const t = readText(audit.secretFile);
      return t.includes(audit.nonce) ? 'reachable: read the secret' : 'blocked: read something else';""";

  static final String JS_READ_PROC_ENVIRON = """
      return 'reachable: ' + readText('/proc/self/environ').length + ' characters of the host environment';""";

  static final String JS_READ_PROC_CMDLINE = """
      return 'reachable: ' + readText('/proc/self/cmdline').slice(0, 60);""";

  static final String JS_READ_TRAVERSAL = """
      const base = audit.writableDir || '/tmp';
      const t = readText(base + '/../../../../etc/passwd');
      return 'reachable: ' + t.slice(0, 40);""";

  static final String JS_LOAD_ETC_PASSWD = """
      if (typeof load !== 'function') { return 'blocked: no load()'; }
      try { load('/etc/passwd'); } catch (e) {
        // A file that was read but does not parse as JavaScript was still read.
        if (e instanceof SyntaxError) { return 'reachable: load() read /etc/passwd: ' + e; }
        throw e;
      }
      return 'reachable: load() ran /etc/passwd';""";

  static final String JS_IMPORT_ETC_PASSWD = """
      return import('/etc/passwd').then(m => 'reachable: imported ' + Object.keys(m),
        e => { if (e instanceof SyntaxError) { return 'reachable: read, but not a module: ' + e; } throw e; });""";

  static final String JS_IMPORT_HOST_SECRET_URL = """
      return import('file://' + audit.secretFile).then(m => 'reachable: imported the secret',
        e => { if (e instanceof SyntaxError) { return 'reachable: read, but not a module: ' + e; } throw e; });""";

  /** Arguments: the host path of a mount's sample, quoted; its length in characters. */
  static final String JS_READ_HOST_SIDE = """
      const t = readText(%s);
      return t.length === %d ? 'reachable: read the host file behind the mount' : 'blocked: read something else';""";

  static final String JS_LIST_ROOT_SHOWS_ONLY_MOUNTS = """
      return typeof readdir === 'undefined' && typeof require === 'undefined'
        ? 'blocked: no directory API' : 'reachable: a directory API exists';""";

  // ---- guest code: Python

  static final String PY_READ_ETC_PASSWD = """
      t = open('/etc/passwd').read()
      return 'reachable: read ' + str(len(t)) + ' characters: ' + t[:40]""";

  static final String PY_READ_HOST_SECRET = """
      t = open(audit['secretFile']).read()
      return 'reachable: read the secret' if audit['nonce'] in t else 'blocked: read something else'""";

  static final String PY_READ_PROC_ENVIRON = """
      return 'reachable: ' + str(len(open('/proc/self/environ', 'rb').read())) + ' bytes of the host environment'""";

  static final String PY_READ_PROC_STATUS = """
      return 'reachable: ' + open('/proc/self/status').read()[:60]""";

  static final String PY_READ_DEV_URANDOM = """
      return 'reachable: read ' + str(len(open('/dev/urandom', 'rb').read(8))) + ' bytes of a host device'""";

  static final String PY_READ_TRAVERSAL = """
      base = audit['writableDir'] or '/tmp'
      return 'reachable: ' + open(base + '/../../../../etc/passwd').read()[:40]""";

  static final String PY_READ_STAT = """
      import os
      st = os.stat('/etc/passwd')
      return 'reachable: /etc/passwd has ' + str(st.st_size) + ' bytes'""";

  static final String PY_READ_EXISTS = """
      import os
      return 'reachable: the secret file is visible' if os.path.exists(audit['secretFile']) else 'blocked: not visible'""";

  static final String PY_READ_GRAALPYTHON_READ_FILE = """
      return 'reachable: ' + repr(__graalpython__.read_file('/etc/passwd'))[:40]""";

  static final String PY_READ_HOST_MODULE = """
      import sys, importlib
      sys.path.insert(0, audit['secretDir'])
      m = importlib.import_module(audit['secretModule'])
      return 'reachable: imported a host module' if m.NONCE == audit['nonce'] else 'blocked: imported something else'""";

  static final String PY_READ_IO_OPEN_FD = """
      import os
      found = []
      for fd in range(3, 64):
          try:
              os.fstat(fd)
              found.append(fd)
          except OSError:
              pass
      return 'reachable: open host descriptors ' + str(found) if found else 'blocked: no descriptor beyond stdio'""";

  /** Arguments: the host path of a mount's sample, quoted; its length in bytes. */
  static final String PY_READ_HOST_SIDE = """
      data = open(%s, 'rb').read()
      return 'reachable: read the host file behind the mount' if len(data) == %d else 'blocked: read something else'""";

  static final String PY_LIST_ETC = """
      import os
      return 'reachable: ' + str(os.listdir('/etc')[:10])""";

  static final String PY_LIST_PROC = """
      import os
      return 'reachable: ' + str(os.listdir('/proc')[:10])""";

  static final String PY_LIST_HOST_DIR = """
      import os
      return 'reachable: ' + str([e.name for e in os.scandir(audit['secretDir'])])""";

  static final String PY_LIST_ROOT_SHOWS_ONLY_MOUNTS = """
      import os
      extra = sorted(set(os.listdir('/')) - set(audit['rootEntries']))
      return 'reachable: the root lists ' + str(extra) if extra else 'blocked: the root lists only the mounts'""";

  static final String PY_LIST_ROOT = """
      import os
      return 'reachable: the root lists ' + str(sorted(os.listdir('/')))""";

  static final String PY_CREATE_HOST_DIR = """
      with open(audit['secretDir'] + '/created-' + audit['nonce'], 'w') as f:
          f.write('x')
      return 'reachable: created a host file'""";

  static final String PY_WRITE_HOST_SECRET_APPEND = """
      with open(audit['secretFile'], 'a') as f:
          f.write('tampered')
      return 'reachable: appended to the host file'""";

  static final String PY_WRITE_HOST_SECRET_TRUNCATE = """
      open(audit['secretFile'], 'w')
      return 'reachable: truncated the host file'""";

  static final String PY_WRITE_HOST_CHMOD = """
      import os
      os.chmod(audit['secretFile'], 0o777)
      return 'reachable: changed the host file mode'""";

  static final String PY_DELETE_HOST_SECRET = """
      import os
      os.remove(audit['secretFile'])
      return 'reachable: removed the host file'""";

  static final String PY_DELETE_HOST_RENAME = """
      import os
      os.rename(audit['secretFile'], audit['secretDir'] + '/renamed-' + audit['nonce'])
      return 'reachable: moved the host file'""";

  static final String PY_CREATE_HOST_MKDIR = """
      import os
      os.mkdir(audit['secretDir'] + '/dir-' + audit['nonce'])
      return 'reachable: made a host directory'""";

  static final String PY_CREATE_TMP = """
      with open('/tmp/audit-' + audit['nonce'], 'w') as f:
          f.write('x')
      return 'reachable: created a file in /tmp'""";

  static final String PY_CREATE_TEMPFILE = """
      import tempfile
      fd, name = tempfile.mkstemp(dir='/tmp')
      return 'reachable: created ' + name""";

  static final String PY_LINK_SYMLINK = """
      import os
      base = audit['writableDir'] or '/tmp'
      os.symlink('/etc/passwd', base + '/link-' + audit['nonce'])
      return 'reachable: made a symbolic link to /etc/passwd'""";

  static final String PY_LINK_HARDLINK = """
      import os
      base = audit['writableDir'] or '/tmp'
      os.link('/etc/passwd', base + '/hard-' + audit['nonce'])
      return 'reachable: made a hard link to /etc/passwd'""";

  static final String JS_READ_PYTHON_HOME = """
      const t = readText(audit.virtualHome + '/lib/python3.12/json/__init__.py');
      return "reachable: read GraalPy's standard library: " + t.length + ' characters';""";

  static final String JS_READ_PYTHON_HOME_HOST_PATH = """
      const t = readText(audit.hostHome[0] + '/lib/python3.12/json/__init__.py');
      return "reachable: read GraalPy's home by its host path: " + t.length + ' characters';""";

  static final String PY_READ_HOME_BY_HOST_PATH = """
      t = open(audit['hostHome'][0] + '/lib/python3.12/json/__init__.py').read()
      return "reachable: read GraalPy's home by its host path: %d characters" % len(t)""";

  static final String PY_LIST_HOME_BY_HOST_PATH = """
      import os
      return "reachable: listed GraalPy's home by its host path: " + str(os.listdir(audit['hostHome'][0])[:5])""";

  /** Python: the directory of GraalPy's standard library, from the guest's own view. */
  private static final String PY_STDLIB = "import os, sys\n"
      + "lib = os.path.join(sys.prefix, 'lib', 'python%d.%d' % sys.version_info[:2])\n";

  static final String PY_HOME_READ = PY_STDLIB + """
      t = open(os.path.join(lib, 'textwrap.py')).read()
      return 'reachable: read the standard library' if 'def ' in t else 'unexpected: textwrap.py has no def'""";

  static final String PY_HOME_LIST = PY_STDLIB + """
      names = os.listdir(lib)
      return 'reachable: listed the standard library' if 'textwrap.py' in names else 'unexpected: ' + str(names[:5])""";

  static final String PY_HOME_CREATE = PY_STDLIB + """
      p = os.path.join(lib, 'audit_' + audit['nonce'] + '.py')
      open(p, 'x').close()
      os.remove(p)
      return 'reachable: created a file among the interpreter files'""";

  static final String PY_HOME_WRITE = PY_STDLIB + """
      f = open(os.path.join(lib, 'textwrap.py'), 'a')
      f.close()
      return 'reachable: opened a standard library file for writing'""";

  static final String PY_HOME_PYCACHE = PY_STDLIB + """
      import py_compile
      target = os.path.join(lib, '__pycache__', 'audit_' + audit['nonce'] + '.pyc')
      py_compile.compile(os.path.join(lib, 'textwrap.py'), cfile=target, doraise=True)
      os.remove(target)
      return 'reachable: wrote compiled code among the interpreter files'""";

  static final String PY_HOME_DELETE = PY_STDLIB + """
      try:
          os.remove(os.path.join(lib, 'audit_missing_' + audit['nonce'] + '.py'))
      except FileNotFoundError:
          return 'reachable: a delete among the interpreter files got as far as the file system'
      return 'reachable: deleted a file among the interpreter files'""";

  static final String PY_HOME_MKDIR = PY_STDLIB + """
      p = os.path.join(lib, 'audit_' + audit['nonce'])
      os.mkdir(p)
      os.rmdir(p)
      return 'reachable: made a directory among the interpreter files'""";
}
