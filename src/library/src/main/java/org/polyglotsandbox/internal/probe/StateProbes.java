package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.STATE_PERSIST;

import java.util.List;

/**
 * State left for the next run: each probe plants something (a global, a prototype or builtin change, a
 * module attribute, an environment variable, {@code sys.path}, a file in a writable mount) in one run
 * and looks for it in the next two.
 */
final class StateProbes {
  private static final String NEXT_RUN = "<next run>";

  private StateProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    out.add(Probe.js("js.state.global", STATE_PERSIST, NEXT_RUN).plant(JS_STATE_GLOBAL_PLANT).code(JS_STATE_GLOBAL));
    out.add(Probe.js("js.state.prototype", STATE_PERSIST, NEXT_RUN).plant(JS_STATE_PROTOTYPE_PLANT)
        .code(JS_STATE_PROTOTYPE));
    out.add(Probe.js("js.state.builtin", STATE_PERSIST, NEXT_RUN).plant(JS_STATE_BUILTIN_PLANT)
        .code(JS_STATE_BUILTIN));
  }

  static void python(ProbeBattery b, List<Probe> out) {
    out.add(Probe.py("py.state.builtins", STATE_PERSIST, NEXT_RUN).plant(PY_STATE_BUILTINS_PLANT)
        .code(PY_STATE_BUILTINS));
    out.add(Probe.py("py.state.module", STATE_PERSIST, NEXT_RUN).plant(PY_STATE_MODULE_PLANT).code(PY_STATE_MODULE));
    out.add(Probe.py("py.state.environ", STATE_PERSIST, NEXT_RUN).plant(PY_STATE_ENVIRON_PLANT)
        .code(PY_STATE_ENVIRON));
    out.add(Probe.py("py.state.sys-path", STATE_PERSIST, NEXT_RUN).plant(PY_STATE_SYS_PATH_PLANT)
        .code(PY_STATE_SYS_PATH));
    if (b.fixtures().writableDirectory() != null) {
      out.add(Probe.py("py.state.file", STATE_PERSIST, NEXT_RUN).plant(PY_STATE_FILE_PLANT).code(PY_STATE_FILE));
    }
  }

  // ---- guest code: what each probe plants, and how it looks for it

  static final String JS_STATE_GLOBAL_PLANT = """
      globalThis.__auditPlant = audit.nonce; return 'planted';""";

  static final String JS_STATE_PROTOTYPE_PLANT = """
      Array.prototype.__auditPlant = audit.nonce; Object.prototype.__auditPlant = audit.nonce; return 'planted';""";

  static final String JS_STATE_BUILTIN_PLANT = """
      Math.max = function auditPlant() { return 0; }; JSON.auditPlant = audit.nonce; return 'planted';""";

  static final String JS_STATE_GLOBAL = """
      return globalThis.__auditPlant === audit.nonce ? 'reachable: a global survived' : 'blocked: no global of the last run';""";

  static final String JS_STATE_PROTOTYPE = """
      return [].__auditPlant === audit.nonce || ({}).__auditPlant === audit.nonce
        ? 'reachable: a prototype change survived' : 'blocked: prototypes are fresh';""";

  static final String JS_STATE_BUILTIN = """
      return Math.max.name === 'auditPlant' || JSON.auditPlant !== undefined
        ? 'reachable: a patched builtin survived' : 'blocked: builtins are fresh';""";

  static final String PY_STATE_BUILTINS_PLANT = """
      import builtins
      builtins.audit_plant = audit['nonce']
      return 'planted'""";

  /**
   * Plants in a module read from the standard library's source ({@code keyword}) and in one GraalPy
   * keeps frozen ({@code os}). Both are cheap to import in a fresh context ({@code json} pulls in
   * {@code re} and costs seconds of CPU per run, three runs in a row on the probe's critical path).
   */
  static final String PY_STATE_MODULE_PLANT = """
      import keyword, os
      keyword.audit_plant = audit['nonce']
      os.audit_plant = audit['nonce']
      return 'planted'""";

  static final String PY_STATE_ENVIRON_PLANT = """
      import os
      os.environ['AUDIT_PLANT'] = audit['nonce']
      return 'planted'""";

  static final String PY_STATE_SYS_PATH_PLANT = """
      import sys
      sys.path.append('/audit-plant-' + audit['nonce'])
      sys.modules['audit_plant'] = sys
      return 'planted'""";

  static final String PY_STATE_FILE_PLANT = """
      with open(audit['writableDir'] + '/plant-' + audit['nonce'], 'w') as f:
          f.write(audit['nonce'])
      return 'planted'""";

  static final String PY_STATE_BUILTINS = """
      import builtins
      return 'reachable: a builtin survived' if getattr(builtins, 'audit_plant', None) == audit['nonce'] else 'blocked: builtins are fresh'""";

  static final String PY_STATE_MODULE = """
      import keyword, os
      return 'reachable: a module attribute survived' if audit['nonce'] in (getattr(keyword, 'audit_plant', None), getattr(os, 'audit_plant', None)) else 'blocked: modules are fresh'""";

  static final String PY_STATE_ENVIRON = """
      import os
      return 'reachable: an environment variable survived' if os.environ.get('AUDIT_PLANT') == audit['nonce'] else 'blocked: the environment is fresh'""";

  static final String PY_STATE_SYS_PATH = """
      import sys
      return 'reachable: sys.path or sys.modules survived' if '/audit-plant-' + audit['nonce'] in sys.path or 'audit_plant' in sys.modules else 'blocked: sys is fresh'""";

  static final String PY_STATE_FILE = """
      import os
      return 'reachable: a file survived' if os.path.exists(audit['writableDir'] + '/plant-' + audit['nonce']) else 'blocked: the mount is fresh'""";
}
