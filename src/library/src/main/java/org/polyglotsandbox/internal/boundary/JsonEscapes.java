package org.polyglotsandbox.internal.boundary;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import java.util.function.IntPredicate;

/**
 * Jackson character escapes for JSON that must also be safe as text: besides the C0 controls Jackson
 * escapes already, DEL and every character {@code escaped} selects are written as JSON
 * {@code \}{@code uXXXX} escapes, so the JSON stays valid and the text holds none of them raw.
 */
public final class JsonEscapes extends CharacterEscapes {
  private static final long serialVersionUID = 1L;
  private final int[] ascii = standardAsciiEscapesForJSON();
  private final transient IntPredicate escaped;

  /** @param escaped the UTF-16 code units to escape beyond Jackson's standard set */
  public JsonEscapes(IntPredicate escaped) {
    this.escaped = escaped;
    ascii[0x7f] = ESCAPE_STANDARD;
  }

  @Override
  public int[] getEscapeCodesForAscii() {
    return ascii;
  }

  @Override
  public SerializableString getEscapeSequence(int ch) {
    return escaped.test(ch) ? new SerializedString(String.format("\\u%04X", ch)) : null;
  }
}
