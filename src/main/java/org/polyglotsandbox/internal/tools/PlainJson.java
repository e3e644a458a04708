package org.polyglotsandbox.internal.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;

/**
 * Turns plain Java data (what the copier produces, what handlers return) into a JSON tree, refusing
 * everything else: no bean introspection, no {@code toString()} of unknown types, bounded in depth and
 * size so a cyclic host structure fails instead of overflowing the stack.
 */
final class PlainJson {
  /** A value that is not plain data, or too large or deep. */
  static final class NotPlainException extends Exception {
    private static final long serialVersionUID = 1L;

    NotPlainException(String message) {
      super(message, null, false, false);
    }
  }

  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

  private final int maxDepth;
  private final int maxNodes;
  private int nodes;

  private PlainJson(int maxDepth, int maxNodes) {
    this.maxDepth = maxDepth;
    this.maxNodes = maxNodes;
  }

  static JsonNode toTree(Object value, int maxDepth, int maxNodes) throws NotPlainException {
    return new PlainJson(maxDepth, maxNodes).tree(value, 0);
  }

  private JsonNode tree(Object v, int depth) throws NotPlainException {
    if (++nodes > maxNodes) {
      throw new NotPlainException("it holds more than " + maxNodes + " values");
    }
    if (v == null) {
      return NODES.nullNode();
    }
    if (v instanceof String s) {
      return NODES.textNode(s);
    }
    if (v instanceof Boolean b) {
      return NODES.booleanNode(b);
    }
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return NODES.numberNode(((Number) v).longValue());
    }
    if (v instanceof BigInteger i) {
      return NODES.numberNode(i);
    }
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (!Double.isFinite(d)) {
        throw new NotPlainException("it holds " + d + ", which JSON cannot represent");
      }
      return NODES.numberNode(d);
    }
    if (v instanceof BigDecimal d) {
      return NODES.numberNode(d);
    }
    if (v instanceof Character c) {
      return NODES.textNode(c.toString());
    }
    if (depth >= maxDepth) {
      throw new NotPlainException("it nests deeper than " + maxDepth + " levels (or is cyclic)");
    }
    if (v instanceof Map<?, ?> map) {
      ObjectNode o = NODES.objectNode();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String key)) {
          throw new NotPlainException("it holds a map with a key that is not a string");
        }
        o.set(key, tree(e.getValue(), depth + 1));
      }
      return o;
    }
    if (v instanceof Collection<?> list) {
      ArrayNode a = NODES.arrayNode();
      for (Object e : list) {
        a.add(tree(e, depth + 1));
      }
      return a;
    }
    // Host objects, arrays, records, Optionals, streams: never handed to a guest, never described.
    throw new NotPlainException("it holds a value that is not plain data");
  }
}
