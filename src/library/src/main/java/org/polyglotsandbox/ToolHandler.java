package org.polyglotsandbox;

import java.util.Map;

/**
 * The host side of a {@link Tool}: plain Java values in, a plain value out.
 *
 * <p>It runs on a sandbox-owned thread, never on the guest's, so that its {@linkplain Tool#timeout()
 * timeout} and the run's wall-clock deadline hold while it works. It may be called from several runs
 * at once; it must be thread-safe.
 */
@FunctionalInterface
public interface ToolHandler {
  /**
   * Handles one call.
   *
   * @param arguments the guest's arguments, already copied out of the guest and validated against the
   *     tool's parameter schema: an unmodifiable map whose values are only {@code null}, {@link Boolean},
   *     {@link Long}, {@link Double}, {@link java.math.BigInteger}, {@link String}, unmodifiable
   *     {@link java.util.List} and unmodifiable {@link Map} with string keys. Treat them as untrusted
   *     data.
   * @return the result: {@code null}, a {@link Boolean}, {@link Number}, {@link String}, {@link
   *     java.util.List} or {@link Map} with string keys, nested; anything else fails the call
   * @throws ToolException to fail the call with a message meant for the guest
   * @throws Exception for any other failure; the guest sees only its message, never its class or stack
   */
  Object call(Map<String, Object> arguments) throws Exception;
}
