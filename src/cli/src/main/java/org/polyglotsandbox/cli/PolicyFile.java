package org.polyglotsandbox.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.Tool;

/**
 * A sandbox policy read from a JSON file (syntax: {@code docs/policy-file.md}). Parsing is strict:
 * unknown fields, wrong types and bad values are rejected with a {@link PolicyFileException} naming the
 * file, the field path and the value. Relative host paths resolve against the file's directory and
 * must exist.
 *
 * <pre>{@code
 * {"languages": ["python"],
 *  "mounts": [{"host": "data/sales.csv", "guest": "/data/sales.csv"},
 *             {"guest": "/scratch", "access": "scratch"}],
 *  "workingDirectory": "/scratch",
 *  "limits": {"wallTime": "2s", "maxStatements": 1000000, "stackSize": "8m"},
 *  "tools": ["clock", "kv.get", "kv.put", {"name": "lookup", "file": "data/customers.json"}]}
 * }</pre>
 *
 * <p>{@code tools} allows {@link DemoTools}, the CLI's built-in demonstration tools.
 */
public final class PolicyFile {
  /** Policy files larger than this are refused unread. */
  static final long MAX_FILE_BYTES = 1L << 20;

  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .build();
  private static final List<String> TOP_FIELDS = List.of("languages", "mounts", "workingDirectory", "limits",
      "tools");
  private static final List<String> TOOL_FIELDS = List.of("name", "file");
  private static final List<String> MOUNT_FIELDS = List.of("host", "guest", "access");
  private static final List<String> LIMIT_FIELDS = List.of("maxStatements", "wallTime", "maxCpuTime",
      "maxAllocatedBytes", "maxFileBytes", "maxFiles", "maxOutputBytes", "stackSize", "maxResultNodes",
      "maxResultDepth", "maxResultStringLength", "maxResultChars", "maxOutputFileBytes", "maxTotalOutputFileBytes");
  private static final Pattern SIZE = Pattern.compile("(\\d{1,12})([kKmMgG]?)");

  private final Path file;
  private final Set<Language> languages;
  private final List<Mount> mounts;
  private final String workingDirectory;
  private final Limits limits;
  private final List<Tool> tools;
  private final DemoTools.RunStores stores;

  private PolicyFile(Path file, Set<Language> languages, List<Mount> mounts, String workingDirectory,
      Limits limits, List<Tool> tools, DemoTools.RunStores stores) {
    this.file = file;
    this.languages = languages;
    this.mounts = mounts;
    this.workingDirectory = workingDirectory;
    this.limits = limits;
    this.tools = tools;
    this.stores = stores;
  }

  /**
   * Reads and checks a policy file.
   *
   * @throws PolicyFileException if the file cannot be read, is not JSON, or any field is unknown, of the
   *     wrong type or has a bad value; the message names the file, the field and the value
   */
  public static PolicyFile parse(Path file) throws PolicyFileException {
    String name = file.toString();
    byte[] bytes;
    try {
      if (Files.isDirectory(file)) {
        throw new PolicyFileException(name + ": is a directory, not a policy file");
      }
      long size = Files.size(file);
      if (size > MAX_FILE_BYTES) {
        throw new PolicyFileException(name + ": " + size + " bytes is too large for a policy file (at most "
            + MAX_FILE_BYTES + ")");
      }
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new PolicyFileException(name + ": no such file");
    } catch (IOException e) {
      throw new PolicyFileException(name + ": cannot be read (" + Text.escapeLine(String.valueOf(e.getMessage())) + ")");
    }
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new PolicyFileException(name + ": is not UTF-8 text");
    }
    Path directory = file.toAbsolutePath().normalize().getParent();
    return parse(text, directory, name);
  }

  /**
   * Parses policy JSON as if read from a file named {@code name} in {@code directory}.
   *
   * @throws PolicyFileException as {@link #parse(Path)}
   */
  static PolicyFile parse(String json, Path directory, String name) throws PolicyFileException {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
      String why = String.valueOf(e.getOriginalMessage()).lines().findFirst().orElse("");
      throw new PolicyFileException(name + ": not valid JSON" + where + ": " + Text.escapeLine(why));
    }
    return new Reader(name, directory).policy(root);
  }

  /** The file this policy was read from, as given. */
  public Path file() {
    return file;
  }

  /**
   * The languages the file allows, or an empty set if it has no {@code languages} field (the command
   * line then allows just the language of the program it runs).
   */
  public Set<Language> languages() {
    return languages;
  }

  /** The mounts, in file order, with absolute host paths. */
  public List<Mount> mounts() {
    return mounts;
  }

  /** The guest working directory; {@code /} unless the file sets one. */
  public String workingDirectory() {
    return workingDirectory;
  }

  /** The limits: the defaults, with each field the file sets replaced. */
  public Limits limits() {
    return limits;
  }

  /**
   * The demonstration tools the file allows, built and ready to register with a sandbox (whose policy
   * must then allow them: {@link #toolNames()}); empty if the file has no {@code tools} field.
   */
  public List<Tool> tools() {
    return tools;
  }

  /**
   * Drops what {@link #tools()} kept for the run {@code runId} (its {@code kv} store); a sandbox that
   * serves many runs calls it with each ended run's id.
   */
  public void runEnded(String runId) {
    stores.runEnded(runId);
  }

  /** The names of {@link #tools()}, in file order. */
  public List<String> toolNames() {
    return tools.stream().map(Tool::name).toList();
  }

  /**
   * A builder for this policy allowing the given languages in place of the file's own list, for callers
   * that have checked the file allows them (or that the file lists none).
   */
  Policy.Builder toBuilder(Language first, Language... more) {
    Policy.Builder b = Policy.builder().allowLanguages(first, more).limits(limits);
    mounts.forEach(b::mount);
    b.allowTools(toolNames().toArray(String[]::new));
    return b.workingDirectory(workingDirectory);
  }

  /** Walks the JSON tree; every error names the field path. */
  private static final class Reader {
    private final String name;
    private final Path directory;

    Reader(String name, Path directory) {
      this.name = name;
      this.directory = directory;
    }

    PolicyFile policy(JsonNode root) throws PolicyFileException {
      if (root == null || root.isMissingNode()) {
        throw new PolicyFileException(name + ": is empty; expected a JSON object such as {\"languages\": [\"js\"]}");
      }
      requireObject(root, "", TOP_FIELDS);
      Set<Language> languages = root.has("languages") ? languages(root.get("languages")) : Set.of();
      List<Mount> mounts = root.has("mounts") ? mounts(root.get("mounts")) : List.of();
      Limits limits = root.has("limits") ? limits(root.get("limits")) : Limits.defaults();
      String cwd = root.has("workingDirectory")
          ? string(root.get("workingDirectory"), "workingDirectory", "an absolute guest path such as /scratch")
          : "/";

      // Let the library check what spans fields: overlapping mounts, then the working directory.
      Policy.Builder check = Policy.builder().allowLanguages(Language.JAVASCRIPT).limits(limits);
      mounts.forEach(check::mount);
      try {
        check.build();
      } catch (IllegalArgumentException e) {
        throw error("mounts", e.getMessage());
      }
      try {
        cwd = check.workingDirectory(cwd).build().workingDirectory();
      } catch (IllegalArgumentException e) {
        throw error("workingDirectory", e.getMessage());
      }
      DemoTools.RunStores stores = new DemoTools.RunStores();
      List<Tool> tools = root.has("tools") ? tools(root.get("tools"), stores) : List.of();
      return new PolicyFile(Path.of(name), languages, mounts, cwd, limits, tools, stores);
    }

    private List<Tool> tools(JsonNode node, DemoTools.RunStores stores) throws PolicyFileException {
      if (!node.isArray()) {
        throw error("tools", describe(node) + " is not a list (such as [\"clock\", \"kv.get\"])");
      }
      List<String> names = new ArrayList<>();
      Path lookupFile = null;
      for (int i = 0; i < node.size(); i++) {
        String path = "tools[" + i + "]";
        JsonNode entry = node.get(i);
        String toolName;
        if (entry.isObject()) {
          requireObject(entry, path, TOOL_FIELDS);
          if (!entry.has("name")) {
            throw error(path, "has no \"name\" field");
          }
          toolName = string(entry.get("name"), path + ".name", "a demo tool name: " + String.join(", ", DemoTools.NAMES));
          if (entry.has("file")) {
            if (!toolName.equals("lookup")) {
              throw error(path + ".file", "only the lookup tool takes a file");
            }
            lookupFile = hostPath(string(entry.get("file"), path + ".file", "a host JSON file path"), path + ".file");
          }
        } else {
          toolName = string(entry, path, "a demo tool name: " + String.join(", ", DemoTools.NAMES));
        }
        if (!DemoTools.NAMES.contains(toolName)) {
          throw error(path, Text.quote(toolName) + " is not a demo tool (known: " + String.join(", ", DemoTools.NAMES) + ")");
        }
        if (names.contains(toolName)) {
          throw error(path, Text.quote(toolName) + " is listed twice");
        }
        if (toolName.equals("lookup") && lookupFile == null) {
          throw error(path, "lookup needs a file: {\"name\": \"lookup\", \"file\": \"data/table.json\"}");
        }
        names.add(toolName);
      }
      try {
        return DemoTools.create(names, lookupFile, java.time.Clock.systemUTC(), stores);
      } catch (IllegalArgumentException e) {
        throw error("tools", e.getMessage());
      }
    }

    private Set<Language> languages(JsonNode node) throws PolicyFileException {
      if (!node.isArray()) {
        throw error("languages", describe(node) + " is not a list (use [\"js\"], [\"python\"] or [\"js\", \"python\"])");
      }
      if (node.isEmpty()) {
        throw error("languages", "[] allows no language (list js, python or both, or leave the field out)");
      }
      EnumSet<Language> out = EnumSet.noneOf(Language.class);
      for (int i = 0; i < node.size(); i++) {
        String path = "languages[" + i + "]";
        String id = string(node.get(i), path, "a language name: js or python");
        try {
          out.add(Language.fromId(id));
        } catch (IllegalArgumentException e) {
          throw error(path, e.getMessage());
        }
      }
      return Collections.unmodifiableSet(out);
    }

    private List<Mount> mounts(JsonNode node) throws PolicyFileException {
      if (!node.isArray()) {
        throw error("mounts", describe(node) + " is not a list of mounts");
      }
      List<Mount> out = new ArrayList<>();
      for (int i = 0; i < node.size(); i++) {
        out.add(mount(node.get(i), "mounts[" + i + "]"));
      }
      return List.copyOf(out);
    }

    private Mount mount(JsonNode node, String path) throws PolicyFileException {
      requireObject(node, path, MOUNT_FIELDS);
      if (!node.has("guest")) {
        throw error(path, "has no \"guest\" field (the absolute path guest code sees, such as /data/in.csv)");
      }
      String guest = string(node.get("guest"), path + ".guest", "an absolute guest path such as /data/in.csv");
      String access = node.has("access") ? string(node.get("access"), path + ".access", "ro, rw or scratch") : "ro";
      if (!List.of("ro", "rw", "scratch").contains(access)) {
        throw error(path + ".access", Text.quote(access) + " is not one of ro, rw, scratch");
      }
      try {
        if (access.equals("scratch")) {
          if (node.has("host")) {
            throw error(path + ".host", "a scratch mount has no host path (remove \"host\" or use access ro or rw)");
          }
          return Mount.scratch(guest);
        }
        if (!node.has("host")) {
          throw error(path, "has no \"host\" field (a host file or directory; or use \"access\": \"scratch\")");
        }
        Path host = hostPath(string(node.get("host"), path + ".host", "a host file or directory path"), path + ".host");
        return access.equals("rw") ? Mount.readWrite(host, guest) : Mount.readOnly(host, guest);
      } catch (IllegalArgumentException e) {
        throw error(path + ".guest", e.getMessage());
      }
    }

    private Path hostPath(String text, String path) throws PolicyFileException {
      if (text.isEmpty()) {
        throw error(path, "'' is empty (a host file or directory path)");
      }
      Path host;
      try {
        host = directory.resolve(text).toAbsolutePath().normalize();
      } catch (InvalidPathException e) {
        throw error(path, Text.quote(text) + " is not a valid path (" + Text.escapeLine(e.getReason()) + ")");
      }
      if (!Files.exists(host)) {
        throw error(path, Text.quote(text) + " does not exist"
            + (Path.of(text).isAbsolute() ? "" : " (resolved against the policy file's directory to " + host + ")"));
      }
      return host;
    }

    private Limits limits(JsonNode node) throws PolicyFileException {
      requireObject(node, "limits", LIMIT_FIELDS);
      Limits.Builder b = Limits.builder();
      for (Map.Entry<String, JsonNode> f : node.properties()) {
        String path = "limits." + f.getKey();
        JsonNode v = f.getValue();
        try {
          switch (f.getKey()) {
            case "maxStatements" -> b.maxStatements(count(v, path));
            case "wallTime" -> b.wallTime(duration(v, path));
            case "maxCpuTime" -> b.maxCpuTime(duration(v, path));
            case "maxAllocatedBytes" -> b.maxAllocatedBytes(size(v, path));
            case "maxFileBytes" -> b.maxFileBytes(size(v, path));
            case "maxFiles" -> intCount(v, path, b::maxFiles);
            case "maxOutputBytes" -> b.maxOutputBytes(size(v, path));
            case "stackSize" -> b.stackSize(size(v, path));
            case "maxResultNodes" -> intCount(v, path, b::maxResultNodes);
            case "maxResultDepth" -> intCount(v, path, b::maxResultDepth);
            case "maxResultStringLength" -> intCount(v, path, b::maxResultStringLength);
            case "maxResultChars" -> b.maxResultChars(count(v, path));
            case "maxOutputFileBytes" -> b.maxOutputFileBytes(size(v, path));
            case "maxTotalOutputFileBytes" -> b.maxTotalOutputFileBytes(size(v, path));
            default -> throw new AssertionError(f.getKey()); // requireObject rejected it
          }
        } catch (IllegalArgumentException e) {
          throw error(path, e.getMessage());
        }
      }
      return b.build();
    }

    private java.time.Duration duration(JsonNode v, String path) throws PolicyFileException {
      if (!v.isTextual()) {
        throw error(path, describe(v) + " is not a duration (use a string: \"500ms\", \"2s\", \"1.5s\", \"1m\")");
      }
      return Durations.parse(v.textValue());
    }

    private long count(JsonNode v, String path) throws PolicyFileException {
      if (!v.isIntegralNumber()) {
        throw error(path, describe(v) + " is not a whole number");
      }
      if (!v.canConvertToLong()) {
        throw error(path, v + " is too large");
      }
      return v.longValue();
    }

    private void intCount(JsonNode v, String path, java.util.function.IntConsumer setter) throws PolicyFileException {
      long n = count(v, path);
      if (n > Integer.MAX_VALUE || n < Integer.MIN_VALUE) {
        throw error(path, n + " is out of range (at most " + Integer.MAX_VALUE + ")");
      }
      setter.accept((int) n);
    }

    /** Bytes: a whole number, or a string of digits with a k, m or g suffix (powers of 1024). */
    private long size(JsonNode v, String path) throws PolicyFileException {
      if (v.isIntegralNumber()) {
        return count(v, path);
      }
      Matcher m = v.isTextual() ? SIZE.matcher(v.textValue()) : null;
      if (m == null || !m.matches()) {
        throw error(path, describe(v) + " is not a size (use bytes, or a string such as \"512k\", \"8m\", \"1g\")");
      }
      int shift = switch (m.group(2).toLowerCase(java.util.Locale.ROOT)) {
        case "k" -> 10;
        case "m" -> 20;
        case "g" -> 30;
        default -> 0;
      };
      return Long.parseLong(m.group(1)) << shift;
    }

    private String string(JsonNode v, String path, String expected) throws PolicyFileException {
      if (!v.isTextual()) {
        throw error(path, describe(v) + " is not a string (expected " + expected + ")");
      }
      return v.textValue();
    }

    private void requireObject(JsonNode node, String path, List<String> known) throws PolicyFileException {
      String where = path.isEmpty() ? "the top level" : path;
      if (!node.isObject()) {
        throw error(path, describe(node) + " is not a JSON object (" + where + " must be {...})");
      }
      for (Map.Entry<String, JsonNode> property : node.properties()) {
        String field = property.getKey();
        if (!known.contains(field)) {
          throw error(path.isEmpty() ? Text.escapeLine(field) : path + "." + Text.escapeLine(field),
              "unknown field (known fields" + (path.isEmpty() ? "" : " of " + path) + ": " + String.join(", ", known) + ")");
        }
      }
    }

    private PolicyFileException error(String path, String problem) {
      return new PolicyFileException(name + ": " + (path.isEmpty() ? "" : path + ": ") + problem);
    }

    /** A JSON value as it appears in a message: strings quoted and escaped, the rest shortened. */
    private static String describe(JsonNode v) {
      if (v.isTextual()) {
        return Text.quote(v.textValue());
      }
      String s = Text.escapeLine(v.toString());
      return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }
  }
}
