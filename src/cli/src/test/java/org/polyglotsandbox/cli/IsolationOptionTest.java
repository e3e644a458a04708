package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --isolation}, {@code --workers} and {@code --weak-wall} as the command line reads them: bad values
 * and combinations exit 2 naming the value before anything starts, and {@code policy explain} says where
 * guest code runs. Runs under process isolation are {@code ProcessIsolationCliTest}'s.
 */
class IsolationOptionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private static void assertUsageError(CliRun r, String... fragments) {
    assertThat(r.status()).as(r.toString()).isEqualTo(2);
    assertThat(r.out()).as("stdout").isEmpty();
    assertThat(r.err().lines()).as("stderr is one line: " + r.err()).hasSize(1);
    assertThat(r.err()).contains(fragments);
  }

  @Test
  void unknownIsolation_isAUsageError_namingTheValueAndTheTwoGoodOnes_inEveryCommandThatTakesIt() throws IOException {
    Path program = Files.writeString(dir.resolve("a.js"), "1");
    Path log = dir.resolve("audit.jsonl");

    for (String[] args : new String[][] {
        {"run", program.toString(), "--isolation", "container"},
        {"probe", "--isolation", "container"},
        {"mcp", "--isolation", "container", "--audit-log", log.toString()},
        {"policy", "explain", "--isolation", "container"}}) {
      assertUsageError(CliRun.of(args), "--isolation", "'container' is not an isolation; use process",
          "or in-process");
    }
    assertUsageError(CliRun.of("run", program.toString(), "--isolation", "PROCESS"), "'PROCESS' is not an isolation");
    assertThat(log).as("nothing was opened").doesNotExist();
  }

  @Test
  void weakWallOrWorkers_withoutProcessIsolation_isAUsageError_namingTheFlag() throws IOException {
    Path program = Files.writeString(dir.resolve("a.js"), "1");

    assertUsageError(CliRun.of("run", program.toString(), "--weak-wall"),
        "--weak-wall applies to --isolation process only; run runs in-process unless --isolation process is given");
    assertUsageError(CliRun.of("run", program.toString(), "--isolation", "in-process", "--weak-wall"),
        "--weak-wall applies to --isolation process only; run was given --isolation in-process");
    assertUsageError(CliRun.of("mcp", "--isolation", "in-process", "--workers", "3"),
        "--workers 3 applies to --isolation process only");
    assertUsageError(CliRun.of("probe", "--weak-wall"), "--weak-wall applies to --isolation process only");
  }

  @Test
  void workersOutOfRange_isAUsageError_namingTheValueAndTheRange() {
    assertUsageError(CliRun.of("mcp", "--workers", "0"), "--workers 0: workers must be 1 to 256, was 0");
    assertUsageError(CliRun.of("mcp", "--workers", "257"), "--workers 257: workers must be 1 to 256, was 257");
    assertUsageError(CliRun.of("mcp", "--workers", "two"), "--workers", "'two'");
  }

  @Test
  void policyExplain_saysWhereGuestCodeRuns_inTheTableAndTheJson() throws IOException {
    CliRun byDefault = CliRun.of("policy", "explain");
    CliRun process = CliRun.of("policy", "explain", "--isolation", "process");
    CliRun weak = CliRun.of("policy", "explain", "--isolation", "process", "--weak-wall", "--json");

    assertThat(byDefault.status()).as(byDefault.toString()).isZero();
    assertThat(byDefault.out()).contains("\nisolation: in-process: guest code runs in the sandbox's own JVM,"
        + " behind GraalVM's sandbox policy and the sandbox's own layers (run and probe unless --isolation process;"
        + " mcp uses process isolation where the OS gives the wall)\n");
    assertThat(process.out()).contains("\nisolation: process: guest code runs in worker JVMs behind the OS wall"
        + " (bubblewrap namespaces, seccomp filter, rlimits; cgroups where the host allows); refused where the host"
        + " cannot give the wall\n");
    JsonNode isolation = JSON.readTree(weak.out()).get("isolation");
    assertThat(isolation.get("mode").asText()).isEqualTo("process");
    assertThat(isolation.get("weakWallAccepted").asBoolean()).isTrue();
    assertThat(isolation.get("description").asText())
        .endsWith(", or child JVMs without namespaces where the host cannot give the wall");
  }

  @Test
  void help_saysWhatEachIsolationFlagDoes() {
    String run = oneLine(CliRun.of("run", "--help"));
    String mcp = oneLine(CliRun.of("mcp", "--help"));
    String probe = oneLine(CliRun.of("probe", "--help"));

    assertThat(run).contains("--isolation=process|in-process", "in-process (the default: in this JVM)",
        "stderr names the wall", "--weak-wall", "child JVMs without namespaces").doesNotContain("--workers");
    assertThat(mcp).contains("--isolation=process|in-process",
        "Default: process where the OS gives the wall, else in-process", "--workers=N", "1 to 256", "--weak-wall");
    assertThat(probe).contains("--isolation=process|in-process", "attacks the OS wall", "--weak-wall");
  }

  /** The help text with its wrapping undone, so that a phrase is found wherever the columns broke it. */
  private static String oneLine(CliRun r) {
    assertThat(r.status()).as(r.toString()).isZero();
    return r.out().replaceAll("\\s+", " ");
  }
}
