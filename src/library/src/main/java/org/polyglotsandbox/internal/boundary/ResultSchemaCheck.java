package org.polyglotsandbox.internal.boundary;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.polyglotsandbox.SandboxEvent.OutputRejected.Reason;

/**
 * Checks a copied-out result (plain data from {@link ValueCopier}) against the script's result schema.
 * Runs on the host after the copy, so the value is already bounded by the result caps.
 */
public final class ResultSchemaCheck {
  private static final int VIOLATIONS_SHOWN = 3;
  private static final int MESSAGE_SHOWN = 200;

  private ResultSchemaCheck() {}

  /**
   * Validates {@code value}.
   *
   * @throws ValueRejectedException naming the first failing path, if the value breaks the schema or
   *     holds a number JSON cannot carry (NaN, an infinity)
   */
  public static void check(JsonSchema schema, Object value) {
    requireFinite(value, new ArrayList<>());
    List<JsonSchema.Violation> violations = schema.check(value);
    if (violations.isEmpty()) {
      return;
    }
    JsonSchema.Violation first = violations.get(0);
    StringBuilder detail = new StringBuilder("breaks the result schema: ").append(shown(first.message()));
    for (int i = 1; i < violations.size() && i < VIOLATIONS_SHOWN; i++) {
      JsonSchema.Violation v = violations.get(i);
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

  /** NaN and the infinities are plain data in a result but no JSON number: name where one is. */
  private static void requireFinite(Object v, List<Object> segments) {
    if (v instanceof Double d && !Double.isFinite(d)) {
      String path = PlainData.path(segments, segments.size());
      String detail = d + " is not a JSON number, so no result schema can accept it";
      throw new ValueRejectedException(Reason.SCHEMA_VIOLATION, path, detail, path + ": " + detail);
    }
    if (v instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        segments.add((long) i);
        requireFinite(list.get(i), segments);
        segments.remove(segments.size() - 1);
      }
    } else if (v instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        segments.add(String.valueOf(e.getKey()));
        requireFinite(e.getValue(), segments);
        segments.remove(segments.size() - 1);
      }
    }
  }
}
