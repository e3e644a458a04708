package org.polyglotsandbox.internal.probe;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.polyglotsandbox.EscapeProbe.Observed;
import org.polyglotsandbox.EscapeProbe;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.Outcome;
import org.polyglotsandbox.PolicyReport;
import org.polyglotsandbox.SandboxEvent;
import org.polyglotsandbox.Verdict;

/**
 * The evidence rules: what a probe observed, from the guest's answer, the run's events and the host.
 *
 * <ul>
 *   <li>A host-side check that saw the operation happen (a file that appeared, a connection the host
 *       accepted) makes the probe reachable, whatever the guest said.
 *   <li>A "reachable" answer counts; for a tool call only with the gateway's record of the call.
 *   <li>A "blocked" answer counts only with the denial the refusing layer records, where it records
 *       one ({@link Probe#denial()}).
 *   <li>A run that ended before the guest answered counts as blocked only with a recorded denial (or,
 *       for an exit, with the exit status: the JVM kept running).
 *   <li>A bomb counts as blocked only when its own limit stopped it; a refused result only when the
 *       output boundary refused it.
 *   <li>Anything else is inconclusive.
 * </ul>
 */
final class Judge {
  private final PolicyReport declared;

  /** @param declared what the probes hold the sandbox to: the policy's report */
  Judge(PolicyReport declared) {
    this.declared = declared;
  }

  /** Judges an access probe from its answer (null if the run ended first), the run's events and the host. */
  EscapeProbe.Result access(Probe p, ExecutionResult r, String answer) {
    String host = p.hostCheck() == null ? null : p.hostCheck().get();
    if (host != null) {
      return result(p, Observed.REACHABLE, "host: " + host);
    }
    if (answer != null) {
      return answered(p, r, answer);
    }
    // The run ended before the guest could answer.
    if (r.outcome() == Outcome.GUEST_ERROR && (p.denial() != null && recorded(r, p.denial(), p.denialTarget())
        || recorded(r, p.operation(), ""))) {
      return result(p, Observed.BLOCKED, "the run ended: " + r.errorMessage().orElse("") + " [denial recorded]");
    }
    if (p.operation() == Operation.JVM_EXIT && r.exitStatus().isPresent()) {
      return result(p, Observed.BLOCKED, "exit status " + r.exitStatus().getAsInt() + " ended the run; the JVM"
          + " kept running");
    }
    return inconclusive(p, "the run ended without an answer: " + describe(r, null));
  }

  private EscapeProbe.Result answered(Probe p, ExecutionResult r, String answer) {
    if (answer.startsWith("reachable")) {
      if (p.toolEvent() != null && r.events().stream().noneMatch(e -> e instanceof SandboxEvent.ToolCall t
          && t.tool().equals(p.toolEvent()))) {
        return inconclusive(p, "the guest saw '" + answer + "' but the gateway recorded no call of " + p.toolEvent());
      }
      return result(p, Observed.REACHABLE, answer);
    }
    if (answer.startsWith("blocked")) {
      if (p.denial() != null && !recorded(r, p.denial(), p.denialTarget())) {
        return inconclusive(p, "the guest saw '" + answer + "' but no layer recorded a " + p.denial().id()
            + " denial of " + p.denialTarget());
      }
      return result(p, Observed.BLOCKED,
          answer + (p.denial() == null ? "" : " [" + p.denial().id() + " denial recorded]"));
    }
    return inconclusive(p, answer);
  }

  /** A bomb is blocked when its limit stopped it and reachable when it finished. */
  EscapeProbe.Result bomb(Probe p, ExecutionResult r) {
    if (p.limit() == null) {
      if (r.outcome() == Outcome.OUTPUT_REJECTED && r.outputRejection().isPresent()) {
        return result(p, Observed.BLOCKED, "rejected: " + r.errorMessage().orElse("output rejected"));
      }
      if (r.isOk()) {
        return result(p, Observed.REACHABLE, "the oversize result came out");
      }
      return inconclusive(p, "expected OUTPUT_REJECTED, got " + describe(r, null));
    }
    if (r.outcome() == Outcome.LIMIT_EXCEEDED && r.limit().orElse(null) == p.limit()
        && r.events().stream().anyMatch(e -> e instanceof SandboxEvent.LimitExceeded l && l.limit() == p.limit())) {
      return result(p, Observed.BLOCKED, "stopped: " + r.errorMessage().orElse(p.limit().id()));
    }
    if (r.isOk()) {
      return result(p, Observed.REACHABLE, "the bomb finished: " + String.valueOf(r.value()).lines().findFirst()
          .map(s -> s.length() > 80 ? s.substring(0, 80) + "..." : s).orElse(""));
    }
    return inconclusive(p, "expected limit " + Objects.requireNonNull(p.limit()).id() + ", got " + describe(r, null)
        + " after " + format(r.usage().wallTime()) + ", " + format(r.usage().cpuTime()) + " of CPU");
  }

  /** A probe whose observation cannot be told; {@code why} is the evidence. */
  EscapeProbe.Result inconclusive(Probe p, String why) {
    return result(p, Observed.INCONCLUSIVE, why);
  }

  /** The entry a probe tests, against the declared report. */
  PolicyReport.Entry entryOf(Probe p) {
    return declared.entryFor(p.operation(), p.target()).orElseThrow(() -> new IllegalStateException(
        "probe " + p.id() + ": no catalogue entry for " + p.operation().id() + " " + p.target()));
  }

  private EscapeProbe.Result result(Probe p, Observed observed, String evidence) {
    PolicyReport.Entry entry = entryOf(p);
    Verdict intended = p.intended() != null ? p.intended() : entry.verdict();
    return new EscapeProbe.Result(p.id(), p.language(), p.operation(), p.target(), entry, intended, observed,
        evidence);
  }

  private static boolean recorded(ExecutionResult r, Operation op, String target) {
    return r.deniedOperations().stream().anyMatch(d -> d.operation() == op && d.target().contains(target));
  }

  /** The run's outcome for evidence: the outcome, the limit and the error message. */
  static String describe(ExecutionResult r, String answer) {
    if (answer != null) {
      return answer;
    }
    return r.outcome() + r.limit().map(l -> " (" + l.id() + ")").orElse("")
        + r.errorMessage().map(m -> ": " + m).orElse("");
  }

  /** A duration for evidence, as {@code bin/sandbox} writes them: whole milliseconds below a minute. */
  private static String format(Duration d) {
    return d.toMillis() < 60_000 ? d.toMillis() + " ms" : String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
