package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
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
  void badPythonPath_exitsTwo_namingTheValue_beforeTheAuditLogIsOpened(@TempDir Path dir) throws IOException {
    Path log = dir.resolve("audit.jsonl");
    Path policy = dir.resolve("policy.json");
    Files.createDirectories(dir.resolve("lib"));
    Files.writeString(policy, """
        {"languages": ["python"], "mounts": [{"host": "lib", "guest": "/lib"}]}""");
    CliRun relative = CliRun.of("mcp", "--policy", policy.toString(), "--python-path", "/lib,pkgs",
        "--audit-log", log.toString());
    CliRun outside = CliRun.of("mcp", "--policy", policy.toString(), "--python-path", "/lib,/pkgs",
        "--audit-log", log.toString());

    assertThat(relative.status()).as(relative.toString()).isEqualTo(2);
    assertThat(relative.err()).contains("--python-path", "'pkgs'", "must be absolute");
    assertThat(outside.status()).as(outside.toString()).isEqualTo(2);
    assertThat(outside.err())
        .contains("--python-path", "'/pkgs' is neither inside nor above any of the policy's mounts [/lib]");
    assertThat(relative.out() + outside.out()).isEmpty();
    assertThat(log).doesNotExist();
  }

  @Test
  void help_namesTheOptions_andTheToolNameMapping() {
    CliRun r = CliRun.of("mcp", "--help");

    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("--policy", "--audit-log", "--http", "--expose-tools", "--python-imports",
        "--python-path", "kv.get is kv_get");
  }
}
