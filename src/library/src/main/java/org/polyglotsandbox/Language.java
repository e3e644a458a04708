package org.polyglotsandbox;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A guest language the sandbox can run. A policy must allow a language before any code in it runs.
 *
 * @since 0.1.0
 */
public enum Language {
  /** ECMAScript on GraalJS. No Node.js APIs: no {@code require}, {@code process} or {@code fs}. */
  JAVASCRIPT("js", List.of(".js", ".mjs")),
  /** Python 3 on GraalPy, with its pure-Python standard library read-only. */
  PYTHON("python", List.of(".py"));

  private final String id;
  private final List<String> extensions;

  Language(String id, List<String> extensions) {
    this.id = id;
    this.extensions = extensions;
  }

  /**
   * The GraalVM language id, and the name used in policy files and on the command line.
   *
   * @since 0.1.0
   */
  public String id() {
    return id;
  }

  /**
   * File-name extensions that imply this language, such as {@code .py}.
   *
   * @since 0.1.0
   */
  public List<String> extensions() {
    return extensions;
  }

  /**
   * Parses a language name: the GraalVM id ({@code js}, {@code python}) or the enum name, in any case.
   *
   * @throws IllegalArgumentException naming the value and the accepted names
   * @since 0.1.0
   */
  public static Language fromId(String name) {
    String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
    for (Language l : values()) {
      if (l.id.equals(n) || l.name().toLowerCase(Locale.ROOT).equals(n)) {
        return l;
      }
    }
    throw new IllegalArgumentException(
        "unknown language '" + name + "' (expected one of: js, javascript, python)");
  }

  /**
   * The language a file name implies by its extension, if any.
   *
   * @since 0.1.0
   */
  public static Optional<Language> forFileName(String fileName) {
    String n = fileName.toLowerCase(Locale.ROOT);
    for (Language l : values()) {
      for (String ext : l.extensions) {
        if (n.endsWith(ext)) {
          return Optional.of(l);
        }
      }
    }
    return Optional.empty();
  }
}
