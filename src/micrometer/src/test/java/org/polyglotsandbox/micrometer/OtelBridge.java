package org.polyglotsandbox.micrometer;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;

/**
 * An {@link ObservationRegistry} wired to OpenTelemetry through Micrometer Tracing's bridge as Spring Boot wires
 * it (sender, receiver and default tracing handlers, first match wins; W3C trace context), exporting every
 * span to memory.
 */
final class OtelBridge implements AutoCloseable {
  final InMemorySpanExporter spans = InMemorySpanExporter.create();
  final OtelTracer tracer;
  final ObservationRegistry registry = ObservationRegistry.create();
  private final SdkTracerProvider provider;

  OtelBridge() {
    provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
    OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(provider)
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
    io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("polyglot-sandbox-test");
    OtelCurrentTraceContext current = new OtelCurrentTraceContext();
    tracer = new OtelTracer(otel, current, event -> { }, new OtelBaggageManager(current, List.of(), List.of()));
    OtelPropagator propagator = new OtelPropagator(sdk.getPropagators(), otel);
    registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
        new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
        new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
        new DefaultTracingObservationHandler(tracer)));
  }

  @Override
  public void close() {
    provider.close();
  }
}
