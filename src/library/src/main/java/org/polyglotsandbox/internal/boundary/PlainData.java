package org.polyglotsandbox.internal.boundary;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The one model of plain data, the only kind of value that crosses the boundary in either direction:
 * null, booleans, numbers, strings, lists and maps with string keys.
 *
 * <p>Host-supplied values (inputs, tool results, what the copier made of a guest value) are written as
 * JSON here, and nothing else is: no bean introspection, no {@code toString()} of unknown types, and a
 * depth and value bound so that a cyclic host structure fails instead of overflowing the stack. JSON
 * text (schemas, tool results' wire form) is read back here into the same model. What counts as plain
 * data on the host: {@code null}, {@link Boolean}, {@link CharSequence}, {@link Character}, the boxed
 * integer types, {@link BigInteger}, {@link Float}, {@link Double}, {@link BigDecimal}, {@link Map} with
 * {@link String} keys and {@link Collection}. What it reads: {@code null}, {@link Boolean}, {@link String},
 * {@link Long}, {@link BigInteger}, {@link Double} (or {@link BigDecimal} where asked), {@link List} and
 * {@link Map}.
 */
public final class PlainData {
  /**
   * How a value is written: its bounds (nesting, values, characters of strings and keys), what happens
   * to NaN and the infinities, extra escapes.
   */
  public record Format(int maxDepth, int maxValues, long maxChars, boolean nonFiniteAsString,
      CharacterEscapes escapes) {
    /** Strict: NaN and the infinities are refused, standard escapes, no bound on characters. */
    public static Format strict(int maxDepth, int maxValues) {
      return new Format(maxDepth, maxValues, Long.MAX_VALUE, false, null);
    }

    /** With at most {@code chars} characters in all of its strings and keys together. */
    public Format withMaxChars(long chars) {
      return new Format(maxDepth, maxValues, chars, nonFiniteAsString, escapes);
    }

    /**
     * For showing a value that is already bounded: NaN and the infinities as strings, and every character
     * {@link TextSanitizer#isForbidden} escaped, so that the JSON is also safe as text on a terminal, in a
     * log or in a model's context.
     */
    public static Format textSafe() {
      return strict(Integer.MAX_VALUE, Integer.MAX_VALUE).withNonFiniteAsStrings()
          .withEscapes(new JsonEscapes(TextSanitizer::isForbidden));
    }

    /** NaN and the infinities written as the strings "NaN", "Infinity", "-Infinity". */
    public Format withNonFiniteAsStrings() {
      return new Format(maxDepth, maxValues, maxChars, true, escapes);
    }

    /** With {@code escapes} applied to every string. */
    public Format withEscapes(CharacterEscapes e) {
      return new Format(maxDepth, maxValues, maxChars, nonFiniteAsString, e);
    }
  }

  /** What kind of JSON value {@code v} is, as a message names it: "a string", "an array", "null". */
  public static String kindOf(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof CharSequence) {
      return "a string";
    }
    if (v instanceof Boolean) {
      return "a boolean";
    }
    if (v instanceof Number) {
      return "a number";
    }
    if (v instanceof List<?>) {
      return "an array";
    }
    if (v instanceof java.util.Map<?, ?>) {
      return "an object";
    }
    return "a value of another kind";
  }

  /** The kinds a plain value may be, as messages name them. */
  public static final String KINDS = "null, booleans, numbers, strings, lists and maps with string keys";

  private static final JsonFactory JSON = JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");
  private static final int KEY_SHOWN = 40;
  /** A path longer than twice this many segments is shown with its middle elided. */
  private static final int PATH_ENDS = 8;

  private final Format format;
  private final JsonGenerator out;
  private final List<Object> path = new ArrayList<>();
  private int values;
  private long chars;

  private PlainData(Format format, JsonGenerator out) {
    this.format = format;
    this.out = out;
  }

  /**
   * Writes {@code value} as JSON.
   *
   * @throws NotPlainDataException naming the path ({@code $.rows[3]}) of the first value that is not
   *     plain data, or where a bound was passed
   */
  public static String toJson(Object value, Format format) {
    StringWriter text = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(text)) {
      if (format.escapes() != null) {
        g.setCharacterEscapes(format.escapes());
      }
      new PlainData(format, g).write(value, 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return text.toString();
  }

  /**
   * Reads one JSON value: objects as insertion-ordered maps, integers as {@link Long} or
   * {@link BigInteger}, other numbers as {@link Double}, or {@link BigDecimal} when {@code exactDecimals}.
   *
   * @throws IllegalArgumentException if the text is not one JSON value, or repeats a key
   */
  public static Object parse(String json, boolean exactDecimals) {
    try (JsonParser p = JSON.createParser(json)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new IllegalArgumentException("no JSON value");
      }
      Object v = read(p, exactDecimals);
      if (p.nextToken() != null) {
        throw new IllegalArgumentException("more than one JSON value (at line " + p.currentLocation().getLineNr()
            + ", column " + p.currentLocation().getColumnNr() + ")");
      }
      return v;
    } catch (IOException e) {
      String message = e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage()
          : e.getMessage();
      throw new IllegalArgumentException(String.valueOf(message).lines().findFirst().orElse(""), e);
    }
  }

  /**
   * One JSON value as a flat tape for guest code that builds it itself (the Python tool wrapper, where
   * reading JSON text with {@code _json}'s scanner costs about 40 us for a two-key map): element 0 is a
   * string with one character per token ({@code {} []} for objects and arrays, {@code k} a key,
   * {@code s} a string, {@code i} an integer that fits a {@code long}, {@code B} a larger integer as its
   * decimal text, {@code f} a finite double, {@code t} true, {@code F} false, {@code n} null), and the
   * elements after it are the keys and values that carry data, in order: a new list the caller may keep
   * and change. Null if the value has more than {@code maxTokens} tokens (the caller then hands over the
   * JSON text).
   *
   * @param json one JSON value, already checked by {@link #toJson} against the caller's bounds
   */
  public static List<Object> tape(String json, int maxTokens) {
    StringBuilder kinds = new StringBuilder();
    List<Object> data = new ArrayList<>();
    data.add(null);
    try (JsonParser p = JSON.createParser(json)) {
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        if (kinds.length() == maxTokens) {
          return null;
        }
        switch (t) {
          case START_OBJECT -> kinds.append('{');
          case END_OBJECT -> kinds.append('}');
          case START_ARRAY -> kinds.append('[');
          case END_ARRAY -> kinds.append(']');
          case FIELD_NAME -> {
            kinds.append('k');
            data.add(p.currentName());
          }
          case VALUE_STRING -> {
            kinds.append('s');
            data.add(p.getText());
          }
          case VALUE_NUMBER_INT -> {
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
              kinds.append('B');
              data.add(p.getText());
            } else {
              kinds.append('i');
              data.add(p.getLongValue());
            }
          }
          case VALUE_NUMBER_FLOAT -> {
            kinds.append('f');
            data.add(p.getDoubleValue());
          }
          case VALUE_TRUE -> kinds.append('t');
          case VALUE_FALSE -> kinds.append('F');
          case VALUE_NULL -> kinds.append('n');
          default -> throw new IllegalArgumentException("unexpected " + t);
        }
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("not one JSON value", e);
    }
    data.set(0, kinds.toString());
    return data;
  }

  /**
   * A JSONPath for the first {@code count} segments (keys as strings, indexes as numbers), such as
   * {@code $.rows[3].price}; odd keys are quoted and shortened, long paths elided in the middle.
   */
  public static String path(List<Object> segments, int count) {
    StringBuilder b = new StringBuilder("$");
    for (int i = 0; i < count; i++) {
      if (count > 2 * PATH_ENDS && i == PATH_ENDS) {
        b.append("\u2026(").append(count - 2 * PATH_ENDS).append(" more)\u2026");
        i = count - PATH_ENDS - 1;
        continue;
      }
      Object s = segments.get(i);
      if (s instanceof String key) {
        if (IDENTIFIER.matcher(key).matches() && key.length() <= KEY_SHOWN) {
          b.append('.').append(key);
        } else {
          b.append("['")
              .append(TextSanitizer.oneLine(key.replace("\\", "\\\\").replace("'", "\\'"), KEY_SHOWN))
              .append("']");
        }
      } else {
        b.append('[').append(s).append(']');
      }
    }
    return b.toString();
  }

  private static Object read(JsonParser p, boolean exactDecimals) throws IOException {
    switch (p.currentToken()) {
      case START_OBJECT -> {
        Map<String, Object> m = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          p.nextToken();
          m.put(key, read(p, exactDecimals));
        }
        return m;
      }
      case START_ARRAY -> {
        List<Object> l = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          l.add(read(p, exactDecimals));
        }
        return l;
      }
      case VALUE_STRING -> {
        return p.getText();
      }
      case VALUE_NUMBER_INT -> {
        return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue() : p.getLongValue();
      }
      case VALUE_NUMBER_FLOAT -> {
        return exactDecimals ? p.getDecimalValue() : p.getDoubleValue();
      }
      case VALUE_TRUE -> {
        return Boolean.TRUE;
      }
      case VALUE_FALSE -> {
        return Boolean.FALSE;
      }
      case VALUE_NULL -> {
        return null;
      }
      default -> throw new IllegalArgumentException("unexpected " + p.currentToken());
    }
  }

  private void write(Object v, int depth) throws IOException {
    if (++values > format.maxValues()) {
      throw new NotPlainDataException("$", "holds more than " + format.maxValues() + " values"); // the whole value
    }
    if (v == null) {
      out.writeNull();
    } else if (v instanceof CharSequence s) {
      count(s.length());
      out.writeString(s.toString());
    } else if (v instanceof Character c) {
      out.writeString(c.toString());
    } else if (v instanceof Boolean b) {
      out.writeBoolean(b);
    } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      out.writeNumber(((Number) v).longValue());
    } else if (v instanceof BigInteger i) {
      out.writeNumber(i);
    } else if (v instanceof BigDecimal d) {
      if (Double.isInfinite(d.doubleValue())) {
        // Both guests' JSON parsers would read it as an infinity, which JSON cannot carry either.
        throw fail("is " + d + ", beyond the range of a double: a guest would read it as Infinity");
      }
      out.writeNumber(d);
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isFinite(d)) {
        out.writeNumber(d);
      } else if (format.nonFiniteAsString()) {
        out.writeString(Double.toString(d));
      } else {
        throw fail("is " + d + ", which JSON cannot carry");
      }
    } else if (depth >= format.maxDepth() && (v instanceof Map || v instanceof Collection)) {
      throw fail("nests deeper than " + format.maxDepth() + " levels (or is cyclic)");
    } else if (v instanceof Map<?, ?> map) {
      out.writeStartObject();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String key)) {
          throw fail("is a map with a key that is not a string");
        }
        count(key.length());
        out.writeFieldName(key);
        path.add(key);
        write(e.getValue(), depth + 1);
        path.remove(path.size() - 1);
      }
      out.writeEndObject();
    } else if (v instanceof Collection<?> list) {
      out.writeStartArray();
      long i = 0;
      for (Object e : list) {
        path.add(i++);
        write(e, depth + 1);
        path.remove(path.size() - 1);
      }
      out.writeEndArray();
    } else {
      // Host objects, arrays, records, Optionals, streams: never handed to a guest, never described.
      throw fail("is a " + typeName(v.getClass()) + "; only " + KINDS + " are plain data");
    }
  }

  /** The simple name, or for an anonymous or local class the name of what it extends, such as {@code Number}. */
  private static String typeName(Class<?> c) {
    Class<?> named = c;
    while (named.getSimpleName().isEmpty() && named.getSuperclass() != null) {
      named = named.getSuperclass();
    }
    return named.getSimpleName() + (named == c ? "" : " subclass");
  }

  private void count(int length) {
    chars += length;
    if (chars > format.maxChars()) {
      throw new NotPlainDataException("$", "holds more than " + format.maxChars() + " characters of text");
    }
  }

  private NotPlainDataException fail(String problem) {
    return new NotPlainDataException(path(path, path.size()), problem);
  }
}
