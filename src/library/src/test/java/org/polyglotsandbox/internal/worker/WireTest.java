package org.polyglotsandbox.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Script;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.internal.boundary.JsonSchema;
import org.polyglotsandbox.internal.spi.ApiAccess;
import org.polyglotsandbox.internal.spi.RunFile;
import org.polyglotsandbox.internal.spi.RunRecord;

/**
 * The channel read as the host reads it: whatever a worker sends may lie, and what breaks the rules is a
 * {@link Frames.ProtocolException} (the worker is then killed), never a host exception of another kind or
 * a value past the run's limits.
 */
class WireTest {
  private static final Limits LIMITS = Limits.builder().maxResultNodes(100).maxResultDepth(5)
      .maxResultStringLength(50).maxResultChars(200).maxOutputBytes(100).maxOutputFileBytes(10)
      .maxTotalOutputFileBytes(15).build();

  @Test
  void policy_roundTrips() {
    Policy p = Policy.computeOnly(Language.PYTHON, Language.JAVASCRIPT).toBuilder()
        .mount(Mount.scratch("/scratch"))
        .mount(Mount.of(java.nio.file.Path.of("/tmp"), "/data", java.util.EnumSet.of(Operation.FILE_READ)))
        .limits(LIMITS).allowTools("a", "b").workingDirectory("/scratch").build();
    assertThat(Wire.policy(roundTrip(Wire.policy(p)))).isEqualTo(p);
  }

  @Test
  void honestResult_isRead() throws Exception {
    RunRecord r = Wire.result(roundTrip(honest()), LIMITS, API, 5, 0);
    assertThat(r.value()).isEqualTo(Map.of("a", List.of(1L, "x")));
    assertThat(r.stdout()).isEqualTo("out\n");
  }

  @Test
  void nonFiniteNumbers_comeBackWhereTheyWere() throws Exception {
    Map<String, Object> m = honest();
    m.put("value", Map.of("a", new ArrayList<>(java.util.Arrays.asList(1L, null))));
    m.put("nonFinite", List.of(List.of("a", 1L, "-Infinity")));
    RunRecord r = Wire.result(roundTrip(m), LIMITS, API, 0, 0);
    assertThat(((Map<?, ?>) r.value()).get("a")).isEqualTo(List.of(1L, Double.NEGATIVE_INFINITY));
  }

  @ParameterizedTest
  @ValueSource(strings = {"deep", "wide", "longString", "tooMuchText", "outcomeLimitDisagree", "valueOnError",
      "nonFiniteNowhere", "nonFiniteOntoValue", "nonFiniteKind", "missingField", "wrongKind", "negativeUsage",
      "unknownEvent", "tooMuchOutput", "outputFileTooBig", "outputFilesTooMuch", "notBase64", "rejectionOfOtherKind",
      "hugeInteger", "threeNotes"})
  void lyingResult_isAProtocolViolation(String lie) {
    Map<String, Object> m = honest();
    lies().get(lie).accept(m);
    assertThatThrownBy(() -> Wire.result(sentAndRead(m), LIMITS, API, 0, 0))
        .isInstanceOf(Frames.ProtocolException.class);
  }

  @Test
  void textFromAWorker_isSanitisedAgain() throws Exception {
    Map<String, Object> m = honest();
    m.put("stdout", "a\u001b[31mred\u202e");
    m.put("errorMessage", null);
    RunRecord r = Wire.result(roundTrip(m), LIMITS, API, 0, 0);
    assertThat(r.stdout()).doesNotContain("\u001b").doesNotContain("\u202e");
  }

  @Test
  void frames_overTheirBoundOrNotJsonObjects_areRefusedBeforeTheyAreRead() throws IOException {
    assertThatThrownBy(() -> Frames.read(frame(new byte[0], 1_000_000_000), 1_000))
        .isInstanceOf(Frames.ProtocolException.class).hasMessageContaining("1000000000 bytes");
    assertThatThrownBy(() -> Frames.read(frame("[1, 2]".getBytes(StandardCharsets.UTF_8), 6), 1_000))
        .isInstanceOf(Frames.ProtocolException.class).hasMessageContaining("not a JSON object");
    assertThatThrownBy(() -> Frames.read(frame("{\"a\": ".getBytes(StandardCharsets.UTF_8), 6), 1_000))
        .isInstanceOf(Frames.ProtocolException.class);
    assertThatThrownBy(() -> Frames.read(frame("{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8), 13), 1_000))
        .isInstanceOf(Frames.ProtocolException.class);
    assertThatThrownBy(() -> Frames.read(frame("{}".getBytes(StandardCharsets.UTF_8), 10), 1_000))
        .isInstanceOf(Frames.ProtocolException.class).hasMessageContaining("cut short");
    assertThatThrownBy(() -> Frames.read(frame(new byte[0], -1), 1_000))
        .isInstanceOf(Frames.ProtocolException.class);
  }

  private static ByteArrayInputStream frame(byte[] body, int declared) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(declared);
    out.write(body);
    return new ByteArrayInputStream(bytes.toByteArray());
  }

  private static Map<String, Object> roundTrip(Map<String, Object> m) {
    try {
      return sentAndRead(m);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** A frame as the host's reader gets it: some lies are refused already there. */
  private static Map<String, Object> sentAndRead(Map<String, Object> m) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Frames.write(bytes, m);
    return Frames.read(new ByteArrayInputStream(bytes.toByteArray()), Integer.MAX_VALUE - 64);
  }

  private static Map<String, Object> honest() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("outcome", "OK");
    m.put("limit", null);
    m.put("value", Map.of("a", List.of(1L, "x")));
    m.put("nonFinite", List.of());
    m.put("errorMessage", null);
    m.put("stack", List.of());
    m.put("exitStatus", null);
    m.put("stdout", "out\n");
    m.put("stderr", "");
    Map<String, Object> usage = new LinkedHashMap<>();
    for (String k : List.of("wallTime", "cpuTime", "allocatedBytes", "statements", "outputBytes", "fileBytes", "files",
        "queueTime", "setupTime")) {
      usage.put(k, 1L);
    }
    m.put("usage", usage);
    m.put("events", List.of(Map.of("time", "2026-01-01T00:00:00Z", "kind", "denied", "operation", "FILE_READ",
        "target", "/etc/passwd", "layer", "VIRTUAL_FILE_SYSTEM")));
    m.put("rejection", null);
    Map<String, Object> none = Map.of("bytesDropped", 0L, "escapes", 0L, "controls", 0L, "invalid", 0L,
        "invisible", 0L);
    m.put("notes", List.of(none, none, none));
    m.put("outputFiles", Map.of("/out/f", "aGVsbG8="));
    m.put("missingOutputFiles", List.of());
    m.put("runId", "r1");
    m.put("label", "");
    m.put("undeliveredOutputChunks", 0L);
    m.put("droppedEvents", 0L);
    return m;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Consumer<Map<String, Object>>> lies() {
    Map<String, Consumer<Map<String, Object>>> l = new LinkedHashMap<>();
    l.put("deep", m -> m.put("value", List.of(List.of(List.of(List.of(List.of(List.of(List.of(1L)))))))));
    l.put("wide", m -> m.put("value", java.util.Collections.nCopies(200, 1L)));
    l.put("longString", m -> m.put("value", "x".repeat(51)));
    l.put("tooMuchText", m -> m.put("value", java.util.Collections.nCopies(5, "y".repeat(45))));
    l.put("outcomeLimitDisagree", m -> m.put("limit", "MEMORY"));
    l.put("valueOnError", m -> m.put("outcome", "GUEST_ERROR"));
    l.put("nonFiniteNowhere", m -> m.put("nonFinite", List.of(List.of("b", "NaN"))));
    l.put("nonFiniteOntoValue", m -> m.put("nonFinite", List.of(List.of("NaN"))));
    l.put("nonFiniteKind", m -> {
      m.put("value", null);
      m.put("nonFinite", List.of(List.of("Huge")));
    });
    l.put("missingField", m -> m.remove("stdout"));
    l.put("wrongKind", m -> m.put("stdout", 5L));
    l.put("negativeUsage", m -> ((Map<String, Object>) m.get("usage")).put("cpuTime", -1L));
    l.put("unknownEvent", m -> m.put("events", List.of(Map.of("time", "2026-01-01T00:00:00Z", "kind", "rootkit"))));
    l.put("tooMuchOutput", m -> m.put("stdout", "z".repeat(2_000)));
    l.put("outputFileTooBig", m -> m.put("outputFiles", Map.of("/f", "aGVsbG8gd29ybGQ=")));
    l.put("outputFilesTooMuch", m -> m.put("outputFiles", Map.of("/f", "aGVsbG8=", "/g", "aGVsbG8=", "/h", "aGVsbG8=", "/i", "aGVsbG8=")));
    l.put("notBase64", m -> m.put("outputFiles", Map.of("/f", "!!!")));
    l.put("rejectionOfOtherKind", m -> m.put("rejection", Map.of("time", "2026-01-01T00:00:00Z", "kind", "denied",
        "operation", "FILE_READ", "target", "/x", "layer", "VIRTUAL_FILE_SYSTEM")));
    l.put("hugeInteger", m -> m.put("value", java.math.BigInteger.TEN.pow(2_000)));
    l.put("threeNotes", m -> m.put("notes", List.of()));
    return l;
  }

  /** The API's side as far as results need it. */
  private static final ApiAccess API = new ApiAccess() {
    @Override
    public ExecutionResult result(RunRecord record) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ExecutionResult.OutputFile outputFile(String guestPath, byte[] bytes) {
      return null;
    }

    @Override
    public JsonSchema resultSchema(Script script) {
      return null;
    }

    @Override
    public Map<String, Boolean> outputFileDeclarations(Script script) {
      return Map.of();
    }

    @Override
    public List<RunFile> runFiles(Script script) {
      return List.of();
    }

    @Override
    public Policy policyForRun(Script script, Policy policy) {
      return policy;
    }

    @Override
    public JsonSchema parameters(Tool tool) {
      return null;
    }

    @Override
    public JsonSchema resultSchema(Tool tool) {
      return null;
    }
  };
}
