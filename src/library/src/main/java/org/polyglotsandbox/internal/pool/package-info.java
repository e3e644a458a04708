/**
 * Admission and reuse: how many runs execute and wait at once, the threads they run on, and contexts
 * made in advance; none of it carries guest state from one run to the next.
 *
 * <p>{@code Admission} bounds running and waiting runs, with no unbounded queue; {@code RunThreads}
 * keeps platform threads with the policy's stack size; {@code WarmPool} makes items ahead of time and
 * hands each out at most once.
 *
 * <p>Depends on {@code java.base} only: it knows nothing of languages, contexts or policies (what it
 * pools is a type parameter), and must not depend on the API or any other layer.
 */
package org.polyglotsandbox.internal.pool;
