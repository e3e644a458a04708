/**
 * The audit trail: every event a run's layers record reaches JDK Flight Recorder and the embedder's
 * listener, and a listener that fails never disturbs the run.
 *
 * <p>Depends on the API's {@code AuditEvent} and {@code SandboxEvent} and on {@code jdk.jfr}. It only
 * delivers what it is handed (by {@code internal.limits}' run guard) and must not depend on the layers
 * that produce the events.
 */
package org.polyglotsandbox.internal.audit;
