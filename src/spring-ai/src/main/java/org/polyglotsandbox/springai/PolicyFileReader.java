package org.polyglotsandbox.springai;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Policy;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads a policy file in the format of {@code docs/policy-file.md} (the one {@code bin/sandbox} reads):
 * languages, mounts, working directory, limits and tool names. Strict in the same way: an unknown field
 * or a bad value fails with one message naming the file, the field and the value. A {@code tools} entry
 * names a {@code Tool} bean to allow; {@code bin/sandbox}'s demonstration tools are not there, so an
 * entry with a {@code file} is refused.
 */
final class PolicyFileReader {
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();
  private static final long MAX_FILE_BYTES = 1 << 20;
  private static final Pattern DURATION = Pattern.compile("(\\d{1,9}(?:\\.\\d{1,3})?)(ms|s|m)");
  private static final Pattern SIZE = Pattern.compile("(\\d{1,12})([kKmMgG]?)");
  private static final List<String> TOP = List.of("languages", "mounts", "workingDirectory", "limits", "tools");
  private static final List<String> MOUNT = List.of("host", "guest", "access");
  private static final List<String> LIMITS = List.of("maxStatements", "wallTime", "maxCpuTime", "maxAllocatedBytes",
      "maxFileBytes", "maxFiles", "maxOutputBytes", "stackSize", "maxResultNodes", "maxResultDepth",
      "maxResultStringLength", "maxResultChars", "maxOutputFileBytes", "maxTotalOutputFileBytes");

  private final Path file;

  private PolicyFileReader(Path file) {
    this.file = file;
  }

  /**
   * What a policy file says.
   *
   * @param policy the policy, started from {@code Policy.builder()}
   * @param namesLanguages whether the file has {@code languages}; if not, the caller must add some
   */
  record Read(Policy.Builder policy, boolean namesLanguages) {}

  /**
   * Reads {@code file}.
   *
   * @throws IllegalArgumentException naming the file, the field and the value
   */
  static Read read(Path file) {
    return new PolicyFileReader(file).read();
  }

  private Read read() {
    JsonNode root;
    try {
      if (!Files.isRegularFile(file)) {
        throw fail("", "is not a file");
      }
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw fail("", "is larger than 1 MiB");
      }
      root = JSON.readTree(Files.readString(file));
    } catch (IOException | JacksonException e) {
      throw fail("", "cannot be read as JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
    }
    if (root == null || !root.isObject()) {
      throw fail("", "must hold a JSON object");
    }
    known(root, "", TOP);
    Policy.Builder b = Policy.builder();
    JsonNode languages = root.get("languages");
    if (languages != null) {
      if (!languages.isArray() || languages.isEmpty()) {
        throw fail("languages", "must be a non-empty list of \"js\" and \"python\"");
      }
      for (int i = 0; i < languages.size(); i++) {
        JsonNode l = languages.get(i);
        try {
          b.allowLanguages(Language.fromId(string(l, "languages[" + i + "]")));
        } catch (IllegalArgumentException e) {
          throw fail("languages[" + i + "]", e.getMessage());
        }
      }
    }
    JsonNode mounts = root.get("mounts");
    if (mounts != null) {
      if (!mounts.isArray()) {
        throw fail("mounts", "must be a list");
      }
      for (int i = 0; i < mounts.size(); i++) {
        b.mount(mount(mounts.get(i), "mounts[" + i + "]"));
      }
    }
    JsonNode tools = root.get("tools");
    if (tools != null) {
      if (!tools.isArray()) {
        throw fail("tools", "must be a list of tool names");
      }
      for (int i = 0; i < tools.size(); i++) {
        String field = "tools[" + i + "]";
        JsonNode t = tools.get(i);
        if (t.isObject()) {
          known(t, field, List.of("name"));
          t = t.get("name");
          field += ".name";
        }
        try {
          b.allowTools(string(t, field));
        } catch (IllegalArgumentException e) {
          throw e.getMessage().startsWith(file.toString()) ? e : fail(field, e.getMessage());
        }
      }
    }
    JsonNode limits = root.get("limits");
    if (limits != null) {
      b.limits(limits(limits));
    }
    JsonNode wd = root.get("workingDirectory");
    if (wd != null) {
      try {
        b.workingDirectory(string(wd, "workingDirectory"));
      } catch (IllegalArgumentException e) {
        throw fail("workingDirectory", e.getMessage());
      }
    }
    return new Read(b, languages != null);
  }

  private Mount mount(JsonNode m, String field) {
    if (!m.isObject()) {
      throw fail(field, "must be an object {\"host\", \"guest\", \"access\"}");
    }
    known(m, field, MOUNT);
    String access = m.has("access") ? string(m.get("access"), field + ".access") : "ro";
    JsonNode guestNode = m.get("guest");
    if (guestNode == null) {
      throw fail(field + ".guest", "is required");
    }
    String guest = string(guestNode, field + ".guest");
    try {
      if (access.equals("scratch")) {
        if (m.has("host")) {
          throw fail(field + ".host", "must be left out of a scratch mount");
        }
        return Mount.scratch(guest);
      }
      JsonNode hostNode = m.get("host");
      if (hostNode == null) {
        throw fail(field + ".host", "is required unless access is \"scratch\"");
      }
      Path host = file.toAbsolutePath().getParent().resolve(string(hostNode, field + ".host")).normalize();
      if (!Files.exists(host)) {
        throw fail(field + ".host", "'" + hostNode.stringValue() + "' does not exist (resolved against the policy"
            + " file's directory to " + host + ")");
      }
      return switch (access) {
        case "ro" -> Mount.readOnly(host, guest);
        case "rw" -> Mount.readWrite(host, guest);
        default -> throw fail(field + ".access", "'" + access + "' is not one of ro, rw, scratch");
      };
    } catch (IllegalArgumentException e) {
      throw e.getMessage().startsWith(file.toString()) ? e : fail(field, e.getMessage());
    }
  }

  private Limits limits(JsonNode l) {
    if (!l.isObject()) {
      throw fail("limits", "must be an object");
    }
    known(l, "limits", LIMITS);
    Limits.Builder b = Limits.defaults().toBuilder();
    for (Map.Entry<String, JsonNode> e : l.properties()) {
      String field = "limits." + e.getKey();
      JsonNode v = e.getValue();
      try {
        switch (e.getKey()) {
          case "wallTime" -> b.wallTime(duration(v, field));
          case "maxCpuTime" -> b.maxCpuTime(duration(v, field));
          case "maxStatements" -> b.maxStatements(whole(v, field));
          case "maxFiles" -> b.maxFiles(Math.toIntExact(whole(v, field)));
          case "maxResultNodes" -> b.maxResultNodes(Math.toIntExact(whole(v, field)));
          case "maxResultDepth" -> b.maxResultDepth(Math.toIntExact(whole(v, field)));
          case "maxResultStringLength" -> b.maxResultStringLength(Math.toIntExact(whole(v, field)));
          case "maxResultChars" -> b.maxResultChars(whole(v, field));
          case "maxAllocatedBytes" -> b.maxAllocatedBytes(size(v, field));
          case "maxFileBytes" -> b.maxFileBytes(size(v, field));
          case "maxOutputBytes" -> b.maxOutputBytes(size(v, field));
          case "stackSize" -> b.stackSize(size(v, field));
          case "maxOutputFileBytes" -> b.maxOutputFileBytes(size(v, field));
          case "maxTotalOutputFileBytes" -> b.maxTotalOutputFileBytes(size(v, field));
          default -> throw new IllegalStateException(e.getKey());
        }
      } catch (ArithmeticException x) {
        throw fail(field, v + " is too large");
      } catch (IllegalArgumentException x) {
        throw x.getMessage().startsWith(file.toString()) ? x : fail(field, x.getMessage());
      }
    }
    return b.build();
  }

  private Duration duration(JsonNode v, String field) {
    Matcher m = v.isString() ? DURATION.matcher(v.stringValue()) : null;
    if (m == null || !m.matches()) {
      throw fail(field, describe(v) + " is not a duration (use 500ms, 2s, 1.5s or 1m)");
    }
    BigDecimal n = new BigDecimal(m.group(1));
    BigDecimal millis = switch (m.group(2)) {
      case "ms" -> n;
      case "s" -> n.movePointRight(3);
      default -> n.multiply(BigDecimal.valueOf(60_000));
    };
    if (millis.signum() == 0 || millis.stripTrailingZeros().scale() > 0) {
      throw fail(field, describe(v) + " must be a positive whole number of milliseconds");
    }
    return Duration.ofMillis(millis.longValueExact());
  }

  private long whole(JsonNode v, String field) {
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      throw fail(field, describe(v) + " is not a whole number");
    }
    return v.longValue();
  }

  private long size(JsonNode v, String field) {
    if (v.isIntegralNumber()) {
      return whole(v, field);
    }
    Matcher m = v.isString() ? SIZE.matcher(v.stringValue()) : null;
    if (m == null || !m.matches()) {
      throw fail(field, describe(v) + " is not a size (use 1048576, \"512k\", \"8m\" or \"1g\")");
    }
    int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "k" -> 10;
      case "m" -> 20;
      case "g" -> 30;
      default -> 0;
    };
    return Math.multiplyExact(Long.parseLong(m.group(1)), 1L << shift);
  }

  private String string(JsonNode v, String field) {
    if (v == null || !v.isString()) {
      throw fail(field, describe(v) + " is not a string");
    }
    return v.stringValue();
  }

  private void known(JsonNode object, String where, List<String> fields) {
    for (String name : object.propertyNames()) {
      if (!fields.contains(name)) {
        String field = where.isEmpty() ? name : where + "." + name;
        throw fail(field, "unknown field (known fields" + (where.isEmpty() ? "" : " of " + where) + ": "
            + String.join(", ", fields) + ")"
            + (name.equals("file") ? "; bin/sandbox's demonstration tools are not here: register a Tool bean" : ""));
      }
    }
  }

  private static String describe(JsonNode v) {
    if (v == null) {
      return "nothing";
    }
    String s = v.toString();
    return s.length() > 60 ? s.substring(0, 60) + "..." : s;
  }

  private IllegalArgumentException fail(String field, String problem) {
    return new IllegalArgumentException(file + (field.isEmpty() ? "" : ": " + field) + ": " + problem);
  }
}
