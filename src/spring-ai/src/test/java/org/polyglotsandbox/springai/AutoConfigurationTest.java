package org.polyglotsandbox.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.polyglotsandbox.AuditEvent;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Tool;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link PolyglotSandboxAutoConfiguration} in a real Spring application context: the sandbox bean and
 * its tool callbacks exist, honour {@code polyglot-sandbox.*} and the policy file, start without waiting
 * for the warm-up, back off, and the sandbox is closed with the context. JavaScript unless a test is about
 * Python, so that each context starts quickly.
 */
class AutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(PolyglotSandboxAutoConfiguration.class));
  /** Limits a guest that must answer meets on a loaded machine (a cold Python context takes seconds of CPU). */
  private static final String[] GENEROUS = {"polyglot-sandbox.limits.wall-time=60s", "polyglot-sandbox.limits.max-cpu-time=60s"};

  @TempDir
  Path dir;

  @Test
  void theModuleRegistersItsAutoConfiguration() throws Exception {
    try (InputStream in = getClass().getResourceAsStream(
        "/META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).strip())
          .isEqualTo(PolyglotSandboxAutoConfiguration.class.getName());
    }
  }

  @Test
  void withNoProperties_theSandboxIsComputeOnlyJavaScript_andItsToolsAreOffered() {
    runner.run(context -> {
      PolyglotSandbox sandbox = context.getBean(PolyglotSandbox.class);
      assertThat(sandbox.policy()).isEqualTo(Policy.computeOnly(Language.JAVASCRIPT));
      assertThat(context.getBean(SandboxToolCallbackProvider.class).getToolCallbacks())
          .extracting(c -> c.getToolDefinition().name()).containsExactly("run_javascript");
    });
  }

  @Test
  void properties_andThePolicyFile_makeThePolicy() throws Exception {
    Files.writeString(dir.resolve("sales.csv"), "units\n3\n4\n");
    Files.writeString(dir.resolve("policy.json"), """
        {"languages": ["js"],
         "mounts": [{"host": "sales.csv", "guest": "/data/sales.csv"}, {"guest": "/tmp", "access": "scratch"}],
         "limits": {"wallTime": "20s", "maxCpuTime": "60s", "maxStatements": 5000000, "maxOutputBytes": "64k"},
         "tools": ["clock"]}""");
    runner.withBean("clock", Tool.class, () -> Tool.builder("clock").handler(a -> "noon").inline().build())
        .withBean("unlisted", Tool.class, () -> Tool.builder("secret").handler(a -> "never").build())
        .withPropertyValues(
            "polyglot-sandbox.policy-file=" + dir.resolve("policy.json"),
            "polyglot-sandbox.limits.wall-time=60s",
            "polyglot-sandbox.limits.max-output-bytes=16KB",
            "polyglot-sandbox.warm-contexts=1",
            "polyglot-sandbox.max-concurrent-runs=2")
        .run(context -> {
          PolyglotSandbox sandbox = context.getBean(PolyglotSandbox.class);
          Policy policy = sandbox.policy();
          assertThat(policy.languages()).containsExactly(Language.JAVASCRIPT);
          assertThat(policy.mounts()).extracting(Mount::guestPath).containsExactly("/data/sales.csv", "/tmp");
          assertThat(policy.limits().wallTime()).isEqualTo(Duration.ofSeconds(60));
          assertThat(policy.limits().maxOutputBytes()).isEqualTo(16 * 1024);
          assertThat(policy.limits().maxStatements()).isEqualTo(5_000_000);
          assertThat(sandbox.tools()).extracting(Tool::name).containsExactly("clock");

          ExecutionResult r = sandbox.run(Language.JAVASCRIPT,
              "readText('/data/sales.csv').trim().split('\\n').slice(1).map(Number).reduce((a, b) => a + b) + tools.clock()");
          assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.OK);
          assertThat(r.value()).isEqualTo("7noon");
          ExecutionResult hidden = sandbox.run(Language.JAVASCRIPT,
              "try { tools.secret(); 'called' } catch (e) { e.code }");
          assertThat(hidden.value()).as("a registered tool the policy does not name").isEqualTo("denied");
        });
  }

  @Test
  void warmContexts_areMadeAsTheirPropertySays() {
    runner.withPropertyValues("polyglot-sandbox.warm-contexts=2").run(context -> {
      PolyglotSandbox sandbox = context.getBean(PolyglotSandbox.class);
      sandbox.started().toCompletableFuture().get(3, TimeUnit.MINUTES);
      // A wait, not a measurement: the pool fills on a thread of its own after the warm-up.
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (sandbox.warmContexts(Language.JAVASCRIPT) < 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(sandbox.warmContexts(Language.JAVASCRIPT)).isEqualTo(2);
    });
  }

  @Test
  void byDefault_theContextIsReadyBeforeTheWarmPoolIsFull_andARunRightAfterStartUpAnswers() {
    runner.withPropertyValues("polyglot-sandbox.languages=python", "polyglot-sandbox.warm-contexts=2")
        .withPropertyValues(GENEROUS)
        .run(context -> {
          PolyglotSandbox sandbox = context.getBean(PolyglotSandbox.class);
          // Read in this order: a warm-up still going after the pool was read was going when it was read,
          // and the pool is made at the warm-up's end (after several fresh Python contexts: seconds).
          int warm = sandbox.warmContexts(Language.PYTHON);
          assertThat(sandbox.started().toCompletableFuture()).as("warm-up still going").isNotDone();
          assertThat(warm).as("warm Python contexts when the context was ready").isZero();

          ExecutionResult r = sandbox.run(Language.PYTHON, "import json\njson.dumps({'answer': 6 * 7})");

          assertThat(r.outcome()).as("%s", r).isEqualTo(Outcome.OK);
          assertThat(r.value()).isEqualTo("{\"answer\": 42}");
          assertThat(sandbox.started().toCompletableFuture()).as("the run waited for the warm-up").isCompleted();
        });
  }

  @Test
  void startInBackgroundFalse_makesStartUpWaitForTheWarmUp_andFailOnIt() {
    runner.withPropertyValues("polyglot-sandbox.start-in-background=false").run(context ->
        assertThat(context.getBean(PolyglotSandbox.class).started().toCompletableFuture()).isCompleted());
    runner.withPropertyValues("polyglot-sandbox.start-in-background=false", "polyglot-sandbox.languages=python",
            "polyglot-sandbox.python-imports=no_such_module")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("no_such_module"));
  }

  @Test
  void pythonImports_areInEveryPythonContextBeforeItsFirstStatement_andABadNameIsRefusedNamingTheProperty() {
    runner.withPropertyValues("polyglot-sandbox.languages=python", "polyglot-sandbox.python-imports=json,fractions")
        .withPropertyValues(GENEROUS)
        .run(context -> {
          PolyglotSandbox sandbox = context.getBean(PolyglotSandbox.class);
          assertThat(sandbox.run(Language.PYTHON, "import sys\n['json' in sys.modules, 'fractions' in sys.modules,"
              + " 'shlex' in sys.modules]").value()).isEqualTo(List.of(true, true, false));
        });
    runner.withPropertyValues("polyglot-sandbox.languages=python", "polyglot-sandbox.python-imports=json;os")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("polyglot-sandbox.python-imports")
            .hasMessageContaining("'json;os'"));
  }

  @Test
  void pythonPath_putsAMountedPackageOnSysPath_forTheImports_andADirectoryOutsideTheMountsIsRefusedNamingTheProperty()
      throws Exception {
    Files.createDirectories(dir.resolve("lib/tally"));
    Files.writeString(dir.resolve("lib/tally/__init__.py"), "def total(xs):\n    return sum(xs)\n");
    Files.writeString(dir.resolve("policy.json"), """
        {"languages": ["python"], "mounts": [{"host": "lib", "guest": "/lib"}]}""");
    runner.withPropertyValues("polyglot-sandbox.policy-file=" + dir.resolve("policy.json"),
            "polyglot-sandbox.python-path=/lib", "polyglot-sandbox.python-imports=tally")
        .withPropertyValues(GENEROUS)
        .run(context -> {
          PolyglotSandbox sandbox = context.getBean(PolyglotSandbox.class);
          assertThat(sandbox.run(Language.PYTHON, "import sys\n[sys.path[0], 'tally' in sys.modules,"
              + " sys.modules['tally'].total([3, 4])]").value()).isEqualTo(List.of("/lib", true, 7L));
        });
    runner.withPropertyValues("polyglot-sandbox.policy-file=" + dir.resolve("policy.json"),
            "polyglot-sandbox.python-path=/pkgs")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("polyglot-sandbox.python-path")
            .hasMessageContaining("'/pkgs' is neither inside nor above any of the policy's mounts [/lib]"));
  }

  @Test
  void theSandbox_isClosedWithTheContext() {
    PolyglotSandbox[] seen = new PolyglotSandbox[1];
    runner.run(context -> seen[0] = context.getBean(PolyglotSandbox.class));

    assertThatThrownBy(() -> seen[0].run(Language.JAVASCRIPT, "1"))
        .isInstanceOf(IllegalStateException.class).hasMessage("sandbox is closed");
  }

  /** An application's listeners, typed as a {@code @Bean} method types them. */
  @Configuration(proxyBeanMethods = false)
  static class Listeners {
    static final List<AuditEvent> AUDIT = new CopyOnWriteArrayList<>();
    static final List<SandboxRun> RUNS = new CopyOnWriteArrayList<>();

    @Bean
    Consumer<AuditEvent> auditListener() {
      return AUDIT::add;
    }

    @Bean
    Consumer<SandboxRun> runListener() {
      return RUNS::add;
    }
  }

  @Test
  void auditAndRunListenerBeans_getTheirEvents() throws Exception {
    List<AuditEvent> audit = Listeners.AUDIT;
    List<SandboxRun> runs = Listeners.RUNS;
    runner.withUserConfiguration(Listeners.class)
        .run(context -> {
          var callback = context.getBean(SandboxToolCallbackProvider.class).getToolCallbacks()[0];
          callback.call("{\"code\": \"while (true) {}\"}");
          assertThat(runs).singleElement().satisfies(r -> assertThat(r.result().outcome()).isEqualTo(Outcome.LIMIT_EXCEEDED));
        });
    // close() waited for the listener to take what was queued.
    assertThat(audit).isNotEmpty().allSatisfy(e -> assertThat(e.runId()).isEqualTo(runs.get(0).result().runId()));
  }

  @Test
  void enabledFalse_makesNoBeans() {
    runner.withPropertyValues("polyglot-sandbox.enabled=false").run(context -> {
      assertThat(context).doesNotHaveBean(PolyglotSandbox.class);
      assertThat(context).doesNotHaveBean(SandboxToolCallbackProvider.class);
    });
  }

  @Test
  void anApplicationsOwnSandbox_isKept() {
    runner.withBean(PolyglotSandbox.class, () -> PolyglotSandbox.builder()
            .policy(Policy.computeOnly(Language.JAVASCRIPT).toBuilder().limits(
                org.polyglotsandbox.Limits.builder().wallTime(Duration.ofSeconds(1)).build()).build()).build())
        .run(context -> assertThat(context.getBean(PolyglotSandbox.class).policy().limits().wallTime())
            .isEqualTo(Duration.ofSeconds(1)));
  }

  @Test
  void aBadValue_failsTheContextNamingIt() throws Exception {
    Files.writeString(dir.resolve("bad.json"), "{\"limits\": {\"wallTme\": \"2s\"}}");
    runner.withPropertyValues("polyglot-sandbox.languages=cobol").run(context ->
        assertThat(context).getFailure().rootCause().hasMessageContaining("polyglot-sandbox.languages: unknown language 'cobol'"));
    runner.withPropertyValues("polyglot-sandbox.policy-file=" + dir.resolve("bad.json")).run(context ->
        assertThat(context).getFailure().rootCause()
            .hasMessageContaining(dir.resolve("bad.json") + ": limits.wallTme: unknown field (known fields of limits: maxStatements, wallTime"));
  }

}
