package org.polyglotsandbox.internal.spi;

import java.util.List;
import java.util.Map;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.SandboxEvent;

/**
 * Everything one run produced, as the engine room hands it to the API ({@link ApiAccess#result}), which
 * wraps it as an {@link ExecutionResult}. Every text in it is already sanitised and bounded.
 */
public record RunRecord(Outcome outcome, Limit limit, Object value, String errorMessage, List<String> guestStackTrace,
    Integer exitStatus, String stdout, String stderr, ExecutionResult.Usage usage, List<SandboxEvent> events,
    SandboxEvent.OutputRejected rejection, ExecutionResult.OutputNotes notes,
    Map<String, ExecutionResult.OutputFile> outputFiles, List<String> missingOutputFiles, String runId,
    String label, long undeliveredOutputChunks, int droppedEvents, int undeliveredAuditEvents) {}
