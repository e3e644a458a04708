package org.polyglotsandbox;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One guest program: its language, its text, the name it appears under in guest stack traces, and
 * input values bound as global variables.
 *
 * <p>Inputs must be plain data: {@code null}, {@link Boolean}, {@link Number}, {@link CharSequence},
 * {@link java.util.List} and {@link Map} with string keys. They reach the guest as fresh guest values
 * (JavaScript objects and arrays, Python dicts and lists), never as host objects.
 */
public final class Script {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,128}");

  private final Language language;
  private final String code;
  private final String name;
  private final Map<String, Object> inputs;

  private Script(Language language, String code, String name, Map<String, Object> inputs) {
    this.language = Objects.requireNonNull(language, "language");
    this.code = Objects.requireNonNull(code, "code");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "script name '" + name + "' must be 1-128 characters of letters, digits, '.', '_' or '-'");
    }
    this.name = name;
    this.inputs = inputs;
  }

  /** A script named {@code main.js} or {@code main.py}, with no inputs. */
  public static Script of(Language language, String code) {
    return new Script(language, code, "main" + language.extensions().get(0), Map.of());
  }

  /** This script under another name, as guest stack traces show it; a file name, never a host path. */
  public Script named(String name) {
    return new Script(language, code, Objects.requireNonNull(name, "name"), inputs);
  }

  /**
   * This script with inputs bound as global variables.
   *
   * @throws IllegalArgumentException if a name is not an identifier; values are checked when the
   *     script runs
   */
  public Script withInputs(Map<String, ?> inputs) {
    Map<String, Object> copy = new LinkedHashMap<>();
    inputs.forEach((k, v) -> {
      if (k == null || !IDENTIFIER.matcher(k).matches()) {
        throw new IllegalArgumentException("input name '" + k + "' is not a valid identifier");
      }
      copy.put(k, v);
    });
    return new Script(language, code, name, Collections.unmodifiableMap(copy));
  }

  public Language language() {
    return language;
  }

  public String code() {
    return code;
  }

  public String name() {
    return name;
  }

  public Map<String, Object> inputs() {
    return inputs;
  }
}
