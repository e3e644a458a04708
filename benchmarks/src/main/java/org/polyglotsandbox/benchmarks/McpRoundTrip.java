package org.polyglotsandbox.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * A recorded harness (not JMH: the server is another process): the round trip of a {@code run_javascript}
 * call of {@code 6*7} over stdio, {@code bin/sandbox mcp} driven by the MCP Java SDK's own client, against
 * a direct {@link PolyglotSandbox#run} of the same text in this JVM, each after its own warm-up; then the
 * first answer after starting the server, for JavaScript and for Python (process start, initialize, one
 * call). The direct sandbox is closed before the server starts, so the two never compete.
 *
 * <pre>
 * BENCH_MAIN=org.polyglotsandbox.benchmarks.McpRoundTrip benchmarks/run [WARMUP_CALLS [MEASURED_CALLS [STARTS]]]
 * </pre>
 *
 * Defaults: 5,000 warm-up calls, 2,000 measured, 3 starts per language. Run from the repository root;
 * bin/sandbox builds the CLI first if it is stale (that build is not timed).
 */
public final class McpRoundTrip {
  private McpRoundTrip() {}

  public static void main(String[] args) throws Exception {
    int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
    int measured = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
    int starts = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    Path script = Path.of("bin/sandbox").toAbsolutePath();
    if (!Files.isExecutable(script)) {
      throw new IllegalStateException("run from the repository root: no " + script);
    }
    Path dir = Files.createTempDirectory("mcp-bench");
    Path js = policy(dir, "js");
    Path py = policy(dir, "python");
    System.out.printf(Locale.ROOT, "warm-up %d calls, %d measured; load average %s%n", warmup, measured, load());

    long[] direct = new long[measured];
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT))
        .warmContexts(2).build()) {
      for (int i = 0; i < warmup; i++) {
        check(sandbox.run(Language.JAVASCRIPT, "6*7"));
      }
      for (int i = 0; i < measured; i++) {
        long t = System.nanoTime();
        ExecutionResult r = sandbox.run(Language.JAVASCRIPT, "6*7");
        direct[i] = System.nanoTime() - t;
        check(r);
      }
    }
    report("direct PolyglotSandbox.run (warm pool of 2)", direct);

    long[] stdio = new long[measured];
    try (McpSyncClient client = start(script, js)) {
      client.initialize();
      for (int i = 0; i < warmup; i++) {
        check(client.callTool(call("run_javascript")));
      }
      for (int i = 0; i < measured; i++) {
        long t = System.nanoTime();
        McpSchema.CallToolResult r = client.callTool(call("run_javascript"));
        stdio[i] = System.nanoTime() - t;
        check(r);
      }
    }
    report("run_javascript over stdio (bin/sandbox mcp, Java SDK client)", stdio);
    System.out.printf(Locale.ROOT, "ratio of medians (stdio / direct): %.1f%n", median(stdio) / median(direct));

    for (String[] lang : new String[][] {{"run_javascript", js.toString()}, {"run_python", py.toString()}}) {
      long[] first = new long[starts];
      for (int i = 0; i < starts; i++) {
        long t = System.nanoTime();
        try (McpSyncClient client = start(script, Path.of(lang[1]))) {
          client.initialize();
          check(client.callTool(call(lang[0])));
          first[i] = System.nanoTime() - t;
        }
      }
      System.out.printf(Locale.ROOT, "first answer after start, %s: %s ms%n", lang[0],
          Arrays.toString(Arrays.stream(first).map(n -> n / 1_000_000).toArray()));
    }
  }

  private static Path policy(Path dir, String language) throws IOException {
    return Files.writeString(dir.resolve(language + ".json"), "{\"languages\": [\"" + language + "\"]}");
  }

  private static McpSyncClient start(Path script, Path policy) {
    ServerParameters params = ServerParameters.builder(script.toString()).args("mcp", "--policy", policy.toString())
        .addEnvVar("PATH", System.getenv("PATH")).addEnvVar("HOME", System.getProperty("user.home")).build();
    return McpClient.sync(new StdioClientTransport(params, new JacksonMcpJsonMapper(new ObjectMapper())))
        .requestTimeout(Duration.ofSeconds(60)).initializationTimeout(Duration.ofMinutes(5)).build();
  }

  private static McpSchema.CallToolRequest call(String tool) {
    return McpSchema.CallToolRequest.builder(tool).arguments(Map.of("code", "6*7")).build();
  }

  private static void check(ExecutionResult r) {
    if (!r.isOk() || !Long.valueOf(42).equals(r.value())) {
      throw new IllegalStateException("wrong answer: " + r);
    }
  }

  private static void check(McpSchema.CallToolResult r) {
    Object v = r.structuredContent() instanceof Map<?, ?> m ? m.get("value") : null;
    if (Boolean.TRUE.equals(r.isError()) || !(v instanceof Number n) || n.intValue() != 42) {
      throw new IllegalStateException("wrong answer: " + r);
    }
  }

  private static double median(long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    return s[s.length / 2] / 1e6;
  }

  private static void report(String what, long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    System.out.printf(Locale.ROOT, "%s: median %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms%n", what,
        s[s.length / 2] / 1e6, s[(int) (s.length * 0.9)] / 1e6, s[(int) (s.length * 0.99)] / 1e6, s[s.length - 1] / 1e6);
  }

  private static String load() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
