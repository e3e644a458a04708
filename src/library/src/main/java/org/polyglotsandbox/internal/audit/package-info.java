/**
 * The audit trail: each run's {@code EventLedger} keeps its events in order and bounded, and hands
 * them, once each, to JDK Flight Recorder and, through the sandbox's bounded delivery queue
 * ({@code internal.delivery}), to the embedder's listener; a listener that is slow or fails never
 * holds or disturbs a run.
 *
 * <p>Depends on the API's event vocabulary ({@code AuditEvent}, {@code SandboxEvent}, {@code Operation},
 * {@code Layer}), on {@code internal.delivery} and on {@code jdk.jfr}. It delivers what the enforcing layers record and must not depend on them.
 */
package org.polyglotsandbox.internal.audit;
