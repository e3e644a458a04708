package org.polyglotsandbox.internal.boundary;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * Turns a run's inputs into JSON text, which the guest's own JSON parser turns into fresh guest
 * values: no host object, proxy or collection ever crosses into the guest this way.
 */
public final class InputEncoder {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_DEPTH = 64;

  private InputEncoder() {}

  /**
   * Encodes one input value.
   *
   * @throws IllegalArgumentException naming the input and the path of a value that is not plain data
   */
  public static String toJson(String name, Object value) {
    check(value, name, 0);
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("input '" + name + "' cannot be encoded: " + e.getOriginalMessage(), e);
    }
  }

  private static void check(Object v, String path, int depth) {
    if (depth > MAX_DEPTH) {
      throw new IllegalArgumentException("input " + path + " nests deeper than " + MAX_DEPTH + " levels");
    }
    if (v == null || v instanceof Boolean || v instanceof CharSequence) {
      return;
    }
    if (v instanceof Double d && (d.isNaN() || d.isInfinite()) || v instanceof Float f && (f.isNaN() || f.isInfinite())) {
      throw new IllegalArgumentException("input " + path + " is " + v + ", which JSON cannot carry");
    }
    if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long
        || v instanceof Float || v instanceof Double || v instanceof BigInteger || v instanceof BigDecimal) {
      return;
    }
    if (v instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        check(list.get(i), path + "[" + i + "]", depth + 1);
      }
      return;
    }
    if (v instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String key)) {
          throw new IllegalArgumentException("input " + path + " has a non-string key: " + e.getKey());
        }
        check(e.getValue(), path + "." + key, depth + 1);
      }
      return;
    }
    throw new IllegalArgumentException("input " + path + " is a " + v.getClass().getSimpleName()
        + "; only null, booleans, numbers, strings, lists and maps with string keys are accepted");
  }
}
