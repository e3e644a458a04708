package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Script;

/**
 * The demo kv tools keep one store per run: in a sandbox that serves many runs (as {@code sandbox mcp}
 * does) a run never reads what an earlier one wrote, and a store is dropped when its run is reported ended.
 */
@Tag("slow")
class KvStorePerRunTest {
  @TempDir
  static Path dir;

  private static PolicyFile file;
  private static PolyglotSandbox sandbox;

  @BeforeAll
  static void start() throws IOException, PolicyFileException {
    Path policy = dir.resolve("policy.json");
    Files.writeString(policy, """
        {"languages": ["js", "python"], "limits": {"wallTime": "30s"}, "tools": ["kv.get", "kv.put"]}""");
    file = PolicyFile.parse(policy);
    sandbox = PolyglotSandbox.builder().policy(file.toBuilder(Language.JAVASCRIPT, Language.PYTHON).build())
        .tools(file.tools()).build();
  }

  @AfterAll
  static void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  private static ExecutionResult run(Language language, String code) {
    ExecutionResult r = sandbox.run(Script.of(language, code));
    assertThat(r.isOk()).as("%s", r).isTrue();
    return r;
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      JAVASCRIPT | tools.kv.put({key: 'secret', value: 'from the first run'}); tools.kv.get({key: 'secret'}) | tools.kv.get({key: 'secret'})
      PYTHON     | tools.kv.put(key='secret', value='from the first run'); tools.kv.get(key='secret')     | tools.kv.get(key='secret')
      """)
  void keyWrittenByOneRun_isNotReadByTheNextRun(Language language, String write, String read) {
    ExecutionResult first = run(language, write);
    ExecutionResult second = run(language, read);

    assertThat(first.valueAsJson()).isEqualTo("\"from the first run\"");
    assertThat(second.valueAsJson()).isEqualTo("null");
  }

  @Test
  void keyWrittenByARunInOneLanguage_isNotReadByARunInTheOther() {
    run(Language.PYTHON, "tools.kv.put(key='shared', value=1)");

    assertThat(run(Language.JAVASCRIPT, "tools.kv.get({key: 'shared'})").valueAsJson()).isEqualTo("null");
  }

  @Test
  void storeOfAnEndedRun_isDropped() {
    DemoTools.RunStores stores = new DemoTools.RunStores();
    var tools = DemoTools.create(java.util.List.of("kv.get", "kv.put"), null, java.time.Clock.systemUTC(), stores);
    var put = tools.get(1).contextualHandler();
    try {
      put.call(Map.of("key", "k", "value", 1L), new org.polyglotsandbox.Tool.Call("kv.put", "run-1", "", Map.of()));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    assertThat(stores.runs()).isEqualTo(1);

    stores.runEnded("run-1");

    assertThat(stores.runs()).isZero();
  }
}
