package org.polyglotsandbox.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.micrometer.SandboxMetrics;

/**
 * {@link SandboxTools} built with registries counts and observes its runs, the model's tool call id on the
 * run's observation, until it is closed.
 */
class SandboxToolsObservabilityTest {
  @Test
  void registries_countAndObserveEachCall_withTheModelsCallId_untilClosed() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    ObservationRegistry observations = ObservationRegistry.create();
    List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
    observations.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }

      @Override
      public void onStop(Observation.Context context) {
        stopped.add(context);
      }
    });
    try (PolyglotSandbox sandbox = PolyglotSandbox.builder().policy(Policy.computeOnly(Language.JAVASCRIPT)).build()) {
      SandboxTools tools = SandboxTools.builder(sandbox).meterRegistry(meters).observationRegistry(observations).build();
      ToolExecutionRequest request = ToolExecutionRequest.builder().id("call_7Qx").name("run_javascript")
          .arguments("{\"code\": \"6 * 7\"}").build();
      String text = tools.tools().values().iterator().next().execute(request, "memory-1");
      assertThat(text).contains("42");

      assertThat(meters.get(SandboxMetrics.RUNS).tags("language", "js", "outcome", "ok").counter().count()).isEqualTo(1);
      assertThat(stopped).singleElement().satisfies(c -> {
        assertThat(c.getContextualName()).isEqualTo("execute_tool run_javascript");
        assertThat(c.getHighCardinalityKeyValue("gen_ai.tool.call.id").getValue()).isEqualTo("call_7Qx");
      });

      tools.close();
      tools.tools().values().iterator().next().execute(request, "memory-1");
      assertThat(meters.find(SandboxMetrics.RUNS).counters()).isEmpty();
      assertThat(stopped).hasSize(1);
    }
  }
}
