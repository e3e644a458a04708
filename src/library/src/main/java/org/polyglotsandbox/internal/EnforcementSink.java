package org.polyglotsandbox.internal;

import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Operation;

/** Receives what a layer enforced during one run: refused operations and reached limits. */
public interface EnforcementSink {
  /** Guest code attempted an operation the policy does not allow; it was refused. */
  void denied(Operation operation, String target, Layer layer);

  /** A limit was reached; the run must end with it. */
  void limitReached(Limit limit, String detail, Layer layer);
}
