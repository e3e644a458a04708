/**
 * Hands what the sandbox's threads produce (audit events; later, streamed output) to embedder code on a
 * thread of its own, through a bounded queue, so that embedder code can never hold a guest thread, the
 * watchdog or a caller: a full queue drops and counts, it never waits.
 *
 * <p>Depends on {@code java.base} only. It must not import the API package {@code org.polyglotsandbox}
 * or any other layer, so that every layer may use it without a cycle.
 */
package org.polyglotsandbox.internal.delivery;
