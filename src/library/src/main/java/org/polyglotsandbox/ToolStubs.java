package org.polyglotsandbox;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Renders typed stubs of tools, TypeScript or Python by language; the contract is {@link Tool#stubs}.
 * Both renderers read the schemas as plain JSON values ({@link org.polyglotsandbox.internal.boundary.PlainData}).
 */
final class ToolStubs {
  private ToolStubs() {}

  static String typeScript(Collection<Tool> tools) {
    return TypeScriptStubs.render(checked(tools));
  }

  static String python(Collection<Tool> tools) {
    return PythonStubs.render(checked(tools));
  }

  static String of(Language language, Collection<Tool> tools) {
    Objects.requireNonNull(language, "language");
    return language == Language.JAVASCRIPT ? typeScript(tools) : python(tools);
  }

  private static List<Tool> checked(Collection<Tool> tools) {
    Objects.requireNonNull(tools, "tools");
    List<Tool> out = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (Tool t : tools) {
      Objects.requireNonNull(t, "tool");
      if (seen.contains(t.name())) {
        throw new IllegalArgumentException("tool '" + t.name() + "' is listed twice");
      }
      seen.add(t.name());
      out.add(t);
    }
    return out;
  }
}
