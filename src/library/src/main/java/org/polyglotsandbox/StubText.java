package org.polyglotsandbox;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the TypeScript and Python stub renderers ({@link ToolStubs}) share: reading JSON Schema keywords,
 * unique type names, literals and comment text that cannot break out of its comment.
 */
final class StubText {
  /** Every line break JavaScript or Python (tokenizer or {@code str.splitlines}) recognises. */
  private static final Pattern LINE_BREAK = Pattern.compile("\\r\\n|[\\n\\r\\u000b\\u000c\\u001c-\\u001e\\u0085\\u2028\\u2029]");
  private static final Pattern OTHER_CONTROL = Pattern.compile("[\\p{Cntrl}&&[^\\n]]");
  /** A ref the renderers resolve: the whole schema or one of its {@code $defs} / {@code definitions}. */
  private static final Pattern LOCAL_REF = Pattern.compile("#(?:/(\\$defs|definitions)/([^/]+))?");

  private StubText() {}

  /**
   * The description of a schema (or, without one, its title) as lines of plain text: line breaks of any
   * kind become line ends, other control characters spaces, blank edges dropped.
   */
  static List<String> docLines(Object schema) {
    if (!(schema instanceof Map<?, ?> m)) {
      return List.of();
    }
    Object d = m.get("description") instanceof String s && !s.isBlank() ? s : m.get("title");
    return d instanceof String s ? lines(s) : List.of();
  }

  static List<String> lines(String text) {
    String t = OTHER_CONTROL.matcher(LINE_BREAK.matcher(text).replaceAll("\n")).replaceAll(" ").strip();
    if (t.isEmpty()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String line : t.split("\n", -1)) {
      out.add(line.stripTrailing());
    }
    return out;
  }

  /**
   * A double-quoted string literal valid in both TypeScript and Python: backslash, quote, control and
   * line-break characters and lone surrogates escaped as {@code \\uXXXX}, everything else as is.
   */
  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean pair = Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
      if (pair) {
        b.append(c).append(s.charAt(++i));
      } else if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20 || c == 0x7f || c == 0x85 || c == '\u2028' || c == '\u2029' || Character.isSurrogate(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  /** {@code kv.get} as {@code KvGet}: each segment capitalised, underscores kept. */
  static String pascal(String name) {
    StringBuilder b = new StringBuilder();
    for (String part : name.split("[^A-Za-z0-9_]+")) {
      if (!part.isEmpty()) {
        b.append(Character.toUpperCase(part.charAt(0))).append(part, 1, part.length());
      }
    }
    String s = b.toString();
    return s.isEmpty() || Character.isDigit(s.charAt(0)) ? "T" + s : s;
  }

  /** The JSON types a schema's {@code type} keyword lists, or none if it has none. */
  static List<String> types(Map<?, ?> schema) {
    Object t = schema.get("type");
    if (t instanceof String s) {
      return List.of(s);
    }
    List<String> out = new ArrayList<>();
    if (t instanceof List<?> l) {
      for (Object o : l) {
        if (o instanceof String s && !out.contains(s)) {
          out.add(s);
        }
      }
    }
    return out;
  }

  /** Whether a schema without a {@code type} still describes an object by its keywords. */
  static boolean looksLikeObject(Map<?, ?> schema) {
    return schema.containsKey("properties") || schema.containsKey("additionalProperties")
        || schema.containsKey("required");
  }

  /** The schema's properties in order, names to subschemas (empty if it has none). */
  @SuppressWarnings("unchecked")
  static Map<String, Object> properties(Map<?, ?> schema) {
    return schema.get("properties") instanceof Map<?, ?> p ? (Map<String, Object>) p : Map.of();
  }

  static Set<String> required(Map<?, ?> schema) {
    Set<String> out = new HashSet<>();
    if (schema.get("required") instanceof List<?> l) {
      for (Object o : l) {
        if (o instanceof String s) {
          out.add(s);
        }
      }
    }
    return out;
  }

  /** {@code additionalProperties}: {@code false}, a schema, or {@code true} when absent. */
  static Object additional(Map<?, ?> schema) {
    Object a = schema.get("additionalProperties");
    return a == null ? Boolean.TRUE : a;
  }

  static boolean closed(Map<?, ?> schema) {
    return Boolean.FALSE.equals(schema.get("additionalProperties"));
  }

  /**
   * What a local {@code $ref} points to: {@code "#"} for the root, the definition's name for
   * {@code #/$defs/NAME} or {@code #/definitions/NAME}, or null for any other (remote, deeper) ref.
   */
  static String[] localRef(Object ref) {
    if (!(ref instanceof String s)) {
      return null;
    }
    var m = LOCAL_REF.matcher(s);
    if (!m.matches()) {
      return null;
    }
    return m.group(1) == null ? new String[] {"#"}
        : new String[] {m.group(1), m.group(2).replace("~1", "/").replace("~0", "~")};
  }

  /** Whether a JSON value can be a literal type in TypeScript (and, but for doubles, in Python). */
  static boolean literal(Object v) {
    return v == null || v instanceof String || v instanceof Boolean || v instanceof Long
        || v instanceof BigInteger || v instanceof Double d && Double.isFinite(d);
  }

  /** One segment of the tool names, as guest code walks them: {@code tools.kv.get} is root, kv, get. */
  static final class Node {
    final String path;
    Tool tool;
    final Map<String, Node> children = new LinkedHashMap<>();

    private Node(String path) {
      this.path = path;
    }

    /** The tree of {@code tools}' dotted names, in the given order. */
    static Node tree(List<Tool> tools) {
      Node root = new Node("");
      for (Tool t : tools) {
        Node n = root;
        for (String segment : t.name().split("\\.")) {
          String path = n.path.isEmpty() ? segment : n.path + "." + segment;
          n = n.children.computeIfAbsent(segment, k -> new Node(path));
        }
        n.tool = t;
      }
      return root;
    }
  }

  /** Type names already taken in one stub file; {@link #unique} hands out fresh ones. */
  static final class Names {
    private final Set<String> taken = new HashSet<>();

    Names(String... reserved) {
      taken.addAll(List.of(reserved));
    }

    String unique(String base) {
      String name = base;
      for (int i = 2; !taken.add(name); i++) {
        name = base + i;
      }
      return name;
    }
  }

  /**
   * One schema document (a tool's parameters or result) and the type names of its local definitions
   * ({@code $defs}, {@code definitions}): each is named when it is first referred to, and declared by
   * {@link #drain} with {@link #declare}, which may refer to more.
   */
  abstract static class Scope {
    final Tool tool;
    final String rootName;
    final Object root;
    private final Names names;
    private final String unknown;
    private final Map<String, String> defNames = new java.util.LinkedHashMap<>();
    private final List<String[]> pending = new ArrayList<>();

    /** @param unknown the stub language's type for a reference that names nothing in the document */
    Scope(Tool tool, String rootName, Object root, Names names, String unknown) {
      this.tool = tool;
      this.rootName = rootName;
      this.root = root;
      this.names = names;
      this.unknown = unknown;
    }

    /** Declares one local definition under its type name; {@code key} is its name in the schema. */
    abstract void declare(String typeName, Object definition, String key);

    /** The type a {@code $ref} names: the root, a local definition (declared later), else the unknown type. */
    final String ref(Object ref) {
      String[] r = localRef(ref);
      if (r == null) {
        return unknown;
      }
      if (r.length == 1) {
        return rootName;
      }
      String key = r[0] + "/" + r[1];
      String known = defNames.get(key);
      if (known != null) {
        return known;
      }
      if (!(root instanceof Map<?, ?> m && m.get(r[0]) instanceof Map<?, ?> defs && defs.containsKey(r[1]))) {
        return unknown;
      }
      String name = names.unique(rootName + pascal(r[1]));
      defNames.put(key, name);
      pending.add(r);
      return name;
    }

    /** Declares the definitions referred to so far, and those they refer to. */
    final void drain() {
      for (int i = 0; i < pending.size(); i++) {
        String[] r = pending.get(i);
        Object def = ((Map<?, ?>) ((Map<?, ?>) root).get(r[0])).get(r[1]);
        declare(defNames.get(r[0] + "/" + r[1]), def, r[1]);
      }
      pending.clear();
    }
  }
}
