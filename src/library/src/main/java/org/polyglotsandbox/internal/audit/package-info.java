/**
 * The audit trail: the events a run records reach JDK Flight Recorder and the embedder's listener, and
 * a listener that fails never disturbs the run.
 *
 * <p>Depends on the API's event types ({@code AuditEvent}, {@code SandboxEvent}) and on
 * {@code jdk.jfr}. It delivers what the enforcing layers record and must not depend on them.
 */
package org.polyglotsandbox.internal.audit;
