/**
 * polyglot-sandbox's API: everything an application uses, nothing it does not.
 *
 * <p>{@link org.polyglotsandbox.PolyglotSandbox} runs {@link org.polyglotsandbox.Script}s under a
 * deny-by-default {@link org.polyglotsandbox.Policy} (languages, {@link org.polyglotsandbox.Mount}s,
 * allowed {@link org.polyglotsandbox.Tool}s, {@link org.polyglotsandbox.Limits}) and returns an
 * {@link org.polyglotsandbox.ExecutionResult} of plain data. What a policy allows and denies is
 * readable ({@link org.polyglotsandbox.PolicyReport}), what happened in a run is audited
 * ({@link org.polyglotsandbox.AuditEvent}), and the wall can be attacked from inside on demand.
 *
 * <p>The package holds values and a thin front. It depends on {@code internal.spi} (the engine room's
 * contract, found with {@link java.util.ServiceLoader}) and on internal classes that depend on nothing
 * here (JSON Schema, plain data, text sanitising); never on the engine room itself
 * ({@code ArchitectureTest}).
 */
package org.polyglotsandbox;
