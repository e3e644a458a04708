/**
 * Micrometer meters ({@link org.polyglotsandbox.micrometer.SandboxMetrics}) and Observations
 * ({@link org.polyglotsandbox.micrometer.SandboxObservations}, which a tracing bridge turns into OpenTelemetry
 * spans named by the GenAI conventions) of a sandbox's runs, host tool calls and denials. Each attaches to a
 * built {@link org.polyglotsandbox.PolyglotSandbox} with one call, through its
 * {@link org.polyglotsandbox.PolyglotSandbox.RunObserver} hook, and detaches with {@code close()}.
 *
 * <p>May touch: the library's exported package and Micrometer's API; nothing of the library's engine room.
 */
package org.polyglotsandbox.micrometer;
