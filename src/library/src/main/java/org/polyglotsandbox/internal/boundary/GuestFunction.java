package org.polyglotsandbox.internal.boundary;

import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyExecutable;

/**
 * A host function handed to guest code under a plain name. Python closures are introspectable, so a guest
 * can dig such a function out of the sandbox's own wrappers, and {@code str()} of it shows the host
 * object's {@code toString()}: a lambda's names a host class ({@code ToolGateway$$Lambda/0x...}). This one
 * shows only {@code name}.
 */
public final class GuestFunction implements ProxyExecutable {
  private final String name;
  private final ProxyExecutable body;

  private GuestFunction(String name, ProxyExecutable body) {
    this.name = name;
    this.body = body;
  }

  /** {@code body} under {@code name}, which is all a guest sees of it besides calling it. */
  public static GuestFunction named(String name, ProxyExecutable body) {
    return new GuestFunction(name, body);
  }

  @Override
  public Object execute(Value... arguments) {
    return body.execute(arguments);
  }

  @Override
  public String toString() {
    return name;
  }
}
