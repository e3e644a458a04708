package org.polyglotsandbox.internal.boundary;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.polyglotsandbox.SandboxEvent.OutputRejected.Reason;
import org.polyglotsandbox.internal.tools.ToolSchema;

/**
 * Checks a copied-out result (plain data from {@link ValueCopier}) against the script's result schema.
 * Runs on the host after the copy, so the value is already bounded by the result caps.
 */
public final class ResultSchemaCheck {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final int VIOLATIONS_SHOWN = 3;
  private static final int MESSAGE_SHOWN = 200;

  private ResultSchemaCheck() {}

  /**
   * Validates {@code value}.
   *
   * @throws ValueRejectedException naming the first failing path, if the value breaks the schema or
   *     holds a number JSON cannot carry (NaN, an infinity)
   */
  public static void check(ToolSchema schema, Object value) {
    List<Object> segments = new ArrayList<>();
    JsonNode tree = tree(value, segments);
    List<ToolSchema.Violation> violations = schema.check(tree);
    if (violations.isEmpty()) {
      return;
    }
    ToolSchema.Violation first = violations.get(0);
    StringBuilder detail = new StringBuilder("breaks the result schema: ").append(shown(first.message()));
    for (int i = 1; i < violations.size() && i < VIOLATIONS_SHOWN; i++) {
      ToolSchema.Violation v = violations.get(i);
      detail.append(i == 1 ? "; also " : ", ").append(shown(v.path())).append(": ").append(shown(v.message()));
    }
    if (violations.size() > VIOLATIONS_SHOWN) {
      detail.append(" (and ").append(violations.size() - VIOLATIONS_SHOWN).append(" more)");
    }
    String path = shown(first.path());
    throw new ValueRejectedException(Reason.SCHEMA_VIOLATION, path, detail.toString(), path + ": " + detail);
  }

  /** Validator messages can quote the guest's values: keep them one line, sanitised and short. */
  private static String shown(String s) {
    return TextSanitizer.oneLine(s, MESSAGE_SHOWN);
  }

  private static JsonNode tree(Object v, List<Object> segments) {
    if (v == null) {
      return NODES.nullNode();
    }
    if (v instanceof String s) {
      return NODES.textNode(s);
    }
    if (v instanceof Boolean b) {
      return NODES.booleanNode(b);
    }
    if (v instanceof Long l) {
      return NODES.numberNode(l);
    }
    if (v instanceof BigInteger i) {
      return NODES.numberNode(i);
    }
    if (v instanceof Double d) {
      if (!Double.isFinite(d)) {
        String path = ValueCopier.path(segments, segments.size());
        String detail = d + " is not a JSON number, so no result schema can accept it";
        throw new ValueRejectedException(Reason.SCHEMA_VIOLATION, path, detail, path + ": " + detail);
      }
      return NODES.numberNode(d);
    }
    if (v instanceof List<?> list) {
      ArrayNode a = NODES.arrayNode(list.size());
      for (int i = 0; i < list.size(); i++) {
        segments.add((long) i);
        a.add(tree(list.get(i), segments));
        segments.remove(segments.size() - 1);
      }
      return a;
    }
    if (v instanceof Map<?, ?> map) {
      ObjectNode o = NODES.objectNode();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        String key = String.valueOf(e.getKey());
        segments.add(key);
        o.set(key, tree(e.getValue(), segments));
        segments.remove(segments.size() - 1);
      }
      return o;
    }
    // The copier produces nothing else.
    throw new IllegalArgumentException("not plain data: " + v.getClass().getSimpleName());
  }
}
