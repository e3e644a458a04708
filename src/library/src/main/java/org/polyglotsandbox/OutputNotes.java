package org.polyglotsandbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the output boundary cut from or changed in the guest's text before it reached the
 * {@link ExecutionResult}: for stdout, stderr, and the error message with its guest stack frames.
 *
 * <p>Guest text is capped ({@link Limits#maxOutputBytes()} for stdout and stderr together) and
 * sanitised: it is valid UTF-8, holds no terminal escape sequence, no control character but newline
 * and tab, and no invisible character that reorders or hides text (bidirectional overrides, tag
 * characters). These notes say how much of that happened, so that an embedder, or a model reading
 * {@link ExecutionResult#toModelText()}, knows the text is not exactly what the guest wrote.
 */
public record OutputNotes(Changes stdout, Changes stderr, Changes errorMessage) {
  /** Notes for a run whose text needed no change. */
  public static final OutputNotes NONE = new OutputNotes(Changes.NONE, Changes.NONE, Changes.NONE);

  public OutputNotes {
    Objects.requireNonNull(stdout, "stdout");
    Objects.requireNonNull(stderr, "stderr");
    Objects.requireNonNull(errorMessage, "errorMessage");
  }

  /** Whether every piece of guest text arrived whole and unchanged. */
  public boolean isEmpty() {
    return stdout.isEmpty() && stderr.isEmpty() && errorMessage.isEmpty();
  }

  /** One line per changed piece of text, such as {@code "stdout: 2 terminal escape sequences removed"}. */
  public List<String> describe() {
    List<String> out = new ArrayList<>();
    if (!stdout.isEmpty()) {
      out.add("stdout: " + stdout.describe());
    }
    if (!stderr.isEmpty()) {
      out.add("stderr: " + stderr.describe());
    }
    if (!errorMessage.isEmpty()) {
      out.add("error message: " + errorMessage.describe());
    }
    return List.copyOf(out);
  }

  /**
   * The changes made to one piece of guest text.
   *
   * @param bytesDropped bytes the guest wrote past the output limit, not kept
   * @param escapeSequencesRemoved terminal escape sequences (CSI, OSC, ...) removed whole
   * @param controlCharactersReplaced control characters replaced by U+FFFD, or by a newline (a lone CR,
   *     U+2028, U+2029)
   * @param invalidSequencesReplaced malformed UTF-8 sequences and lone surrogates replaced by U+FFFD
   * @param invisibleCharactersRemoved bidirectional controls, zero-width and tag characters removed
   */
  public record Changes(long bytesDropped, int escapeSequencesRemoved, int controlCharactersReplaced,
      int invalidSequencesReplaced, int invisibleCharactersRemoved) {
    /** No change. */
    public static final Changes NONE = new Changes(0, 0, 0, 0, 0);

    public Changes {
      if (bytesDropped < 0 || escapeSequencesRemoved < 0 || controlCharactersReplaced < 0
          || invalidSequencesReplaced < 0 || invisibleCharactersRemoved < 0) {
        throw new IllegalArgumentException("counts must not be negative");
      }
    }

    /** Whether the text arrived whole and unchanged. */
    public boolean isEmpty() {
      return bytesDropped == 0 && escapeSequencesRemoved == 0 && controlCharactersReplaced == 0
          && invalidSequencesReplaced == 0 && invisibleCharactersRemoved == 0;
    }

    /** The changes in words, such as {@code "120 bytes cut at the output limit, 1 control character replaced"}. */
    public String describe() {
      List<String> parts = new ArrayList<>();
      if (bytesDropped > 0) {
        parts.add(bytesDropped + (bytesDropped == 1 ? " byte" : " bytes") + " cut at the output limit");
      }
      add(parts, escapeSequencesRemoved, "terminal escape sequence", "removed");
      add(parts, controlCharactersReplaced, "control character", "replaced");
      add(parts, invalidSequencesReplaced, "invalid UTF-8 sequence", "replaced");
      add(parts, invisibleCharactersRemoved, "invisible formatting character", "removed");
      return parts.isEmpty() ? "unchanged" : String.join(", ", parts);
    }

    private static void add(List<String> parts, int n, String what, String verb) {
      if (n > 0) {
        parts.add(n + " " + what + (n == 1 ? " " : "s ") + verb);
      }
    }
  }
}
