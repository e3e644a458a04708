package org.polyglotsandbox.internal.boundary;

import dev.harrel.jsonschema.Error;
import dev.harrel.jsonschema.InvalidSchemaException;
import dev.harrel.jsonschema.JsonNode;
import dev.harrel.jsonschema.JsonNodeFactory;
import dev.harrel.jsonschema.JsonSchemaException;
import dev.harrel.jsonschema.SchemaResolver;
import dev.harrel.jsonschema.SimpleType;
import dev.harrel.jsonschema.Validator;
import dev.harrel.jsonschema.ValidatorFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON Schema (draft 2020-12 unless {@code $schema} names another draft), checked against its
 * meta-schema when it is parsed, then applied to {@link PlainData plain data} as it is, without a
 * JSON tree library in between. Remote {@code $ref}s are never fetched: a schema that points outside
 * itself is refused when it is parsed.
 *
 * <p>Violations name the failing value by JSONPath ({@code $.rows[3].price}), like every other
 * message of the boundary.
 */
public final class JsonSchema {
  private static final int MAX_VIOLATIONS = 5;
  private static final JsonNodeFactory NODES = new PlainNodes();

  private final String text;
  private final Object tree;
  private final Validator validator;
  private final URI uri;

  private JsonSchema(String text, Object tree, Validator validator, URI uri) {
    this.text = text;
    this.tree = tree;
    this.validator = validator;
    this.uri = uri;
  }

  /**
   * Parses and checks a schema.
   *
   * @param what how messages name it, such as {@code "tool 'kv.get': parameters schema"}
   * @throws IllegalArgumentException if it is not JSON, breaks its meta-schema, or refers outside itself
   */
  public static JsonSchema parse(String json, String what) {
    Object tree;
    try {
      tree = PlainData.parse(json, true);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + " is not valid JSON: " + e.getMessage());
    }
    if (!(tree instanceof Map || tree instanceof Boolean)) {
      throw new IllegalArgumentException(what + " must be a JSON object (or true/false), not " + abbreviate(json));
    }
    String outside = firstRemoteReference(tree);
    if (outside != null) {
      throw new IllegalArgumentException(what + " cannot be compiled: $ref '" + abbreviate(outside)
          + "' points outside the schema, and remote schemas are never fetched");
    }
    Validator validator = new ValidatorFactory()
        .withJsonNodeFactory(NODES)
        .withSchemaResolver(uri -> SchemaResolver.Result.empty())
        .createValidator();
    try {
      URI uri = validator.registerSchema(tree);
      JsonSchema schema = new JsonSchema(json, tree, validator, uri);
      schema.validator.validate(uri, (Object) null); // resolves the local references now, not at the first call
      return schema;
    } catch (InvalidSchemaException e) {
      throw new IllegalArgumentException(what + " is not a valid JSON Schema: "
          + String.join("; ", shown(violations(e.getErrors(), tree))));
    } catch (JsonSchemaException | IllegalArgumentException | ClassCastException e) {
      throw new IllegalArgumentException(what + " cannot be compiled: " + e.getMessage(), e);
    }
  }

  /** The schema as it was given. */
  public String text() {
    return text;
  }

  /** Whether the schema's top level says {@code "type": "object"}. */
  public boolean describesObject() {
    return tree instanceof Map<?, ?> m && "object".equals(m.get("type"));
  }

  /** One way an instance breaks the schema: where (a JSONPath such as {@code $.rows[3].price}) and what. */
  public record Violation(String path, String message) {
    @Override
    public String toString() {
      return path + ": " + message;
    }
  }

  /**
   * What is wrong with {@code instance} (plain data), all of it, in the validator's order; empty if it is
   * valid. A value the validator cannot take (a local reference it cannot resolve) is one violation at
   * {@code $}, never an exception.
   */
  public List<Violation> check(Object instance) {
    List<Error> errors;
    try {
      errors = validator.validate(uri, instance).getErrors();
    } catch (JsonSchemaException | ClassCastException e) {
      return List.of(new Violation("$", "the schema cannot be applied: " + e.getMessage()));
    } catch (RuntimeException | StackOverflowError e) {
      // The instance is guest data: a pattern whose matcher recurses per character overflows the stack on
      // a long enough string, and a huge number can defeat arithmetic. The value is refused, not the run.
      return List.of(new Violation("$", "the schema cannot be applied to this value ("
          + (e instanceof StackOverflowError ? "checking it exhausted the stack" : "checking it failed") + ")"));
    }
    return violations(errors, instance);
  }

  /** What is wrong with {@code instance}, each as {@code "$.path: message"}, at most five and a count. */
  public List<String> violations(Object instance) {
    return shown(check(instance));
  }

  /** The validator's errors (of an instance, or of a schema against its meta-schema) as violations. */
  private static List<Violation> violations(List<Error> errors, Object instance) {
    List<Violation> out = new ArrayList<>();
    for (Error e : errors) {
      if (e.getError() != null) {
        out.add(new Violation(jsonPath(e.getInstanceLocation(), instance), message(e)));
      }
    }
    return out;
  }

  /** At most five violations, as {@code "$.path: message"}, and a count of the rest. */
  private static List<String> shown(List<Violation> all) {
    List<String> out = new ArrayList<>();
    for (Violation v : all) {
      if (out.size() == MAX_VIOLATIONS) {
        out.add("and " + (all.size() - MAX_VIOLATIONS) + " more");
        break;
      }
      out.add(v.toString());
    }
    return out;
  }

  /** The validator's message, with its one cryptic wording (a {@code false} subschema) said plainly. */
  private static String message(Error e) {
    if (!"False schema always fails".equals(e.getError())) {
      return e.getError();
    }
    String at = String.valueOf(e.getEvaluationPath());
    return at.endsWith("/additionalProperties") || at.endsWith("/unevaluatedProperties")
        ? "is not a property the schema allows" : "the schema allows no value here";
  }

  /** A JSON pointer ({@code /rows/3/price}) as a JSONPath, telling indexes from keys by the instance. */
  static String jsonPath(String pointer, Object instance) {
    List<Object> segments = new ArrayList<>();
    Object at = instance;
    if (pointer != null && !pointer.isEmpty()) {
      String p = pointer.startsWith("#") ? pointer.substring(1) : pointer;
      for (String raw : p.substring(p.startsWith("/") ? 1 : 0).split("/", -1)) {
        String token = raw.replace("~1", "/").replace("~0", "~");
        if (at instanceof List<?> list && token.matches("\\d{1,9}")) {
          int i = Integer.parseInt(token);
          segments.add((long) i);
          at = i < list.size() ? list.get(i) : null;
        } else {
          segments.add(token);
          at = at instanceof Map<?, ?> m ? m.get(token) : null;
        }
      }
    }
    return PlainData.path(segments, segments.size());
  }

  private static String firstRemoteReference(Object node) {
    if (node instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (("$ref".equals(e.getKey()) || "$dynamicRef".equals(e.getKey())) && e.getValue() instanceof String ref
            && !ref.startsWith("#")) {
          return ref;
        }
        String inner = firstRemoteReference(e.getValue());
        if (inner != null) {
          return inner;
        }
      }
    } else if (node instanceof List<?> l) {
      for (Object e : l) {
        String inner = firstRemoteReference(e);
        if (inner != null) {
          return inner;
        }
      }
    }
    return null;
  }

  private static String abbreviate(String s) {
    String t = s.strip();
    return t.length() > 40 ? t.substring(0, 40) + "..." : t;
  }

  /** Wraps plain data as the validator's nodes; parses schema text with {@link PlainData#parse}. */
  private static final class PlainNodes implements JsonNodeFactory {
    @Override
    public JsonNode wrap(Object node) {
      return node instanceof JsonNode n ? n : new PlainNode(node, "");
    }

    @Override
    public JsonNode create(String rawJson) {
      return new PlainNode(PlainData.parse(rawJson, true), "");
    }
  }

  /** One plain value seen by the validator, with its JSON pointer. */
  private static final class PlainNode implements JsonNode {
    private final Object value;
    private final String pointer;
    private final SimpleType type;

    PlainNode(Object value, String pointer) {
      this.value = value;
      this.pointer = pointer;
      this.type = typeOf(value);
    }

    private static SimpleType typeOf(Object v) {
      if (v == null) {
        return SimpleType.NULL;
      }
      if (v instanceof Boolean) {
        return SimpleType.BOOLEAN;
      }
      if (v instanceof CharSequence || v instanceof Character) {
        return SimpleType.STRING;
      }
      if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte
          || v instanceof BigInteger) {
        return SimpleType.INTEGER;
      }
      if (v instanceof Double || v instanceof Float) {
        double d = ((Number) v).doubleValue();
        return Double.isFinite(d) && d == Math.rint(d) ? SimpleType.INTEGER : SimpleType.NUMBER;
      }
      if (v instanceof BigDecimal d) {
        return d.signum() == 0 || d.stripTrailingZeros().scale() <= 0 ? SimpleType.INTEGER : SimpleType.NUMBER;
      }
      if (v instanceof Map) {
        return SimpleType.OBJECT;
      }
      if (v instanceof Collection) {
        return SimpleType.ARRAY;
      }
      throw new ClassCastException("not plain data: " + v.getClass().getSimpleName());
    }

    @Override
    public String getJsonPointer() {
      return pointer;
    }

    @Override
    public SimpleType getNodeType() {
      return type;
    }

    @Override
    public boolean asBoolean() {
      return (Boolean) value;
    }

    @Override
    public String asString() {
      return value.toString();
    }

    @Override
    public BigInteger asInteger() {
      return value instanceof BigInteger i ? i : asNumber().toBigIntegerExact();
    }

    @Override
    public BigDecimal asNumber() {
      if (value instanceof BigDecimal d) {
        return d;
      }
      if (value instanceof BigInteger i) {
        return new BigDecimal(i);
      }
      if (value instanceof Double || value instanceof Float) {
        return BigDecimal.valueOf(((Number) value).doubleValue());
      }
      return BigDecimal.valueOf(((Number) value).longValue());
    }

    @Override
    public List<JsonNode> asArray() {
      List<JsonNode> out = new ArrayList<>();
      int i = 0;
      for (Object e : (Collection<?>) value) {
        out.add(new PlainNode(e, pointer + "/" + i++));
      }
      return out;
    }

    @Override
    public Map<String, JsonNode> asObject() {
      Map<String, JsonNode> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        String key = String.valueOf(e.getKey());
        out.put(key, new PlainNode(e.getValue(), pointer + "/" + JsonNode.encodeJsonPointer(key)));
      }
      return out;
    }
  }
}
