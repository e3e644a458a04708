package org.polyglotsandbox.internal.tools;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
import java.util.ArrayList;
import java.util.List;

/**
 * A JSON Schema, checked against its meta-schema when it is built and compiled once. Draft 2020-12
 * unless the schema names another draft in {@code $schema}. Remote {@code $ref}s are never fetched.
 */
public final class ToolSchema {
  static final ObjectMapper JSON = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();
  private static final SpecificationVersion DRAFT = SpecificationVersion.DRAFT_2020_12;
  private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(DRAFT,
      b -> b.schemaLoader(l -> l.fetchRemoteResources(false))
          .schemaRegistryConfig(SchemaRegistryConfig.builder().pathType(PathType.JSON_PATH).build()));
  private static final int MAX_VIOLATIONS = 5;

  private final String text;
  private final JsonNode node;
  private final Schema schema;

  private ToolSchema(String text, JsonNode node, Schema schema) {
    this.text = text;
    this.node = node;
    this.schema = schema;
  }

  /**
   * Parses and checks a schema.
   *
   * @param what how messages name it, such as {@code "tool 'kv.get': parameters schema"}
   * @throws IllegalArgumentException if it is not JSON, breaks its meta-schema, or cannot be compiled
   */
  public static ToolSchema parse(String json, String what) {
    JsonNode node;
    try {
      node = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(what + " is not valid JSON: "
          + String.valueOf(e.getOriginalMessage()).lines().findFirst().orElse(""));
    }
    if (node == null || !(node.isObject() || node.isBoolean())) {
      throw new IllegalArgumentException(what + " must be a JSON object (or true/false), not " + abbreviate(json));
    }
    try {
      String dialect = node.path("$schema").asText(DRAFT.getDialectId());
      Schema meta = REGISTRY.getSchema(SchemaLocation.of(dialect));
      List<String> problems = describe(meta.validate(node));
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(what + " is not a valid JSON Schema: " + String.join("; ", problems));
      }
      Schema schema = REGISTRY.getSchema(node);
      schema.initializeValidators(); // resolves every $ref now, not at the first call
      return new ToolSchema(json, node, schema);
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(what + " cannot be compiled: " + e.getMessage(), e);
    }
  }

  /** The schema as it was given. */
  public String text() {
    return text;
  }

  /** What is wrong with {@code instance}, each as {@code "$.path: message"}; empty if it is valid. */
  public List<String> violations(JsonNode instance) {
    return describe(schema.validate(instance));
  }

  /** One way an instance breaks the schema: where (a JSONPath such as {@code $.rows[3].price}) and what. */
  public record Violation(String path, String message) {}

  /** What is wrong with {@code instance}, all of it, in the validator's order; empty if it is valid. */
  public List<Violation> check(JsonNode instance) {
    List<Violation> out = new ArrayList<>();
    for (Error e : schema.validate(instance)) {
      String where = where(e);
      String message = e.getMessage();
      if (message.startsWith(where + ": ")) {
        message = message.substring(where.length() + 2);
      } else if (message.startsWith(where + " ")) {
        message = message.substring(where.length() + 1);
      }
      out.add(new Violation(where, message));
    }
    return out;
  }

  /** Whether the schema's top level says {@code "type": "object"}. */
  public static boolean describesObject(ToolSchema s) {
    return s.node.isObject() && "object".equals(s.node.path("type").asText(null));
  }

  private static List<String> describe(List<Error> errors) {
    List<String> out = new ArrayList<>();
    for (Error e : errors) {
      if (out.size() == MAX_VIOLATIONS) {
        out.add("and " + (errors.size() - MAX_VIOLATIONS) + " more");
        break;
      }
      String where = where(e);
      String message = e.getMessage();
      out.add(message.startsWith(where) ? message : where + ": " + message);
    }
    return out;
  }

  private static String where(Error e) {
    return e.getInstanceLocation() == null || e.getInstanceLocation().toString().isEmpty()
        ? "$" : e.getInstanceLocation().toString();
  }

  private static String abbreviate(String s) {
    String t = s.strip();
    return t.length() > 40 ? t.substring(0, 40) + "..." : t;
  }
}
