package org.polyglotsandbox;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.polyglotsandbox.internal.boundary.PlainData;

/** Renders tools as a Python stub file; see {@link ToolStubs#python}. */
final class PythonStubs {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Set<String> KEYWORDS = Set.of("False", "None", "True", "and", "as", "assert", "async",
      "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
      "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
      "while", "with", "yield");
  /** Names the stub file imports or defines itself; a field of one of these names uses the functional syntax. */
  private static final String[] OWN = {"Any", "Literal", "NoReturn", "NotRequired", "TypeAlias", "TypedDict",
      "overload", "ToolError", "Tools", "tools", "list", "dict", "str", "int", "float", "bool", "object"};

  /** The builtins and typing names the stubs use in annotations, which a class member of that name would shadow. */
  private static final List<String> SHADOWABLE = List.of("Any", "Literal", "NoReturn", "NotRequired", "TypeAlias",
      "TypedDict", "overload", "list", "dict", "str", "int", "float", "bool");
  private static final String IMPORTS = "from typing import Any, Literal, NoReturn, NotRequired, TypeAlias, TypedDict,"
      + " overload\n";

  private final StubText.Names names = new StubText.Names(OWN);
  private final StringBuilder decls = new StringBuilder();
  /** The TypedDict each object schema became, so that rendering it again reuses the name. */
  private final Map<Object, String> typedDicts = new java.util.IdentityHashMap<>();

  private PythonStubs() {}

  static String render(List<Tool> tools) {
    Set<String> segments = new java.util.HashSet<>();
    for (Tool t : tools) {
      segments.addAll(List.of(t.name().split("\\.")));
    }
    PythonStubs stubs = new PythonStubs();
    segments.forEach(stubs.names::unique); // no generated type takes a tool's name
    String text = stubs.file(tools);
    return segments.stream().anyMatch(SHADOWABLE::contains) ? unshadowed(text) : text;
  }

  /**
   * The stubs with every builtin and typing name in annotations renamed to a {@code _}-prefixed alias,
   * for tools with a member such as {@code files.list}: inside its class, {@code list[str]} would name the
   * member. Tool names start with a letter, so no member can take the aliases. Names in strings,
   * comments, docstrings, and names being declared ({@code def list}, {@code list: ...}) stay.
   */
  static String unshadowed(String text) {
    StringBuilder out = new StringBuilder(text.length() + 512);
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      if (c == '"') {
        int j = i + 1;
        while (j < n && text.charAt(j) != '"') {
          j += text.charAt(j) == '\\' ? 2 : 1;
        }
        out.append(text, i, Math.min(j + 1, n));
        i = j + 1;
      } else if (c == '#') {
        int j = text.indexOf('\n', i);
        j = j < 0 ? n : j;
        out.append(text, i, j);
        i = j;
      } else if (Character.isLetter(c) || c == '_') {
        int j = i;
        while (j < n && (Character.isLetterOrDigit(text.charAt(j)) || text.charAt(j) == '_')) {
          j++;
        }
        String word = text.substring(i, j);
        boolean declared = j < n && text.charAt(j) == ':' || endsWith(out, "def ") || endsWith(out, "class ")
            || i > 0 && text.charAt(i - 1) == '.';
        out.append(SHADOWABLE.contains(word) && !declared ? "_" + word : word);
        i = j;
      } else {
        out.append(c);
        i++;
      }
    }
    String aliased = out.toString();
    StringBuilder imports = new StringBuilder("from typing import ");
    List<String> typing = List.of("Any", "Literal", "NoReturn", "NotRequired", "TypeAlias", "TypedDict", "overload");
    imports.append(String.join(", ", typing.stream().map(t -> t + " as _" + t).toList())).append('\n');
    for (String b : List.of("list", "dict", "str", "int", "float", "bool")) {
      imports.append('_').append(b).append(" = ").append(b).append('\n');
    }
    String renamedImports = unshadowedImportLine();
    return aliased.replace(renamedImports, imports.toString());
  }

  private static boolean endsWith(StringBuilder b, String suffix) {
    return b.length() >= suffix.length() && b.substring(b.length() - suffix.length()).equals(suffix);
  }

  /** What {@link #unshadowed} makes of the import line before it replaces it. */
  private static String unshadowedImportLine() {
    return "from typing import _Any, _Literal, _NoReturn, _NotRequired, _TypeAlias, _TypedDict, _overload\n";
  }

  /**
   * Whether a property can be a keyword argument: an ASCII identifier, not a keyword, not {@code self}
   * (the wrapper's own parameter) and not starting with {@code __} (mangled inside a class).
   */
  static boolean keywordName(String name) {
    return IDENTIFIER.matcher(name).matches() && !KEYWORDS.contains(name) && !name.equals("self")
        && !name.startsWith("__");
  }

  private String file(List<Tool> tools) {
    StringBuilder out = new StringBuilder();
    out.append("# Python stubs (.pyi) of the host tools this sandbox's guest code may call, generated by\n")
        .append("# polyglot-sandbox from the tools' JSON Schemas.\n# Host tools, ")
        .append(ModelDescription.callingConvention(Language.PYTHON))
        .append(".\n# A tool also takes one dict, tools.NAME({\"key\": value}); a property whose name is not a\n")
        .append("# Python identifier (or is a keyword, \"self\" or starts with \"__\") can only be passed that way.\n")
        .append("# Arguments are still validated against the schemas when called.\n")
        .append(IMPORTS).append("\n\n")
        .append("""
            class ToolError(RuntimeError):
                ""\"A failed tool call, raised by tools.NAME(...).

                A builtin name in every module: except ToolError as e.
                ""\"

                code: str
                ""\"Why: "invalid_arguments", "invalid_result", "denied", "failed", "timeout", "over_budget", "cancelled" or "invalid_call".""\"


            """);
    Map<Tool, List<String>> methods = new LinkedHashMap<>();
    for (Tool t : tools) {
      String base = StubText.pascal(t.name());
      String params = names.unique(base + "Params");
      String result = names.unique(base + "Result");
      Object paramSchema = PlainData.parse(t.parameters(), false);
      Scope ps = new Scope(t, params, paramSchema);
      declare(params, paramSchema, ps, "Arguments of " + t.name() + ".");
      ps.drain();
      if (t.result().isPresent()) {
        Object resultSchema = PlainData.parse(t.result().get(), false);
        Scope rs = new Scope(t, result, resultSchema);
        declare(result, resultSchema, rs, "Result of " + t.name() + ".");
        rs.drain();
      } else {
        decls.append(result).append(": TypeAlias = Any\n\"\"\"Result of ").append(t.name())
            .append(": not described by a schema.\"\"\"\n\n\n");
      }
      methods.put(t, signatures(t, paramSchema, ps, params, result));
    }
    out.append(decls);
    StubText.Node root = StubText.Node.tree(tools);
    List<String> classes = new ArrayList<>();
    nodeClass(root, "Tools", "The host tools, reached as tools.a.b(...).", methods, classes);
    for (String c : classes) {
      out.append(c).append("\n\n");
    }
    out.append("tools: Tools\n\"\"\"The host tools this sandbox allows.\"\"\"\n");
    return out.toString();
  }

  /** A class for one level of dotted names; its nested levels' classes are added to {@code classes} first. */
  private void nodeClass(StubText.Node node, String className, String doc, Map<Tool, List<String>> methods,
      List<String> classes) {
    StringBuilder b = new StringBuilder("class ").append(className).append(":\n");
    docstring(b, "    ", List.of(doc));
    if (node.tool != null) {
      for (String s : methods.get(node.tool)) {
        b.append('\n').append(s.replace("def NAME(", "def __call__("));
      }
    }
    for (StubText.Node child : node.children.values()) {
      String segment = child.path.substring(child.path.lastIndexOf('.') + 1);
      if (child.children.isEmpty()) {
        for (String s : methods.get(child.tool)) {
          b.append('\n').append(s.replace("def NAME(", "def " + segment + "("));
        }
      } else {
        String nested = names.unique("_Tools_" + child.path.replace('.', '_'));
        nodeClass(child, nested, child.tool == null ? "Tools under " + child.path + "."
            : "The tool " + child.path + " and the tools under it.", methods, classes);
        b.append('\n').append("    ").append(segment).append(": ").append(nested).append('\n');
      }
    }
    classes.add(b.toString());
  }

  /** The overloads of one tool as methods named NAME: keyword arguments (if possible) and one dict. */
  private List<String> signatures(Tool t, Object schema, Scope scope, String params, String result) {
    List<String> doc = new ArrayList<>(StubText.lines(t.description()));
    doc.add("Raises ToolError if the call fails.");
    String keywords = null;
    if (schema instanceof Map<?, ?> m) {
      Set<String> required = StubText.required(m);
      List<String> args = new ArrayList<>();
      boolean possible = true;
      for (Map.Entry<String, Object> p : StubText.properties(m).entrySet()) {
        if (!keywordName(p.getKey())) {
          possible &= !required.contains(p.getKey());
          continue;
        }
        String type = type(p.getValue(), params + StubText.pascal(p.getKey()), scope);
        args.add(p.getKey() + ": " + type + (required.contains(p.getKey()) ? "" : " = ..."));
      }
      if (!args.isEmpty()) {
        args.add(0, "*");
      }
      Object extra = StubText.additional(m);
      if (!Boolean.FALSE.equals(extra)) {
        String rest = "extra";
        while (StubText.properties(m).containsKey(rest)) {
          rest += "_";
        }
        args.add("**" + rest + ": " + type(extra, params + "Extra", scope));
      }
      if (possible) {
        keywords = "(self" + (args.isEmpty() ? "" : ", " + String.join(", ", args)) + ") -> " + result;
      }
    }
    scope.drain();
    String dict = "(self, arguments: " + params + ", /) -> " + result;
    StringBuilder d = new StringBuilder();
    docstring(d, "        ", doc);
    if (keywords == null) {
      return List.of("    def NAME" + dict + ":\n" + d);
    }
    return List.of("    @overload\n    def NAME" + keywords + ":\n" + d,
        "    @overload\n    def NAME" + dict + ":\n" + d);
  }

  /** A named declaration: a TypedDict for an object with properties, else a type alias. */
  private void declare(String name, Object schema, Scope scope, String what) {
    List<String> doc = new ArrayList<>(List.of(what));
    doc.addAll(StubText.docLines(schema));
    if (schema instanceof Map<?, ?> m && isPlainObject(m)
        && (!StubText.properties(m).isEmpty() || StubText.closed(m))) {
      typedDict(name, m, scope, doc);
      return;
    }
    String type = type(schema, name + "Value", scope);
    StringBuilder b = new StringBuilder(name).append(": TypeAlias = ").append(type).append('\n');
    docstring(b, "", doc);
    decls.append(b).append("\n\n");
  }

  private static boolean isPlainObject(Map<?, ?> m) {
    List<String> types = StubText.types(m);
    boolean object = types.equals(List.of("object")) || types.isEmpty() && StubText.looksLikeObject(m);
    return object && !m.containsKey("$ref") && !m.containsKey("enum") && !m.containsKey("const")
        && !m.containsKey("anyOf") && !m.containsKey("oneOf") && !m.containsKey("allOf");
  }

  /**
   * A TypedDict, in class syntax when every key can be a field name there, else in the functional syntax
   * ({@code Name = TypedDict("Name", {"odd key": T})}). Extra keys a schema allows cannot be declared.
   */
  private void typedDict(String name, Map<?, ?> m, Scope scope, List<String> doc) {
    typedDicts.put(m, name);
    Set<String> required = StubText.required(m);
    Map<String, Object> props = StubText.properties(m);
    boolean classSyntax = props.keySet().stream().allMatch(k -> keywordName(k) && !List.of(OWN).contains(k));
    List<String[]> fields = new ArrayList<>();
    for (Map.Entry<String, Object> p : props.entrySet()) {
      String type = type(p.getValue(), name + StubText.pascal(p.getKey()), scope);
      fields.add(new String[] {p.getKey(), required.contains(p.getKey()) ? type : "NotRequired[" + type + "]"});
    }
    List<String> allDoc = new ArrayList<>(doc);
    if (!StubText.closed(m)) {
      allDoc.add("The schema allows other keys too; a TypedDict cannot declare them.");
    }
    StringBuilder b = new StringBuilder();
    if (classSyntax) {
      b.append("class ").append(name).append("(TypedDict):\n");
      docstring(b, "    ", allDoc);
      int i = 0;
      for (Map.Entry<String, Object> p : props.entrySet()) {
        b.append("    ").append(fields.get(i)[0]).append(": ").append(fields.get(i)[1]).append('\n');
        docstring(b, "    ", StubText.docLines(p.getValue()));
        i++;
      }
    } else {
      b.append(name).append(" = TypedDict(").append(StubText.quote(name)).append(", {\n");
      int i = 0;
      for (Map.Entry<String, Object> p : props.entrySet()) {
        for (String line : StubText.docLines(p.getValue())) {
          b.append("    # ").append(line).append('\n');
        }
        b.append("    ").append(StubText.quote(fields.get(i)[0])).append(": ").append(fields.get(i)[1]).append(",\n");
        i++;
      }
      b.append("})\n");
      docstring(b, "", allDoc);
    }
    decls.append(b).append("\n\n");
  }

  /** The type of a schema; {@code hint} names the TypedDict an object with properties becomes. */
  private String type(Object schema, String hint, Scope scope) {
    if (!(schema instanceof Map<?, ?> m)) {
      return Boolean.FALSE.equals(schema) ? "NoReturn" : "Any";
    }
    if (m.containsKey("$ref")) {
      return scope.ref(m.get("$ref"));
    }
    if (m.containsKey("const")) {
      return literals(List.of(m.get("const")));
    }
    if (m.get("enum") instanceof List<?> values) {
      return values.isEmpty() ? "NoReturn" : literals(values);
    }
    for (String key : List.of("anyOf", "oneOf")) {
      if (m.get(key) instanceof List<?> options && !options.isEmpty()) {
        List<String> parts = new ArrayList<>();
        int i = 1;
        for (Object o : options) {
          parts.add(type(o, hint + "Option" + i++, scope));
        }
        return union(parts);
      }
    }
    if (m.get("allOf") instanceof List<?> all && !all.isEmpty()) {
      // Python's type system has no intersection: one part is exact, more are left open.
      return all.size() == 1 ? type(all.get(0), hint, scope) : "Any";
    }
    List<String> types = StubText.types(m);
    if (types.isEmpty()) {
      types = StubText.looksLikeObject(m) ? List.of("object") : m.containsKey("items") ? List.of("array") : List.of();
    }
    if (types.isEmpty()) {
      return "Any";
    }
    List<String> parts = new ArrayList<>();
    for (String t : types) {
      parts.add(switch (t) {
        case "string" -> "str";
        case "integer" -> "int";
        case "number" -> "float";
        case "boolean" -> "bool";
        case "null" -> "None";
        case "array" -> {
          Object items = m.get("items");
          yield "list[" + (items instanceof Map<?, ?> || items instanceof Boolean ? type(items, hint + "Item", scope)
              : "Any") + "]";
        }
        case "object" -> {
          if (typedDicts.containsKey(m)) {
            yield typedDicts.get(m);
          }
          if (!StubText.properties(m).isEmpty()) {
            String name = names.unique(hint);
            List<String> doc = StubText.docLines(m);
            typedDict(name, m, scope, doc.isEmpty() ? List.of("Part of the schema of " + scope.tool.name() + ".") : doc);
            yield name;
          }
          Object extra = StubText.additional(m);
          yield "dict[str, " + (Boolean.FALSE.equals(extra) ? "NoReturn" : type(extra, hint + "Value", scope)) + "]";
        }
        default -> "Any";
      });
    }
    return union(parts);
  }

  /** {@code Literal[...]} for the values Python allows there (strings, integers, booleans), with None apart. */
  private static String literals(List<?> values) {
    List<String> lits = new ArrayList<>();
    List<String> parts = new ArrayList<>();
    for (Object v : values) {
      if (v == null) {
        parts.add("None");
      } else if (v instanceof String s) {
        lits.add(StubText.quote(s));
      } else if (v instanceof Boolean || v instanceof Long || v instanceof java.math.BigInteger) {
        lits.add(String.valueOf(v).replace("true", "True").replace("false", "False"));
      } else if (v instanceof Double) {
        parts.add("float");
      } else {
        return "Any";
      }
    }
    if (!lits.isEmpty()) {
      parts.add(0, "Literal[" + String.join(", ", lits.stream().distinct().toList()) + "]");
    }
    return union(parts);
  }

  private static String union(List<String> parts) {
    List<String> distinct = parts.stream().distinct().toList();
    if (distinct.contains("Any")) {
      return "Any";
    }
    List<String> rest = distinct.stream().filter(p -> !p.equals("NoReturn")).toList();
    return rest.isEmpty() ? "NoReturn" : String.join(" | ", rest);
  }

  /** A docstring; backslashes and quotes escaped so the text cannot end it or turn into an escape. */
  private static void docstring(StringBuilder b, String indent, List<String> lines) {
    if (lines.isEmpty()) {
      return;
    }
    List<String> safe = lines.stream().map(l -> l.replace("\\", "\\\\").replace("\"", "\\\"")).toList();
    b.append(indent).append("\"\"\"").append(safe.get(0));
    if (safe.size() == 1) {
      b.append("\"\"\"\n");
      return;
    }
    b.append('\n');
    for (String l : safe.subList(1, safe.size())) {
      b.append(l.isEmpty() ? "" : indent + l).append('\n');
    }
    b.append(indent).append("\"\"\"\n");
  }

  /** One schema document, its definitions declared as TypedDicts or aliases. */
  private final class Scope extends StubText.Scope {
    Scope(Tool tool, String rootName, Object root) {
      super(tool, rootName, root, PythonStubs.this.names, "Any");
    }

    @Override
    void declare(String typeName, Object definition, String key) {
      PythonStubs.this.declare(typeName, definition, this, key + " in the schema of " + tool.name() + ".");
    }
  }
}
