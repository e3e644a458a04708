/**
 * Resource caps over time: the {@code Watchdog} (wall-clock deadline and abandonment, CPU time and
 * allocation per run thread, inline tool timeouts, on an injectable ticker; and the statement limit
 * GraalVM counts), the JVM-wide {@code HeapSentinel} (every run against one heap budget, the heaviest
 * allocators stopped, new runs held while the heap recovers), each run's {@code RunGuard} (the first
 * limit that tripped decides the outcome) and its {@code Cancellation} (closing the context,
 * interrupting an inline handler).
 *
 * <p>May touch: the API's {@code Limit}, {@code Layer} and event types, {@code internal.audit} (each
 * guard records into an event ledger). Never the engine, the file system or the tools.
 */
package org.polyglotsandbox.internal.limits;
