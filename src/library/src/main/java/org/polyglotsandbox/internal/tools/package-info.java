/**
 * The tool gateway: guest code reaches host functions only by allowed name, with plain-data arguments
 * checked against the tool's schema, a per-run call budget and a timeout, and never sees a host object.
 *
 * <p>{@code ToolGateway} is one run's guest-side {@code tools} object and the one host function behind
 * it; {@code ToolRegistry} holds a sandbox's tools ({@code ToolBinding}); {@code HandlerThreads} runs
 * handlers off the guest's thread, so a blocked handler cannot hold a run past its deadline.
 *
 * <p>Depends on the API's {@code Tool} types and vocabulary, {@code internal.boundary} (plain data,
 * value copying, schemas, host detail out of a handler's message), {@code internal.limits} (the run's
 * guard), {@code internal.text} and GraalVM's polyglot API. It must not depend on the engine, the file
 * system, the pool or audit.
 */
package org.polyglotsandbox.internal.tools;
