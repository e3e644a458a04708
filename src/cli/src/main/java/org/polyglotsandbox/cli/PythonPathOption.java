package org.polyglotsandbox.cli;

import java.nio.file.Path;
import java.util.List;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * {@code --python-path DIRS} of {@code run} and {@code mcp}: checked against the policy before anything
 * is opened (the audit log included), with the rules {@code PolyglotSandbox.Builder#pythonPath} and its
 * {@code build()} apply, so that a bad value exits 2 naming it.
 */
final class PythonPathOption {
  private PythonPathOption() {}

  /**
   * The directories, empty values (the option given as {@code --python-path=}) dropped.
   *
   * @throws UsageException naming the value if one is not an absolute guest path without {@code ..},
   *     is repeated, lies neither inside nor above a mount, or the policy does not allow Python
   */
  static String[] check(List<String> values, Policy policy) {
    String[] dirs = values.stream().filter(d -> !d.isEmpty()).toArray(String[]::new);
    try {
      PolyglotSandbox.builder().pythonPath(dirs);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--python-path: " + e.getMessage());
    }
    if (dirs.length > 0 && !policy.allows(Language.PYTHON)) {
      throw new UsageException("--python-path needs a policy that allows Python (it allows "
          + policy.languages() + ")");
    }
    for (String dir : dirs) {
      // The builder accepted it, so it is absolute and free of '..'; /pkgs/ names /pkgs.
      String normal = Path.of(dir).normalize().toString();
      if (policy.mountFor(normal).isEmpty() && !policy.directoriesLeadingToMounts().contains(normal)) {
        throw new UsageException("--python-path: " + Text.quote(dir) + " is neither inside nor above any of the"
            + " policy's mounts " + policy.mounts().stream().map(Mount::guestPath).toList());
      }
    }
    return dirs;
  }
}
