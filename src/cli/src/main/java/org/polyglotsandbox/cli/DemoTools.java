package org.polyglotsandbox.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.ToolException;

/**
 * The demonstration tools a policy file can allow, so samples can show tool use without Java:
 *
 * <ul>
 *   <li>{@code clock}: no arguments; returns {@code {"utc": "2026-11-29T20:00:00Z", "epochMillis": ...}}.
 *   <li>{@code kv.get}: {@code {key}}; the value stored under {@code key}, or null.
 *   <li>{@code kv.put}: {@code {key, value}}; stores any JSON value, returns {@code {"keys": n}}. An
 *       in-memory store of at most {@value #MAX_KEYS} keys per run: each run starts with an empty one,
 *       and no run reads another's (they are kept by {@link Tool.Call#runId()} and dropped by {@link
 *       RunStores#runEnded}).
 *   <li>{@code lookup}: {@code {key}}; the top-level entry {@code key} of a host JSON object file read
 *       when the sandbox starts, or null.
 * </ul>
 *
 * <p>All four work in memory and never block for long, so they are {@linkplain Tool.Builder#inline()
 * inline}: their handlers run on the guest's thread.
 */
public final class DemoTools {
  /** The names a policy file may list. */
  public static final List<String> NAMES = List.of("clock", "kv.get", "kv.put", "lookup");
  static final int MAX_KEYS = 1000;
  static final long MAX_LOOKUP_FILE_BYTES = 16L << 20;

  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final String KEY = """
      {"type": "string", "minLength": 1, "maxLength": 128}""";

  /**
   * Any JSON value, one branch per type: a bare {@code {}} says the same but reads to schema checkers as
   * a schema nobody wrote.
   */
  private static final String ANY_JSON = """
      {"anyOf": [{"type": "object"}, {"type": "array"}, {"type": "string"}, {"type": "number"}, {"type": "boolean"},\
       {"type": "null"}], "description": "Any JSON value; null removes the key."}""";

  private DemoTools() {}

  /**
   * The {@code kv} stores of the runs under way, one per run id. A store is made at a run's first kv
   * call and dropped by {@link #runEnded}; a sandbox that serves many runs calls it with each ended run's
   * id. Should that call never come (a run whose end nobody reports), at most {@value #MAX_RUNS} stores
   * are kept, the least recently used dropped first.
   */
  public static final class RunStores {
    static final int MAX_RUNS = 64;

    private final Map<String, Map<String, Object>> byRun = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Map<String, Object>> eldest) {
        return size() > MAX_RUNS;
      }
    };

    /** Drops the store of the run {@code runId}, if it has one. */
    public synchronized void runEnded(String runId) {
      byRun.remove(runId);
    }

    synchronized Object get(String runId, String key) {
      Map<String, Object> store = byRun.get(runId);
      return store == null ? null : store.get(key);
    }

    synchronized int put(String runId, String key, Object value) throws ToolException {
      Map<String, Object> store = byRun.computeIfAbsent(runId, id -> new HashMap<>());
      if (store.size() >= MAX_KEYS && !store.containsKey(key)) {
        throw new ToolException("the store is full (" + MAX_KEYS + " keys)");
      }
      if (value == null) {
        store.remove(key);
      } else {
        store.put(key, value); // already an immutable copy
      }
      return store.size();
    }

    synchronized int runs() {
      return byRun.size();
    }
  }

  /**
   * Builds the named tools, with {@code kv} stores of their own that are never dropped before the least
   * recently used of {@value RunStores#MAX_RUNS} runs: enough for one run ({@code bin/sandbox run}).
   *
   * @see #create(Collection, Path, Clock, RunStores)
   */
  public static List<Tool> create(Collection<String> names, Path lookupFile, Clock clock) {
    return create(names, lookupFile, clock, new RunStores());
  }

  /**
   * Builds the named tools; the {@code kv} tools among them keep each run's keys in {@code stores}.
   *
   * @param lookupFile the JSON object file {@code lookup} reads; required if {@code lookup} is named
   * @throws IllegalArgumentException if a name is not a demo tool, or the lookup file is missing or not
   *     a JSON object
   */
  public static List<Tool> create(Collection<String> names, Path lookupFile, Clock clock, RunStores stores) {
    Objects.requireNonNull(stores, "stores");
    List<Tool> out = new ArrayList<>();
    for (String name : names) {
      out.add(switch (name) {
        case "clock" -> Tool.builder("clock")
            .description("The current time in UTC.")
            .result("""
                {"type": "object", "required": ["utc", "epochMillis"],
                 "properties": {"utc": {"type": "string"}, "epochMillis": {"type": "integer"}}}""")
            .handler(args -> Map.of("utc", clock.instant().toString(), "epochMillis", clock.millis()))
            .inline()
            .build();
        case "kv.get" -> Tool.builder("kv.get")
            .description("Reads a value from the in-memory key-value store; null if absent.")
            .parameters("{\"type\": \"object\", \"properties\": {\"key\": " + KEY + "}, \"required\": [\"key\"],"
                + " \"additionalProperties\": false}")
            .handler((args, call) -> stores.get(call.runId(), (String) args.get("key")))
            .inline()
            .build();
        case "kv.put" -> Tool.builder("kv.put")
            .description("Stores a JSON value in the in-memory key-value store.")
            .parameters("{\"type\": \"object\", \"properties\": {\"key\": " + KEY + ", \"value\": " + ANY_JSON + "},"
                + " \"required\": [\"key\", \"value\"], \"additionalProperties\": false}")
            .handler((args, call) -> Map.of("keys", stores.put(call.runId(), (String) args.get("key"),
                args.get("value"))))
            .inline()
            .build();
        case "lookup" -> lookup(lookupFile);
        default -> throw new IllegalArgumentException("'" + name + "' is not a demo tool (known: "
            + String.join(", ", NAMES) + ")");
      });
    }
    return List.copyOf(out);
  }

  /**
   * Arguments that satisfy a demo tool's parameter schema, for the escape probe's calls: {@code {key}}
   * for {@code kv.get} and {@code lookup}, {@code {key, value}} for {@code kv.put}, none otherwise.
   */
  static Map<String, Object> sampleArguments(String name) {
    return switch (name) {
      case "kv.get", "lookup" -> Map.of("key", "audit");
      case "kv.put" -> Map.of("key", "audit", "value", 1L);
      default -> Map.of();
    };
  }

  private static Tool lookup(Path file) {
    Objects.requireNonNull(file, "the lookup tool needs a file");
    Map<String, Object> entries;
    try {
      if (Files.size(file) > MAX_LOOKUP_FILE_BYTES) {
        throw new IllegalArgumentException(file + " is larger than " + MAX_LOOKUP_FILE_BYTES + " bytes");
      }
      JsonNode root = JSON.readTree(file.toFile());
      if (root == null || !root.isObject()) {
        throw new IllegalArgumentException(file + " is not a JSON object ({\"key\": value, ...})");
      }
      entries = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> e : root.properties()) {
        entries.put(e.getKey(), JSON.treeToValue(e.getValue(), Object.class));
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(file + " cannot be read as JSON: " + e.getMessage(), e);
    }
    return Tool.builder("lookup")
        .description("Looks up an entry of a reference JSON file by key; null if absent.")
        .parameters("{\"type\": \"object\", \"properties\": {\"key\": " + KEY + "}, \"required\": [\"key\"],"
            + " \"additionalProperties\": false}")
        .handler(args -> entries.get((String) args.get("key")))
        .inline()
        .build();
  }
}
