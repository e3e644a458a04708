package org.polyglotsandbox.internal;

import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Operation;

/** Receives every operation a layer refused during one run. */
@FunctionalInterface
public interface DenialSink {
  void denied(Operation operation, String target, Layer layer);
}
