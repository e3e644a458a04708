package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sandbox mcp}'s options, checked before any server starts. */
class McpCommandTest {
  @Test
  void httpAddress_isLoopbackUnlessAHostIsGiven() {
    assertThat(McpCommand.Address.parse("8080")).isEqualTo(new McpCommand.Address("127.0.0.1", 8080));
    assertThat(McpCommand.Address.parse(":0")).isEqualTo(new McpCommand.Address("127.0.0.1", 0));
    assertThat(McpCommand.Address.parse("0.0.0.0:9000")).isEqualTo(new McpCommand.Address("0.0.0.0", 9000));
    assertThat(McpCommand.Address.parse("[::1]:9000")).isEqualTo(new McpCommand.Address("::1", 9000));
  }

  @Test
  void badHttpAddress_exitsTwo_namingTheValue() {
    CliRun r = CliRun.of("mcp", "--http", "localhost:http");

    assertThat(r.status()).as(r.toString()).isEqualTo(2);
    assertThat(r.err()).contains("--http 'localhost:http'", "'http' is not a number");
    assertThatThrownBy(() -> McpCommand.Address.parse("1:70000")).hasMessageContaining("port 70000 is outside 0-65535");
  }

  @Test
  void missingPolicyFile_exitsTwo_beforeAnythingIsServed() {
    CliRun r = CliRun.of("mcp", "--policy", "no/such/policy.json");

    assertThat(r.status()).as(r.toString()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("no/such/policy.json");
  }

  @Test
  void badPythonImport_exitsTwo_namingTheValue_beforeTheAuditLogIsOpened(@TempDir Path dir) {
    Path log = dir.resolve("audit.jsonl");
    CliRun r = CliRun.of("mcp", "--python-imports", "json,os;rm", "--audit-log", log.toString());

    assertThat(r.status()).as(r.toString()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("--python-imports", "'os;rm'", "not a Python module name");
    assertThat(log).doesNotExist();
  }

  @Test
  void help_namesTheOptions_andTheToolNameMapping() {
    CliRun r = CliRun.of("mcp", "--help");

    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("--policy", "--audit-log", "--http", "--expose-tools", "--python-imports", "kv.get is kv_get");
  }
}
