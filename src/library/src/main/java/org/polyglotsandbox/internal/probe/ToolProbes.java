package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.TOOL_CALL;
import static org.polyglotsandbox.PolicyReport.ANY_OTHER_TOOL;
import static org.polyglotsandbox.internal.probe.ProbeBattery.quote;

import java.util.List;
import org.polyglotsandbox.Language;

/**
 * Tools: each allowed tool is callable (the gateway records the call); every other name, registered or
 * not, is refused by the gateway (which records the denial, when the guest has a tools object at all);
 * the tools object has no hidden member and cannot be changed.
 */
final class ToolProbes {
  private ToolProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    add(Language.JAVASCRIPT, b, out);
    out.add(Probe.js("js.tool.hidden-names", TOOL_CALL, ANY_OTHER_TOOL).code(JS_TOOL_HIDDEN_NAMES));
  }

  static void python(ProbeBattery b, List<Probe> out) {
    add(Language.PYTHON, b, out);
    out.add(Probe.py("py.tool.hidden-names", TOOL_CALL, ANY_OTHER_TOOL).code(PY_TOOL_HIDDEN_NAMES));
  }

  private static void add(Language language, ProbeBattery b, List<Probe> out) {
    boolean js = language == Language.JAVASCRIPT;
    String prefix = js ? "js" : "py";
    for (String name : b.policy().tools()) {
      out.add(Probe.of(language, prefix + ".tool.call:" + name, TOOL_CALL, name).toolEvent(name)
          .code((js ? JS_TOOL_CALL : PY_TOOL_CALL).formatted(quote(name))));
    }
    for (String name : b.refusedTools()) {
      Probe.Builder p = Probe.of(language, prefix + ".tool.refused:" + name, TOOL_CALL, name);
      if (!b.policy().tools().isEmpty()) {
        p.denial(name);
      }
      out.add(p.code((js ? JS_TOOL_REFUSED : PY_TOOL_REFUSED).formatted(quote(name))));
    }
  }

  // ---- guest code; the argument of the templates is the tool name, quoted

  static final String JS_TOOL_CALL = """
      const name = %s;
      try {
        const r = tools[name](audit.toolArgs[name]);
        return 'reachable: answered ' + JSON.stringify(r).slice(0, 60);
      } catch (e) {
        return e.code === 'denied' ? 'blocked: ' + e : 'reachable: the gateway answered ' + e.code;
      }""";

  static final String PY_TOOL_CALL = """
      name = %s
      try:
          r = getattr(tools, name)(audit['toolArgs'][name])
          return 'reachable: answered ' + repr(r)[:60]
      except Exception as e:
          code = getattr(e, 'code', None)
          return 'blocked: ' + str(e) if code == 'denied' or code is None else 'reachable: the gateway answered ' + code""";

  static final String JS_TOOL_REFUSED = """
      const name = %s;
      if (typeof tools === 'undefined') { return 'blocked: no tools object'; }
      try {
        const r = tools[name]({});
        return 'reachable: answered ' + JSON.stringify(r);
      } catch (e) {
        return e.code === 'denied' ? 'blocked: ' + e : 'reachable: the gateway answered ' + e.code;
      }""";

  static final String PY_TOOL_REFUSED = """
      name = %s
      if 'tools' not in globals():
          return 'blocked: no tools object'
      try:
          return 'reachable: answered ' + repr(getattr(tools, name)({}))
      except Exception as e:
          code = getattr(e, 'code', None)
          return 'blocked: ' + str(e) if code == 'denied' else 'reachable: the gateway answered ' + str(code)""";

  static final String JS_TOOL_HIDDEN_NAMES = """
      if (typeof tools === 'undefined') { return 'blocked: no tools object'; }
      const hidden = ['constructor', '__proto__', 'prototype', 'toString', 'then', '_raw'].filter(k => tools[k] !== undefined);
      return hidden.length === 0 ? 'blocked: no hidden member answers' : 'reachable: ' + hidden;""";

  static final String PY_TOOL_HIDDEN_NAMES = """
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
      return 'reachable: ' + str(found) if found else 'blocked: no hidden member, tools are read-only'""";
}
