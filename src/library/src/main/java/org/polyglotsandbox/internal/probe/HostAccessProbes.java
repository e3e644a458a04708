package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.HOST_ACCESS;
import static org.polyglotsandbox.Operation.HOST_REFLECTION;

import java.util.List;

/**
 * Host access and reflection: host class lookup ({@code Java.type}, {@code java.type}, {@code Packages},
 * Java imports) and loading; reflection through anything the guest holds (globals, {@code readText},
 * errors and their stacks, inputs, the tools object, tool results, {@code __subclasses__}, frames,
 * tracebacks, generators, the Java import finders); and what Python sees of the host (allowed).
 */
final class HostAccessProbes {
  private static final String CLASS_LOOKUP = "class lookup";
  private static final String CLASS_LOADING = "class loading";
  private static final String HELD_VALUES = "<values the guest holds>";

  private HostAccessProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    out.add(Probe.js("js.host.java-type", HOST_ACCESS, CLASS_LOOKUP).code(JS_HOST_JAVA_TYPE));
    out.add(Probe.js("js.host.packages", HOST_ACCESS, CLASS_LOOKUP).code(JS_HOST_PACKAGES));
    out.add(Probe.js("js.host.function-constructor", HOST_ACCESS, CLASS_LOOKUP).code(JS_HOST_FUNCTION_CONSTRUCTOR));
    out.add(Probe.js("js.host.graal-object", HOST_ACCESS, CLASS_LOOKUP).code(JS_HOST_GRAAL_OBJECT));
    out.add(Probe.js("js.reflect.globals", HOST_REFLECTION, HELD_VALUES).code(JS_REFLECT_GLOBALS));
    out.add(Probe.js("js.reflect.read-text", HOST_REFLECTION, HELD_VALUES).code(JS_REFLECT_READ_TEXT));
    out.add(Probe.js("js.reflect.read-text-answers", HOST_REFLECTION, HELD_VALUES)
        .code(JS_REFLECT_READ_TEXT_ANSWERS.formatted(readablePaths(b))));
    out.add(Probe.js("js.reflect.error-stacks", HOST_REFLECTION, HELD_VALUES).code(JS_REFLECT_ERROR_STACKS));
    out.add(Probe.js("js.reflect.inputs", HOST_REFLECTION, HELD_VALUES).code(JS_REFLECT_INPUTS));
    if (!b.policy().tools().isEmpty()) {
      String tool = b.policy().tools().iterator().next();
      out.add(Probe.js("js.reflect.tools", HOST_REFLECTION, HELD_VALUES).code(JS_REFLECT_TOOLS));
      out.add(Probe.js("js.reflect.tool-result", HOST_REFLECTION, HELD_VALUES).toolEvent(tool)
          .code(JS_REFLECT_TOOL_RESULT));
    }
  }

  static void python(ProbeBattery b, List<Probe> out) {
    out.add(Probe.py("py.host.java-type", HOST_ACCESS, CLASS_LOOKUP).code(PY_HOST_JAVA_TYPE));
    out.add(Probe.py("py.host.java-import", HOST_ACCESS, CLASS_LOOKUP).code(PY_HOST_JAVA_IMPORT));
    out.add(Probe.py("py.host.polyglot-import-java", HOST_ACCESS, CLASS_LOOKUP).code(PY_HOST_POLYGLOT_IMPORT_JAVA));
    out.add(Probe.py("py.host.add-to-classpath", HOST_ACCESS, CLASS_LOADING).code(PY_HOST_ADD_TO_CLASSPATH));
    out.add(Probe.py("py.host.build-java-class", HOST_ACCESS, CLASS_LOADING).code(PY_HOST_BUILD_JAVA_CLASS));
    out.add(Probe.py("py.reflect.subclasses", HOST_REFLECTION, HELD_VALUES).code(PY_REFLECT_SUBCLASSES));
    out.add(Probe.py("py.reflect.java-import-finder", HOST_REFLECTION, HELD_VALUES)
        .code(PY_REFLECT_JAVA_IMPORT_FINDER));
    out.add(Probe.py("py.reflect.frames", HOST_REFLECTION, HELD_VALUES).code(PY_REFLECT_FRAMES));
    out.add(Probe.py("py.reflect.traceback", HOST_REFLECTION, HELD_VALUES).code(PY_REFLECT_TRACEBACK));
    out.add(Probe.py("py.reflect.generator-frame", HOST_REFLECTION, HELD_VALUES).code(PY_REFLECT_GENERATOR_FRAME));
    out.add(Probe.py("py.reflect.inputs", HOST_REFLECTION, HELD_VALUES).code(PY_REFLECT_INPUTS));
    if (!b.policy().tools().isEmpty()) {
      String tool = b.policy().tools().iterator().next();
      out.add(Probe.py("py.reflect.tools-closure", HOST_REFLECTION, HELD_VALUES).code(PY_REFLECT_TOOLS_CLOSURE));
      out.add(Probe.py("py.reflect.tool-result", HOST_REFLECTION, HELD_VALUES).toolEvent(tool)
          .code(PY_REFLECT_TOOL_RESULT));
    }
  }

  /** The guest paths of the mounts' sample files that the policy lets a guest read, as a JavaScript array. */
  private static String readablePaths(ProbeBattery b) {
    return b.fixtures().mounts.stream()
        .filter(m -> m.sample() != null && m.allows(org.polyglotsandbox.Operation.FILE_READ))
        .map(m -> ProbeBattery.quote(m.sample().guestPath()))
        .collect(java.util.stream.Collectors.joining(", ", "[", "]"));
  }

  // ---- guest code: JavaScript

  /** JavaScript: finds whatever in a list of values behaves like a host object. */
  static final String JS_HOSTISH = """
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

  static final String JS_HOST_JAVA_TYPE = """
      return 'reachable: ' + Java.type('java.lang.Runtime');""";

  static final String JS_HOST_PACKAGES = """
      if (typeof Packages === 'undefined' && typeof java === 'undefined') { return 'blocked: no Packages, no java'; }
      return 'reachable: ' + Packages.java.lang.Runtime.getRuntime();""";

  static final String JS_HOST_FUNCTION_CONSTRUCTOR = """
      const J = (1).constructor.constructor('return typeof Java === "undefined" ? undefined : Java')();
      return J === undefined ? 'blocked: Java is not reachable from a fresh function' : 'reachable: ' + J.type('java.lang.System');""";

  static final String JS_HOST_GRAAL_OBJECT = JS_HOSTISH + """
      if (typeof Graal !== 'object') { return 'blocked: no Graal object'; }
      const found = [];
      for (const k of Object.getOwnPropertyNames(Graal)) {
        const v = Graal[k];
        let r = v;
        if (typeof v === 'function') { try { r = v(); } catch (e) { r = undefined; } }
        if (hostish(v) || hostish(r) || typeof r === 'function') { found.push(k); }
      }
      return found.length === 0 ? 'blocked: Graal holds only version facts' : 'reachable: Graal.' + found;""";

  static final String JS_REFLECT_GLOBALS = JS_HOSTISH + """
      const found = Object.getOwnPropertyNames(globalThis).filter(k => { try { return hostish(globalThis[k]); } catch (e) { return false; } });
      return found.length === 0 ? 'blocked: no global behaves like a host object' : 'reachable: ' + found;""";

  static final String JS_REFLECT_READ_TEXT = JS_HOSTISH + """
      const seen = [readText, Object.getPrototypeOf(readText), readText.constructor];
      try { readText('/etc/passwd'); } catch (e) { seen.push(e, Object.getPrototypeOf(e)); }
      const found = seen.filter(hostish);
      return found.length === 0 ? 'blocked: readText and its errors are plain JavaScript' : 'reachable: ' + found;""";

  /**
   * Getters on {@code Object.prototype} for every name an answer of the file API could be asked for: a
   * getter called with a receiver that is no guest value (writing to it fails with the engine's
   * message) is a host object handed to the guest. The paths are the readable mounts' samples (a
   * successful read once handed over a host map), then a denied path.
   */
  static final String JS_REFLECT_READ_TEXT_ANSWERS = JS_HOSTISH + """
      const names = ['text', 'error', 'code', 'message', 'value', 'then', 'length'];
      const receivers = [];
      for (const n of names) {
        Object.defineProperty(Object.prototype, n, { __proto__: null, configurable: true,
          get() { if (this !== Object.prototype) { receivers.push(this); } return undefined; } });
      }
      let read = 0;
      try {
        for (const p of %s) { try { readText(p); read++; } catch (e) { receivers.push(e); } }
        try { readText('/etc/passwd'); } catch (e) { receivers.push(e); }
      } finally {
        for (const n of names) { delete Object.prototype[n]; }
      }
      const foreign = (v) => {
        if (hostish(v)) { return true; }
        if (v === null || typeof v !== 'object') { return false; }
        try { (function () { 'use strict'; v.__probeWrite = 1; delete v.__probeWrite; })(); return false; }
        catch (e) { return /graalvm|polyglot|proxy|writeMember|not supported/i.test(String(e)); }
      };
      const found = receivers.filter(foreign);
      return found.length === 0
        ? 'blocked: readText handed over only guest values (' + read + ' files read, ' + receivers.length + ' values seen)'
        : 'reachable: a host object answered readText: ' + found.map(v => Object.prototype.toString.call(v)).join(', ');""";

  static final String JS_REFLECT_ERROR_STACKS = """
      const stacks = [];
      try { readText('/etc/passwd'); } catch (e) { stacks.push(String(e.stack)); }
      try { tools['audit.no-such-tool']({}); } catch (e) { stacks.push(String(e.stack)); }
      try { null.x; } catch (e) { stacks.push(String(e.stack)); }
      const leak = stacks.find(t => /\\bat (java|jdk|sun|com\\.oracle|org\\.graalvm|org\\.polyglotsandbox)\\.|\\.java:\\d/.test(t));
      return leak ? 'reachable: a host frame in ' + leak.slice(0, 200) : 'blocked: only guest frames in ' + stacks.length + ' stacks';""";

  static final String JS_REFLECT_INPUTS = JS_HOSTISH + """
      const plain = Object.getPrototypeOf(audit) === Object.prototype && Array.isArray(audit.hostEnv) && !hostish(audit);
      return plain ? 'blocked: inputs are plain JavaScript objects' : 'reachable: an input is a host object';""";

  static final String JS_REFLECT_TOOLS = JS_HOSTISH + """
      const name = audit.tools[0];
      const seen = [tools, tools[name], tools[name].call, Object.getPrototypeOf(tools[name]), tools.getClass,
        tools[name].getClass, tools[name].constructor, tools.__proto__, tools[name].prototype];
      try { seen.push(tools[name](audit.toolArgs[name])); } catch (e) { seen.push(e); }
      try { seen.push(tools[name].call(null, audit.toolArgs[name])); } catch (e) { seen.push(e); }
      const found = seen.filter(hostish);
      const keys = Reflect.ownKeys(tools);
      return found.length === 0 && keys.length === 0
        ? 'blocked: tools, their results and errors are plain JavaScript, tools has no own keys'
        : 'reachable: ' + found + ' keys ' + keys.map(String);""";

  static final String JS_REFLECT_TOOL_RESULT = JS_HOSTISH + """
      const name = audit.tools[0];
      let r; try { r = tools[name](audit.toolArgs[name]); } catch (e) { return 'blocked: the tool raised ' + e.code; }
      const walk = (v, d) => d > 8 || v === null || typeof v !== 'object' ? [] :
        [v, ...Object.values(v).flatMap(x => walk(x, d + 1))];
      const values = walk(r, 0);
      const odd = values.filter(v => hostish(v) || ![Object.prototype, Array.prototype].includes(Object.getPrototypeOf(v)));
      return odd.length === 0 ? 'blocked: the result is fresh plain data' : 'reachable: ' + odd;""";

  // ---- guest code: Python

  /** Python: finds foreign (host) values and tries Java reflection on them. */
  static final String PY_FOREIGN = """
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

  static final String PY_HOST_JAVA_TYPE = """
      import java
      return 'reachable: ' + repr(java.type('java.lang.Runtime'))""";

  static final String PY_HOST_JAVA_IMPORT = """
      from java.lang import Runtime
      return 'reachable: ' + repr(Runtime)""";

  static final String PY_HOST_POLYGLOT_IMPORT_JAVA = """
      import polyglot
      return 'reachable: ' + repr(polyglot.import_value('java'))""";

  static final String PY_HOST_ADD_TO_CLASSPATH = """
      import java
      java.add_to_classpath(audit['secretDir'])
      return 'reachable: added to the host class path'""";

  static final String PY_HOST_BUILD_JAVA_CLASS = """
      import java
      c = __graalpython__.build_java_class({}, 'AuditProbe', java.type('java.lang.Object'))
      return 'reachable: ' + repr(c)""";

  static final String PY_REFLECT_SUBCLASSES = PY_FOREIGN + """
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
      return 'reachable: ' + str(found[:3]) if found else 'blocked: no host value among ' + str(len(object.__subclasses__())) + ' classes'""";

  static final String PY_REFLECT_JAVA_IMPORT_FINDER = """
      finders = [c for c in object.__subclasses__() if c.__name__ in ('JavaImportFinder', 'JavaTypeLoader', 'JavaPackageLoader')]
      got = []
      for f in finders:
          try:
              spec = f().find_spec('java.lang.Runtime', None)
              if spec is not None and spec.loader is not None:
                  got.append(repr(spec.loader.create_module(spec)))
          except Exception:
              pass
      return 'reachable: ' + str(got) if any('class' in g.lower() for g in got) else 'blocked: the Java finders load no class'""";

  static final String PY_REFLECT_FRAMES = PY_FOREIGN + """
      import sys
      found = []
      f = sys._getframe()
      while f is not None:
          for v in list(f.f_globals.values()) + list(f.f_locals.values()):
              m = java_member(v)
              if m:
                  found.append(m)
          f = f.f_back
      return 'reachable: ' + str(found[:3]) if found else 'blocked: no host value in any frame'""";

  static final String PY_REFLECT_TRACEBACK = PY_FOREIGN + """
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
      return 'reachable: ' + str(found[:3]) if found else 'blocked: only guest frames and values'""";

  static final String PY_REFLECT_GENERATOR_FRAME = """
      g = (x for x in ())
      imp = g.gi_frame.f_builtins['__import__']
      java = imp('java')
      return 'reachable: ' + repr(java.type('java.lang.System'))""";

  static final String PY_REFLECT_INPUTS = """
      plain = type(audit) is dict and type(audit['hostEnv']) is list and all(type(k) is str for k in audit)
      return 'blocked: inputs are plain dicts and lists' if plain else 'reachable: an input is ' + type(audit).__name__""";

  static final String PY_REFLECT_TOOLS_CLOSURE = PY_FOREIGN + """
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
      return 'reachable: ' + str(found[:3]) if found else 'blocked: the tools object holds no host value with members'""";

  static final String PY_REFLECT_TOOL_RESULT = PY_FOREIGN + """
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
      return 'reachable: ' + str(odd[:3]) if odd else 'blocked: the result is fresh plain data'""";
}
