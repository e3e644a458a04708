package org.polyglotsandbox.internal.engine;

import java.util.List;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;
import org.polyglotsandbox.Mount;

/**
 * What a sandbox does in each Python context before its run ({@code PolyglotSandbox.Builder#pythonPath}
 * and {@code #pythonImports}): put guest directories at the front of {@code sys.path}, then import
 * modules. One instance per sandbox, its sources kept for the engine's lifetime, run once per context.
 * The builder checked the values (module names are dotted identifiers, directories normalized guest
 * paths inside or above a mount), and the directories reach the guest as string arguments, never as code.
 */
final class PythonImports {
  /** Takes the directories as arguments; internal, so its statements are the sandbox's, not the guest's. */
  private static final Source PREPEND_PATH = Source.newBuilder("python", """
      def prepend(*dirs):
          import sys
          sys.path[0:0] = list(dirs)
      prepend
      """, "<sandbox pythonPath>").internal(true).buildLiteral();

  private final String[] path;
  /** The import statements, or null when there are none. */
  private final Source imports;

  private PythonImports(List<String> path, Source imports) {
    this.path = path.toArray(String[]::new);
    this.imports = imports;
  }

  /** What to do in each Python context, or null when {@code path} and {@code modules} are both empty. */
  static PythonImports of(List<String> path, List<String> modules) {
    if (path.isEmpty() && modules.isEmpty()) {
      return null;
    }
    Source imports = null;
    if (!modules.isEmpty()) {
      StringBuilder code = new StringBuilder();
      for (String m : modules) {
        code.append("import ").append(m).append('\n');
      }
      // Internal: the import statements are the sandbox's; the modules' own code counts as a guest's import would.
      imports = Source.newBuilder("python", code.toString(), "<sandbox pythonImports>").internal(true).buildLiteral();
    }
    return new PythonImports(path, imports);
  }

  /** Whether modules are imported (else only {@code sys.path} is set, which costs next to nothing). */
  boolean imports() {
    return imports != null;
  }

  /**
   * Whether {@code mount} must be in the context's file system before the imports, which may load
   * modules from it: there are imports, and the mount lies at, inside or above a {@code pythonPath}
   * directory, or holds one. A context made in advance with such mounts is only used if they still
   * match the host when its run starts ({@link RunEnvironment#mountsStillCurrent()}); the other mounts
   * are copied in when the run starts, as always.
   */
  boolean importsFrom(Mount mount) {
    if (imports == null) {
      return false;
    }
    for (String dir : path) {
      if (mount.contains(dir) || dir.equals("/") || mount.guestPath().startsWith(dir + "/")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Sets {@code sys.path}, then runs the imports in {@code context}.
   *
   * @throws Failed if an import raised (no such module, or one whose import failed)
   */
  void run(Context context) {
    if (path.length > 0) {
      context.eval(PREPEND_PATH).execute((Object[]) path);
    }
    if (imports == null) {
      return;
    }
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
