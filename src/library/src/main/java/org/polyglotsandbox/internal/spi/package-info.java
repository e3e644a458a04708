/**
 * The contract between the API and the engine room, and nothing else: {@link
 * org.polyglotsandbox.internal.spi.SandboxCore} (what {@code PolyglotSandbox} delegates to, found with
 * {@link java.util.ServiceLoader}) and {@link org.polyglotsandbox.internal.spi.ApiAccess} (what the
 * engine room may ask of the API: result values only the API may make, the parts of scripts and tools
 * it keeps to itself).
 *
 * <p>May touch: API types and API-free internal classes, in signatures only. Holds no behaviour.
 */
package org.polyglotsandbox.internal.spi;
