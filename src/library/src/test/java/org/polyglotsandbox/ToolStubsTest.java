package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Tool#stubs}: each JSON Schema construct in TypeScript and in Python, names that are not
 * identifiers, and descriptions that try to end their comment. {@link ToolStubsTypeCheckTest} runs the
 * real type checkers on the result.
 */
class ToolStubsTest {
  private static Tool tool(String name, String parameters) {
    return Tool.builder(name).parameters(parameters).handler(args -> null).build();
  }

  private static Tool withResult(String name, String result) {
    return Tool.builder(name).result(result).handler(args -> null).build();
  }

  private static String ts(Tool... tools) {
    return Tool.stubs(Language.JAVASCRIPT, List.of(tools));
  }

  private static String py(Tool... tools) {
    return Tool.stubs(Language.PYTHON, List.of(tools));
  }

  private static final String SCALARS = """
      {"type": "object", "required": ["s", "i"], "additionalProperties": false, "properties": {
        "s": {"type": "string", "description": "A name."}, "i": {"type": "integer"}, "n": {"type": "number"},
        "b": {"type": "boolean"}, "z": {"type": "null"}}}""";

  @Test
  void scalarsAndRequiredProperties_becomeFieldsOfAnInterfaceOrTypedDict() {
    assertThat(ts(tool("f", SCALARS))).contains("""
        interface FParams {
          /** A name. */
          s: string;
          i: number;
          n?: number;
          b?: boolean;
          z?: null;
        }""", "f(args: FParams): FResult;", "type FResult = unknown;");
    assertThat(py(tool("f", SCALARS))).contains("""
        class FParams(TypedDict):
            ""\"Arguments of f.""\"
            s: str
            ""\"A name.""\"
            i: int
            n: NotRequired[float]
            b: NotRequired[bool]
            z: NotRequired[None]
        """, "def f(self, *, s: str, i: int, n: float = ..., b: bool = ..., z: None = ...) -> FResult:",
        "def f(self, arguments: FParams, /) -> FResult:", "FResult: TypeAlias = Any");
  }

  @Test
  void noRequiredProperty_makesTheArgumentOptional() {
    assertThat(ts(tool("f", "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}")))
        .contains("f(args?: FParams): FResult;");
    assertThat(ts(Tool.builder("clock").handler(args -> null).build()))
        .contains("type ClockParams = Record<string, never>;", "clock(args?: ClockParams): ClockResult;");
    assertThat(py(Tool.builder("clock").handler(args -> null).build()))
        .contains("class ClockParams(TypedDict):", "def clock(self) -> ClockResult:",
            "def clock(self, arguments: ClockParams, /) -> ClockResult:");
  }

  @Test
  void additionalProperties_openAnIndexSignatureOrExtraKeywords_unlessFalse() {
    String open = "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}";
    assertThat(ts(tool("f", open))).contains("  a?: string;\n  [key: string]: unknown;\n}");
    assertThat(py(tool("f", open))).contains("def f(self, *, a: str = ..., **extra: Any) -> FResult:",
        "The schema allows other keys too; a TypedDict cannot declare them.");

    String map = "{\"type\": \"object\", \"additionalProperties\": {\"type\": \"integer\"}}";
    assertThat(ts(tool("f", map))).contains("type FParams = Record<string, number>;");
    assertThat(py(tool("f", map))).contains("FParams: TypeAlias = dict[str, int]", "def f(self, **extra: int)");

    assertThat(ts(tool("f", "{\"type\": \"object\"}"))).contains("type FParams = Record<string, unknown>;");
    String named = "{\"type\": \"object\", \"properties\": {\"extra\": {\"type\": \"string\"}}}";
    assertThat(py(tool("f", named))).contains("def f(self, *, extra: str = ..., **extra_: Any) -> FResult:");
    assertThat(py(tool("f", "{\"type\": \"object\"}"))).contains("FParams: TypeAlias = dict[str, Any]");
  }

  @Test
  void nestedObjects_areInlineInTypeScript_andNamedTypedDictsInPython() {
    String nested = """
        {"type": "object", "properties": {"where": {"type": "object", "required": ["city"],
          "additionalProperties": false, "properties": {"city": {"type": "string"}}}}}""";
    assertThat(ts(tool("geo.find", nested))).contains("  where?: {\n    city: string;\n  };");
    assertThat(py(tool("geo.find", nested))).contains("class GeoFindParamsWhere(TypedDict):\n",
        "    where: NotRequired[GeoFindParamsWhere]", "where: GeoFindParamsWhere = ...");
  }

  @Test
  void arrays_becomeListsOfTheirItems() {
    assertThat(ts(withResult("f", "{\"type\": \"array\", \"items\": {\"type\": [\"string\", \"null\"]}}")))
        .contains("type FResult = (string | null)[];");
    assertThat(py(withResult("f", "{\"type\": \"array\", \"items\": {\"type\": [\"string\", \"null\"]}}")))
        .contains("FResult: TypeAlias = list[str | None]");
    assertThat(ts(withResult("f", "{\"type\": \"array\"}"))).contains("type FResult = unknown[];");
    assertThat(py(withResult("f", "{\"type\": \"array\"}"))).contains("FResult: TypeAlias = list[Any]");
  }

  @Test
  void enumsAndConst_becomeLiteralTypes() {
    String e = "{\"enum\": [\"a\", \"say \\\"hi\\\"\\n\", 2, true, null]}";
    assertThat(ts(withResult("f", e))).contains("type FResult = \"a\" | \"say \\\"hi\\\"\\u000a\" | 2 | true | null;");
    assertThat(py(withResult("f", e))).contains("FResult: TypeAlias = Literal[\"a\", \"say \\\"hi\\\"\\u000a\", 2, True] | None");
    assertThat(ts(withResult("f", "{\"const\": \"v1\"}"))).contains("type FResult = \"v1\";");
    assertThat(py(withResult("f", "{\"const\": \"v1\"}"))).contains("FResult: TypeAlias = Literal[\"v1\"]");
    // Python has no float literals; objects are no literal anywhere
    assertThat(py(withResult("f", "{\"enum\": [\"a\", 1.5]}"))).contains("FResult: TypeAlias = Literal[\"a\"] | float");
    assertThat(ts(withResult("f", "{\"enum\": [{\"a\": 1}]}"))).contains("type FResult = unknown;");
    assertThat(py(withResult("f", "{\"enum\": [{\"a\": 1}]}"))).contains("FResult: TypeAlias = Any");
  }

  @Test
  void anyOfAndOneOf_becomeUnions_allOfAnIntersectionInTypeScriptOnly() {
    String any = "{\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"array\", \"items\": {\"type\": \"integer\"}}]}";
    assertThat(ts(withResult("f", any))).contains("type FResult = string | number[];");
    assertThat(py(withResult("f", any))).contains("FResult: TypeAlias = str | list[int]");
    String one = "{\"oneOf\": [{\"type\": \"boolean\"}, {\"type\": \"null\"}]}";
    assertThat(ts(withResult("f", one))).contains("type FResult = boolean | null;");
    assertThat(py(withResult("f", one))).contains("FResult: TypeAlias = bool | None");
    String all = """
        {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                   {"type": "object", "properties": {"b": {"type": "integer"}}}]}""";
    assertThat(ts(withResult("f", all))).contains("type FResult = {\n  a?: string;\n  [key: string]: unknown;\n}"
        + " & {\n  b?: number;\n  [key: string]: unknown;\n};");
    assertThat(py(withResult("f", all))).contains("FResult: TypeAlias = Any");
  }

  @Test
  void localRefs_becomeNamedTypes_includingRecursiveOnes_deeperRefsUnknown() {
    String tree = """
        {"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "required": ["name"],
          "additionalProperties": false,
          "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                         "parent": {"$ref": "#"}, "deep": {"$ref": "#/$defs/node/properties/name"}}}}}""";
    assertThat(ts(withResult("tree", tree))).contains("type TreeResult = TreeResultNode;",
        "interface TreeResultNode {\n  name: string;\n  children?: TreeResultNode[];\n  parent?: TreeResult;\n"
            + "  deep?: unknown;\n}");
    assertThat(py(withResult("tree", tree))).contains("TreeResult: TypeAlias = TreeResultNode",
        "class TreeResultNode(TypedDict):", "children: NotRequired[list[TreeResultNode]]",
        "parent: NotRequired[TreeResult]", "deep: NotRequired[Any]");
    String definitions = "{\"definitions\": {\"id\": {\"type\": \"integer\"}}, \"$ref\": \"#/definitions/id\"}";
    assertThat(ts(withResult("f", definitions))).contains("type FResult = FResultId;", "type FResultId = number;");
    assertThat(ts(withResult("f", "{\"$ref\": \"#/$defs/missing\"}"))).contains("type FResult = unknown;");
  }

  @Test
  void schemasWithoutAType_andFalse_mapToUnknownAndNever() {
    assertThat(ts(withResult("f", "{\"minimum\": 3}"))).contains("type FResult = unknown;");
    assertThat(py(withResult("f", "{\"minimum\": 3}"))).contains("FResult: TypeAlias = Any");
    assertThat(ts(withResult("f", "{\"type\": \"object\", \"additionalProperties\": false}")))
        .contains("type FResult = Record<string, never>;");
    String never = "{\"type\": \"object\", \"properties\": {\"x\": false}}";
    assertThat(ts(tool("f", never))).contains("x?: never;");
    assertThat(py(tool("f", never))).contains("x: NotRequired[NoReturn]");
  }

  @Test
  void propertyNamesThatAreNoIdentifiers_areQuoted_andInPythonOnlyDictKeys() {
    String odd = """
        {"type": "object", "required": ["first-name"], "additionalProperties": false, "properties": {
          "first-name": {"type": "string"}, "class": {"type": "string"}, "self": {"type": "string"},
          "__x": {"type": "string"}, "ok": {"type": "string"}}}""";
    assertThat(ts(tool("f", odd))).contains("\"first-name\": string;", "  class?: string;", "  self?: string;");
    String p = py(tool("f", odd));
    assertThat(p).contains("FParams = TypedDict(\"FParams\", {\n    \"first-name\": str,\n    \"class\": NotRequired[str],")
        .contains("def f(self, arguments: FParams, /) -> FResult:")
        .doesNotContain("@overload");
    String optional = odd.replace("\"required\": [\"first-name\"]", "\"required\": [\"ok\"]");
    assertThat(py(tool("f", optional))).contains("def f(self, *, ok: str) -> FResult:");
  }

  @Test
  void dottedNames_followHowGuestsReachThem() {
    Tool get = tool("kv.get", "{\"type\": \"object\"}");
    Tool kv = tool("kv", "{\"type\": \"object\"}");
    assertThat(ts(kv, get)).contains("readonly kv: {\n    (args?: KvParams): KvResult;", "    get(args?: KvGetParams)",
        "  \"kv.get\"(args?: KvGetParams): KvGetResult;", "declare const tools: Tools;");
    assertThat(py(kv, get)).contains("class _Tools_kv:", "def __call__(self, **extra: Any) -> KvResult:",
        "def get(self, **extra: Any) -> KvGetResult:", "    kv: _Tools_kv\n", "tools: Tools\n");
  }

  @Test
  void clashingTypeNames_getASuffix() {
    String s = ts(tool("kv.get", "{\"type\": \"object\"}"), tool("kvGet", "{\"type\": \"object\"}"));
    assertThat(s).contains("type KvGetParams = ", "type KvGetParams2 = ", "kvGet(args?: KvGetParams2): KvGetResult2;");
  }

  @Test
  void descriptions_cannotEndTheirCommentOrDocstring() {
    Tool t = Tool.builder("f").description("a */ b \"\"\" c \\ d\re\u2028f\u0007g")
        .parameters("{\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"string\", \"description\": \"*/ \\\"\\\"\\\"\"}}}")
        .handler(args -> null).build();
    String ts = ts(t);
    assertThat(ts).contains("   * a *\\/ b \"\"\" c \\ d\n   * e\n   * f g\n", "  /** *\\/ \"\"\" */\n")
        .doesNotContain("a */");
    String py = py(t);
    assertThat(py).contains("        \"\"\"a */ b \\\"\\\"\\\" c \\\\ d\n        e\n        f g\n",
        "    \"\"\"*/ \\\"\\\"\\\"\"\"\"\n").doesNotContain("\u2028", "\r", "\u0007");
  }

  @Test
  void toolsNamedLikeBuiltins_makePythonStubsUseAliases() {
    Tool list = tool("files.list", "{\"type\": \"object\", \"properties\": {\"list\": {\"type\": \"array\","
        + " \"description\": \"a list of str\", \"items\": {\"type\": \"string\"}}}}");
    String p = py(list);
    assertThat(p).contains("from typing import Any as _Any, Literal as _Literal,", "_list = list\n",
        "    @_overload\n    def list(self, *, list: _list[_str] = ..., **extra: _Any) -> FilesListResult:",
        "FilesListParams = _TypedDict(\"FilesListParams\", {\n    # a list of str\n"
            + "    \"list\": _NotRequired[_list[_str]],\n")
        .doesNotContain("@overload", ": Any", "[str]");
    assertThat(py(tool("files.find", "{\"type\": \"object\"}"))).doesNotContain("_Any", "_list");
  }

  @Test
  void aToolListedTwice_isRejectedByName() {
    Tool t = tool("kv.get", "{\"type\": \"object\"}");
    assertThatThrownBy(() -> Tool.stubs(Language.PYTHON, List.of(t, t)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("tool 'kv.get' is listed twice");
  }

  @Test
  void sandboxStubs_holdOnlyTheAllowedTools_andOnlyForAllowedLanguages() {
    Policy policy = Policy.builder().allowLanguages(Language.PYTHON).allowTools("kv.get").build();
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(policy).warmUp(Duration.ZERO)
        .tool(tool("kv.get", "{\"type\": \"object\"}")).tool(tool("secret.drop", "{\"type\": \"object\"}")).build()) {
      assertThat(sandbox.toolStubs(Language.PYTHON)).contains("def get(").doesNotContain("secret", "drop");
      assertThatThrownBy(() -> sandbox.toolStubs(Language.JAVASCRIPT))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("language js is not allowed by the policy (allowed: [python])");
    }
  }
}
