package org.polyglotsandbox.internal.worker;

import java.io.File;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The class path a worker starts with: the jars and directories this JVM loaded the library and GraalVM
 * from, whether the application runs on the class path or the module path.
 */
final class WorkerClassPath {
  private WorkerClassPath() {}

  /** This JVM's module path and class path, as one class path of absolute entries. */
  static List<String> entries() {
    Set<String> entries = new LinkedHashSet<>();
    for (String property : List.of("jdk.module.path", "java.class.path")) {
      String value = System.getProperty(property);
      if (value != null && !value.isBlank()) {
        for (String e : value.split(File.pathSeparator)) {
          if (!e.isBlank()) {
            entries.add(Path.of(e).toAbsolutePath().normalize().toString());
          }
        }
      }
    }
    return List.copyOf(entries);
  }
}
