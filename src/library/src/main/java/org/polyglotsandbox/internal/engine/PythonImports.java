package org.polyglotsandbox.internal.engine;

import java.util.List;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;

/**
 * The standard-library modules a sandbox imports into each Python context before its run
 * ({@code PolyglotSandbox.Builder#pythonImports}): one source per sandbox, kept for the engine's
 * lifetime, evaluated once per context. The module names were checked by the builder (dotted
 * identifiers), so the source is one plain {@code import} statement per module.
 */
final class PythonImports {
  private PythonImports() {}

  /** The import statements for {@code modules}, or null when there are none. */
  static Source source(List<String> modules) {
    if (modules.isEmpty()) {
      return null;
    }
    StringBuilder code = new StringBuilder();
    for (String m : modules) {
      code.append("import ").append(m).append('\n');
    }
    // Internal: the import statements are the sandbox's; the modules' own code counts as a guest's import would.
    return Source.newBuilder("python", code.toString(), "<sandbox pythonImports>").internal(true).buildLiteral();
  }

  /**
   * Runs the imports in {@code context}.
   *
   * @throws Failed if one raised (a module not in the standard library, or one whose import failed)
   */
  static void run(Context context, Source imports) {
    try {
      context.eval(imports);
    } catch (PolyglotException e) {
      if (e.isCancelled() || e.isResourceExhausted() || e.isInterrupted() || e.isInternalError()) {
        throw e;
      }
      throw new Failed("pythonImports: " + oneLine(imports.getCharacters()) + " failed in a fresh context: "
          + e.getMessage());
    }
  }

  private static String oneLine(CharSequence code) {
    return code.toString().strip().replace("\n", "; ");
  }

  /** The sandbox's imports raised in a fresh context; the message names them and the guest's error. */
  static final class Failed extends IllegalStateException {
    Failed(String message) {
      super(message);
    }
  }
}
