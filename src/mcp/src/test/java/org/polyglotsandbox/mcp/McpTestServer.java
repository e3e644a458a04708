package org.polyglotsandbox.mcp;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Locale;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Tool;

/**
 * The server the TypeScript client tests talk to: JavaScript and Python, a 3 s wall-time limit, one
 * host tool ({@code text.upper}) also exposed as {@code text_upper}. {@code main} serves stdio (started
 * by the TypeScript SDK's stdio transport); {@link #sandbox()} builds the same sandbox for an HTTP
 * endpoint in the test's own JVM. Every run that ends is reported on stderr as {@code run: OUTCOME}.
 */
public final class McpTestServer {
  private McpTestServer() {}

  static PolyglotSandbox sandbox() {
    Tool upper = Tool.builder("text.upper").description("Upper-cases a text")
        .parameters("""
            {"type": "object", "properties": {"text": {"type": "string", "maxLength": 100}},
             "required": ["text"], "additionalProperties": false}""")
        .handler(args -> ((String) args.get("text")).toUpperCase(Locale.ROOT))
        .inline()
        .build();
    Policy policy = Policy.builder().allowLanguages(Language.JAVASCRIPT, Language.PYTHON).allowTools("text.upper")
        .limits(Limits.builder().wallTime(Duration.ofSeconds(3)).maxStatements(1_000_000_000_000L).build())
        .build();
    return PolyglotSandbox.builder().policy(policy).tool(upper).warmContexts(1).build();
  }

  static SandboxMcpServer server(PolyglotSandbox sandbox) {
    return SandboxMcpServer.builder(sandbox).exposeTools(true)
        .runListener((script, result) -> System.err.println("run: " + result.outcome()))
        .build();
  }

  /** Serves stdio until stdin closes. */
  public static void main(String[] args) throws Exception {
    OutputStream stdout = new FileOutputStream(FileDescriptor.out);
    System.setOut(System.err);
    try (PolyglotSandbox sandbox = sandbox()) {
      server(sandbox).serveStdio(System.in, stdout);
    }
    System.exit(0);
  }
}
