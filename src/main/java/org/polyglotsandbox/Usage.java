package org.polyglotsandbox;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * What a run consumed.
 *
 * @param wallTime from the start of the run (fresh context included) to the copied-out result
 * @param statements statements executed, known only when the statement limit tripped (GraalVM does not
 *     expose the counter otherwise)
 * @param outputBytes bytes the guest wrote to stdout and stderr together, including any that were cut
 */
public record Usage(Duration wallTime, OptionalLong statements, long outputBytes) {}
