package org.polyglotsandbox;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * What a run consumed.
 *
 * @param wallTime from the start of the run (fresh context included) to the copied-out result
 * @param cpuTime CPU time of the run's thread, from just before the program started
 * @param allocatedBytes heap bytes the run's thread allocated, from just before the program started
 * @param statements statements executed, known only when the statement limit tripped (GraalVM does not
 *     expose the counter otherwise)
 * @param outputBytes bytes the guest wrote to stdout and stderr together, including any that were cut
 * @param fileBytes bytes held by the run's file system at the end (mounted copies included)
 * @param files files and directories in the run's file system at the end (mounted copies included)
 */
public record Usage(Duration wallTime, Duration cpuTime, long allocatedBytes, OptionalLong statements,
    long outputBytes, long fileBytes, long files) {}
