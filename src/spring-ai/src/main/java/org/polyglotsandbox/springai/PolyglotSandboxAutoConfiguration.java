package org.polyglotsandbox.springai;

import java.util.function.Consumer;
import org.polyglotsandbox.AuditEvent;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.micrometer.SandboxMetrics;
import org.polyglotsandbox.micrometer.SandboxObservations;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Spring Boot auto-configuration: a {@link PolyglotSandbox} bean built from {@link PolyglotSandboxProperties}
 * ({@code polyglot-sandbox.*}) and closed with the application context, and a
 * {@link SandboxToolCallbackProvider} over it.
 *
 * <p>Listed in this module's {@code META-INF/spring/...AutoConfiguration.imports}, so it is active only
 * when the module is on the class path, and then unless {@code polyglot-sandbox.enabled=false}. Each bean
 * backs off when the application defines its own. Every {@link Tool} bean is registered with the sandbox;
 * guest code sees only those the policy allows by name. A {@code Consumer<AuditEvent>} bean, if there is
 * one, is the sandbox's audit listener, and a {@code Consumer<SandboxRun>} bean gets every run the
 * tool callbacks make, with its conversation id.
 *
 * <p>With a Micrometer {@code MeterRegistry} bean (Spring Boot Actuator's), the sandbox's meters are bound to it
 * ({@code polyglot-sandbox-micrometer}'s {@link SandboxMetrics}); with an {@code ObservationRegistry} bean, each
 * run and each host tool call is observed ({@link SandboxObservations}), which Boot's tracing bridge turns into
 * OpenTelemetry {@code execute_tool} spans. See docs/metrics-and-traces.md.
 *
 * @since 0.1.0
 */
@AutoConfiguration
@ConditionalOnClass(PolyglotSandbox.class)
@ConditionalOnBooleanProperty(name = "polyglot-sandbox.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PolyglotSandboxProperties.class)
public class PolyglotSandboxAutoConfiguration {
  /**
   * The sandbox; {@code close()} is its destroy method. It warms up in the background unless
   * {@code polyglot-sandbox.start-in-background=false}, so the context does not wait for the first context
   * of each language (seconds for Python); {@link PolyglotSandbox#started()} completes when it has.
   *
   * @throws IllegalArgumentException naming the property or the policy file's field, for a bad value
   * @since 0.1.0
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public PolyglotSandbox polyglotSandbox(PolyglotSandboxProperties properties, ObjectProvider<Tool> tools,
      ObjectProvider<Consumer<AuditEvent>> auditListener) {
    PolyglotSandbox.Builder b = PolyglotSandbox.builder().policy(policy(properties));
    tools.orderedStream().forEach(b::tool);
    auditListener.ifAvailable(b::auditListener);
    if (properties.getWarmContexts() != 0) {
      b.warmContexts(properties.getWarmContexts());
    }
    if (properties.getMaxConcurrentRuns() != null) {
      b.maxConcurrentRuns(properties.getMaxConcurrentRuns());
    }
    if (properties.getMaxWaitingRuns() != null) {
      b.maxWaitingRuns(properties.getMaxWaitingRuns());
    }
    if (properties.getStartTimeout() != null) {
      b.startTimeout(properties.getStartTimeout());
    }
    if (properties.getWarmUp() != null) {
      b.warmUp(properties.getWarmUp());
    }
    if (properties.isStartInBackground()) {
      b.startInBackground();
    }
    if (!properties.getPythonImports().isEmpty()) {
      try {
        b.pythonImports(properties.getPythonImports().toArray(String[]::new));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("polyglot-sandbox.python-imports: " + e.getMessage());
      }
    }
    if (!properties.getPythonPath().isEmpty()) {
      try {
        b.pythonPath(properties.getPythonPath().toArray(String[]::new));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("polyglot-sandbox.python-path: " + e.getMessage());
      }
    }
    try {
      return b.build();
    } catch (IllegalStateException e) {
      // The builder's checks against the policy (a directory outside every mount) name the builder method.
      if (e.getMessage() != null && e.getMessage().startsWith("pythonPath")) {
        throw new IllegalArgumentException("polyglot-sandbox.python-path: " + e.getMessage());
      }
      throw e;
    }
  }

  /**
   * {@code run_javascript} / {@code run_python} for the languages the sandbox's policy allows.
   *
   * @since 0.1.0
   */
  @Bean
  @ConditionalOnMissingBean
  public SandboxToolCallbackProvider sandboxToolCallbackProvider(PolyglotSandbox sandbox,
      ObjectProvider<Consumer<SandboxRun>> onRun) {
    return SandboxToolCallbackProvider.of(sandbox, onRun.getIfAvailable());
  }

  /**
   * The sandbox's meters ({@link SandboxMetrics}) in the application's {@code MeterRegistry}, such as Spring Boot
   * Actuator's, when there is one: bound once every singleton exists, so whichever auto-configuration makes the
   * registry, and unbound with the context.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"org.polyglotsandbox.micrometer.SandboxMetrics", "io.micrometer.core.instrument.MeterRegistry"})
  static class Metrics {
    @Bean
    @ConditionalOnMissingBean(name = "polyglotSandboxMetrics")
    static SandboxBinding polyglotSandboxMetrics(ObjectProvider<PolyglotSandbox> sandbox,
        ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registry) {
      return new SandboxBinding(() -> {
        PolyglotSandbox s = sandbox.getIfUnique();
        io.micrometer.core.instrument.MeterRegistry r = registry.getIfUnique();
        return s == null || r == null ? null : SandboxMetrics.bind(s, r);
      });
    }
  }

  /**
   * The sandbox's observations ({@link SandboxObservations}: an {@code execute_tool} span per run and per host
   * tool call with Boot's tracing bridge) in the application's {@code ObservationRegistry}, when there is one.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"org.polyglotsandbox.micrometer.SandboxObservations",
      "io.micrometer.observation.ObservationRegistry"})
  static class Observations {
    @Bean
    @ConditionalOnMissingBean(name = "polyglotSandboxObservations")
    static SandboxBinding polyglotSandboxObservations(ObjectProvider<PolyglotSandbox> sandbox,
        ObjectProvider<io.micrometer.observation.ObservationRegistry> registry) {
      return new SandboxBinding(() -> {
        PolyglotSandbox s = sandbox.getIfUnique();
        io.micrometer.observation.ObservationRegistry r = registry.getIfUnique();
        return s == null || r == null ? null : SandboxObservations.bind(s, r);
      });
    }
  }

  /**
   * Attaches something to the sandbox once every singleton exists (the registries included, whichever
   * auto-configuration makes them) and detaches it when the context closes.
   */
  public static final class SandboxBinding implements SmartInitializingSingleton, DisposableBean {
    private final java.util.function.Supplier<AutoCloseable> bind;
    private volatile AutoCloseable bound;

    SandboxBinding(java.util.function.Supplier<AutoCloseable> bind) {
      this.bind = bind;
    }

    /** What was attached: a {@link SandboxMetrics} or {@link SandboxObservations}; null if there was no registry. */
    public AutoCloseable bound() {
      return bound;
    }

    @Override
    public void afterSingletonsInstantiated() {
      bound = bind.get();
    }

    @Override
    public void destroy() throws Exception {
      AutoCloseable b = bound;
      if (b != null) {
        b.close();
      }
    }
  }

  static Policy policy(PolyglotSandboxProperties p) {
    PolicyFileReader.Read file = p.getPolicyFile() != null ? PolicyFileReader.read(p.getPolicyFile()) : null;
    Policy.Builder b = file != null ? file.policy() : Policy.builder();
    if ((file == null || !file.namesLanguages()) && p.getLanguages().isEmpty()) {
      b.allowLanguages(Language.JAVASCRIPT);
    }
    for (String language : p.getLanguages()) {
      try {
        b.allowLanguages(Language.fromId(language));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("polyglot-sandbox.languages: " + e.getMessage());
      }
    }
    for (String tool : p.getTools()) {
      try {
        b.allowTools(tool);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("polyglot-sandbox.tools: " + e.getMessage());
      }
    }
    Policy draft = b.build();
    PolyglotSandboxProperties.LimitsProperties l = p.getLimits();
    Limits.Builder limits = draft.limits().toBuilder();
    try {
      if (l.getWallTime() != null) {
        limits.wallTime(l.getWallTime());
      }
      if (l.getMaxCpuTime() != null) {
        limits.maxCpuTime(l.getMaxCpuTime());
      }
      if (l.getMaxStatements() != null) {
        limits.maxStatements(l.getMaxStatements());
      }
      if (l.getMaxAllocatedBytes() != null) {
        limits.maxAllocatedBytes(l.getMaxAllocatedBytes().toBytes());
      }
      if (l.getMaxOutputBytes() != null) {
        limits.maxOutputBytes(l.getMaxOutputBytes().toBytes());
      }
      if (l.getMaxFileBytes() != null) {
        limits.maxFileBytes(l.getMaxFileBytes().toBytes());
      }
      if (l.getMaxFiles() != null) {
        limits.maxFiles(l.getMaxFiles());
      }
      return draft.toBuilder().limits(limits.build()).build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("polyglot-sandbox.limits: " + e.getMessage());
    }
  }
}
