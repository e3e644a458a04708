/**
 * What every enforcing layer shares: the {@link org.polyglotsandbox.internal.EnforcementSink} to which a
 * layer reports each operation it refused and each limit it saw reached during a run.
 *
 * <p>Depends only on the API's vocabulary ({@code Operation}, {@code Limit}, {@code Layer}). The layers
 * below it report through the sink without knowing who listens (the run's guard in
 * {@code internal.limits}); nothing here may depend on a layer.
 */
package org.polyglotsandbox.internal;
