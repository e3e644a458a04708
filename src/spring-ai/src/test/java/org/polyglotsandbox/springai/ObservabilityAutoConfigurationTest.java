package org.polyglotsandbox.springai;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.micrometer.SandboxMetrics;
import org.polyglotsandbox.micrometer.SandboxObservations;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With a {@code MeterRegistry} or an {@code ObservationRegistry} bean in the application, the auto-configuration
 * binds the sandbox's meters and observations to it, and unbinds them with the context; without, nothing is bound.
 */
class ObservabilityAutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(PolyglotSandboxAutoConfiguration.class))
      .withPropertyValues("polyglot-sandbox.start-in-background=false");

  @Configuration(proxyBeanMethods = false)
  static class Registries {
    static final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }

    @Bean
    ObservationRegistry observationRegistry() {
      ObservationRegistry r = ObservationRegistry.create();
      r.observationConfig().observationHandler(new ObservationHandler<>() {
        @Override
        public boolean supportsContext(Observation.Context context) {
          return true;
        }

        @Override
        public void onStop(Observation.Context context) {
          stopped.add(context);
        }
      });
      return r;
    }
  }

  @Test
  void withRegistries_runsAreCountedAndObserved_untilTheContextCloses() {
    Registries.stopped.clear();
    MeterRegistry[] kept = new MeterRegistry[1];
    runner.withUserConfiguration(Registries.class).run(context -> {
      PolyglotSandbox sandbox = context.getBean(PolyglotSandbox.class);
      sandbox.run(Language.JAVASCRIPT, "6 * 7");
      MeterRegistry meters = context.getBean(MeterRegistry.class);
      kept[0] = meters;
      assertThat(meters.get(SandboxMetrics.RUNS).tags("language", "js", "outcome", "ok").counter().count()).isEqualTo(1);
      assertThat(Registries.stopped).singleElement().satisfies(c -> {
        assertThat(c.getName()).isEqualTo(SandboxObservations.NAME);
        assertThat(c.getContextualName()).isEqualTo("execute_tool run_javascript");
      });
    });
    assertThat(kept[0].find(SandboxMetrics.RUNS).counters()).isEmpty();
  }

  @Test
  void withoutRegistries_nothingIsBound() {
    runner.run(context -> {
      assertThat(context.getBeansOfType(PolyglotSandboxAutoConfiguration.SandboxBinding.class).values())
          .isNotEmpty().allSatisfy(b -> assertThat(b.bound()).isNull());
      context.getBean(PolyglotSandbox.class).run(Language.JAVASCRIPT, "1");
    });
  }
}
