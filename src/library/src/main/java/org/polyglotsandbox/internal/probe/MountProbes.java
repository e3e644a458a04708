package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.FILE_CREATE;
import static org.polyglotsandbox.Operation.FILE_DELETE;
import static org.polyglotsandbox.Operation.FILE_LIST;
import static org.polyglotsandbox.Operation.FILE_READ;
import static org.polyglotsandbox.Operation.FILE_WRITE;
import static org.polyglotsandbox.PolicyReport.HOST_SIDE_OF_MOUNTS;
import static org.polyglotsandbox.internal.probe.ProbeBattery.quote;

import java.util.List;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.internal.probe.ProbeFixtures.MountInfo;

/**
 * The mounts: each file operation, allowed or not, as the mount declares it. A probe of an operation
 * the mount does not allow needs the file system's recorded denial; a probe of an allowed one must get
 * what the host knows is there (the sample's size), and a write must not reach the host file.
 */
final class MountProbes {
  private MountProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    for (MountInfo m : b.fixtures().mounts) {
      if (m.sample() == null) {
        continue;
      }
      String path = m.sample().guestPath();
      out.add(deniedUnless(m, Operation.FILE_READ, Probe.js("js.mount.read:" + path, FILE_READ, path), path)
          .code(JS_MOUNT_READ.formatted(quote(path), m.sample().chars())));
    }
  }

  static void python(ProbeBattery b, List<Probe> out) {
    for (MountInfo m : b.fixtures().mounts) {
      pythonFiles(m, out);
      if (m.directory()) {
        pythonDirectory(m, out);
      } else {
        String g = m.mount().guestPath();
        out.add(Probe.py("py.mount.delete-mount-point:" + g, FILE_DELETE, g)
            .code(PY_MOUNT_DELETE_MOUNT_POINT.formatted(quote(g))));
      }
    }
  }

  /** Reads and writes of the mount's sample file, or of a file of the probe's own where it may create one. */
  private static void pythonFiles(MountInfo m, List<Probe> out) {
    String g = m.mount().guestPath();
    if (m.sample() != null) {
      String sample = m.sample().guestPath();
      String q = quote(sample);
      out.add(deniedUnless(m, Operation.FILE_READ, Probe.py("py.mount.read:" + sample, FILE_READ, sample), sample)
          .code(PY_MOUNT_READ.formatted(q, m.sample().bytes())));
      out.add(deniedUnless(m, Operation.FILE_WRITE, Probe.py("py.mount.write:" + sample, FILE_WRITE, sample), sample)
          .code(PY_MOUNT_WRITE_SAMPLE.formatted(q)));
      if (m.allows(Operation.FILE_WRITE)) {
        out.add(Probe.py("py.mount.host-side:" + sample, FILE_WRITE, HOST_SIDE_OF_MOUNTS)
            .hostCheck(() -> ProbeFixtures.hostFileChanged(m.sample())).code(PY_MOUNT_HOST_SIDE.formatted(q)));
      }
    } else if (canCreate(m) && m.allows(Operation.FILE_READ)) {
      out.add(Probe.py("py.mount.read-back:" + g, FILE_READ, g).code(PY_MOUNT_READ_BACK.formatted(own(m))));
      out.add(Probe.py("py.mount.write:" + g, FILE_WRITE, g).code(PY_MOUNT_WRITE_OWN.formatted(own(m))));
    }
  }

  /** Listing, creating and deleting in a mounted directory. */
  private static void pythonDirectory(MountInfo m, List<Probe> out) {
    String g = m.mount().guestPath();
    out.add(deniedUnless(m, Operation.FILE_LIST, Probe.py("py.mount.list:" + g, FILE_LIST, g), g)
        .code(PY_MOUNT_LIST.formatted(quote(g))));
    out.add(deniedUnless(m, Operation.FILE_CREATE, Probe.py("py.mount.create:" + g, FILE_CREATE, g), g)
        .code(PY_MOUNT_CREATE.formatted(own(m))));
    Probe.Builder delete = deniedUnless(m, Operation.FILE_DELETE, Probe.py("py.mount.delete:" + g, FILE_DELETE, g), g);
    if (canCreate(m)) {
      out.add(delete.code(PY_MOUNT_DELETE_OWN.formatted(own(m))));
    } else if (m.sample() != null) {
      out.add(delete.code(PY_MOUNT_DELETE_SAMPLE.formatted(quote(m.sample().guestPath()))));
    }
  }

  /** {@code b}, needing a denial of {@code path} unless the mount allows {@code op}. */
  private static Probe.Builder deniedUnless(MountInfo m, Operation op, Probe.Builder b, String path) {
    return m.allows(op) ? b : b.denial(path);
  }

  private static boolean canCreate(MountInfo m) {
    return m.directory() && m.allows(Operation.FILE_CREATE) && m.allows(Operation.FILE_WRITE);
  }

  /** Python: the start of a file name of the probe's own in the mount, {@code <mount>/audit-<nonce>-}. */
  private static String own(MountInfo m) {
    return "(" + quote(m.mount().guestPath() + "/audit-") + " + audit['nonce'] + '-')";
  }

  // ---- guest code; the arguments are quoted guest paths, sizes, and the start of a file name (own)

  /** Arguments: the sample's guest path, quoted; its length in characters. */
  static final String JS_MOUNT_READ = """
      const t = readText(%1$s);
      return t.length === %2$d ? 'reachable: read %2$d characters' : 'unexpected: read ' + t.length + ' characters, the host has %2$d';""";

  /** Arguments: the sample's guest path, quoted; its size in bytes. */
  static final String PY_MOUNT_READ = """
      data = open(%1$s, 'rb').read()
      return 'reachable: read %2$d bytes' if len(data) == %2$d else 'unexpected: read ' + str(len(data)) + ' bytes, the host has %2$d'""";

  /** Argument: the sample's guest path, quoted. */
  static final String PY_MOUNT_WRITE_SAMPLE = """
      import os
      before = os.path.getsize(%1$s)
      with open(%1$s, 'ab') as f:
          f.write(b'x')
      return 'reachable: appended to the copy' if os.path.getsize(%1$s) == before + 1 else 'unexpected: the size did not grow'""";

  /** Argument: the sample's guest path, quoted. */
  static final String PY_MOUNT_HOST_SIDE = """
      with open(%s, 'ab') as f:
          f.write(b'audit')
      return 'blocked: wrote the in-memory copy; the host decides whether its file changed'""";

  /** Argument: the start of a file name of the probe's own. */
  static final String PY_MOUNT_READ_BACK = """
      p = %s + 'read'
      with open(p, 'w') as f:
          f.write(audit['nonce'])
      return 'reachable: read back what was written' if open(p).read() == audit['nonce'] else 'unexpected: read other text'""";

  /** Argument: the start of a file name of the probe's own. */
  static final String PY_MOUNT_WRITE_OWN = """
      import os
      p = %s + 'write'
      open(p, 'x').close()
      with open(p, 'a') as f:
          f.write('x')
      return 'reachable: wrote an existing file' if os.path.getsize(p) == 1 else 'unexpected: the size did not grow'""";

  /** Argument: the mounted file's guest path, quoted. */
  static final String PY_MOUNT_DELETE_MOUNT_POINT = """
      import os
      os.remove(%s)
      return 'reachable: deleted the mount point'""";

  /** Argument: the mounted directory's guest path, quoted. */
  static final String PY_MOUNT_LIST = """
      import os
      return 'reachable: listed ' + str(len(os.listdir(%s))) + ' entries'""";

  /** Argument: the start of a file name of the probe's own. */
  static final String PY_MOUNT_CREATE = """
      import os
      p = %s + 'create'
      open(p, 'x').close()
      return 'reachable: created ' + p if os.path.exists(p) else 'unexpected: created but not there'""";

  /** Argument: the start of a file name of the probe's own. */
  static final String PY_MOUNT_DELETE_OWN = """
      import os
      p = %s + 'delete'
      open(p, 'x').close()
      os.remove(p)
      return 'reachable: deleted ' + p if not os.path.exists(p) else 'unexpected: still there'""";

  /** Argument: the sample's guest path, quoted. */
  static final String PY_MOUNT_DELETE_SAMPLE = """
      import os
      os.remove(%s)
      return 'reachable: deleted a file of the mount'""";
}
