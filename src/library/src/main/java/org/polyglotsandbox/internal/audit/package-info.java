/**
 * The audit trail: each run's {@code EventLedger} keeps its events in order and bounded, and delivers
 * them, once each, to JDK Flight Recorder and the embedder's listener; a listener that fails never
 * disturbs the run.
 *
 * <p>Depends on the API's event vocabulary ({@code AuditEvent}, {@code SandboxEvent}, {@code Operation},
 * {@code Layer}) and on {@code jdk.jfr}. It delivers what the enforcing layers record and must not depend on them.
 */
package org.polyglotsandbox.internal.audit;
