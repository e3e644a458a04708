package org.polyglotsandbox.internal.probe;

import java.util.Objects;
import java.util.function.Supplier;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.PolicyReport;
import org.polyglotsandbox.Verdict;

/**
 * One attempt of the escape probe: guest code in one language that tries one operation on one target
 * and says what it saw, plus what the host expects to record if a layer refuses it.
 *
 * <p>A probe body is the body of a function {@code probe(audit)} (JavaScript: may return a promise)
 * that returns {@code "reachable: <evidence>"} when it performed the operation and {@code "blocked:
 * <evidence>"} when it could not; an exception it does not catch counts as blocked, with the exception
 * as evidence. {@code audit} holds the host's fixtures ({@link ProbeFixtures#data}).
 *
 * @param kind how the probe runs (see {@link Kind})
 * @param target the catalogue target the probe's attempt falls under; {@link PolicyReport#entryFor}
 *     resolves guest paths and tool names to their entry
 * @param code the body; for {@link Kind#BOMB}, a whole program
 * @param plant for {@link Kind#STATE}: the body run first, in an earlier run
 * @param denial a denial event the host must have recorded for a "blocked" answer to count, or null
 *     when the refusal happens where no layer records it
 * @param denialTarget text the denial event's target must contain
 * @param toolEvent the tool whose {@code ToolCall} event must back a "reachable" answer, or null
 * @param limit for bombs: the limit that must stop the run; null for a result the output boundary must refuse
 * @param hostCheck after the run, evidence the host saw the operation happen (a created file, an
 *     accepted connection), or null when it saw nothing; null when the host cannot observe it
 * @param intended the verdict the probe assumes, overriding the policy's; null to use the policy's
 *     (tests use it to plant a wrong expectation)
 */
record Probe(String id, Language language, Kind kind, Operation operation, String target, String code,
    String plant, Operation denial, String denialTarget, String toolEvent, Limit limit, Supplier<String> hostCheck,
    Verdict intended) {

  /** How a probe runs. */
  enum Kind {
    /** With the other batch probes of its language in one run of the policy's sandbox. */
    BATCH,
    /** In a run of its own in the policy's sandbox: its attempt may end the run. */
    ALONE,
    /** {@link #plant} in one run, the body in the next two runs of the policy's sandbox. */
    STATE,
    /**
     * A whole program in its own run of a sandbox with the policy's permissions and its {@link #limit}
     * short (see {@link RunKind}).
     */
    BOMB
  }

  Probe {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(language, "language");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(code, "code");
  }

  static Builder js(String id, Operation operation, String target) {
    return of(Language.JAVASCRIPT, id, operation, target);
  }

  static Builder py(String id, Operation operation, String target) {
    return of(Language.PYTHON, id, operation, target);
  }

  static Builder of(Language language, String id, Operation operation, String target) {
    return new Builder(id, language, operation, target);
  }

  /** This probe assuming {@code verdict} whatever the policy says. */
  Probe assuming(Verdict verdict) {
    return new Probe(id, language, kind, operation, target, code, plant, denial, denialTarget, toolEvent, limit,
        hostCheck, verdict);
  }

  /** Builds a probe; {@link #code} finishes it. */
  static final class Builder {
    private final String id;
    private final Language language;
    private final Operation operation;
    private final String target;
    private Kind kind = Kind.BATCH;
    private String plant;
    private Operation denial;
    private String denialTarget = "";
    private String toolEvent;
    private Limit limit;
    private Supplier<String> hostCheck;

    private Builder(String id, Language language, Operation operation, String target) {
      this.id = id;
      this.language = language;
      this.operation = operation;
      this.target = target;
    }

    /** Runs alone: the attempt may end the run. */
    Builder alone() {
      this.kind = Kind.ALONE;
      return this;
    }

    /** A blocked answer needs a denial of this operation whose target contains {@code target}. */
    Builder denial(Operation operation, String target) {
      this.denial = operation;
      this.denialTarget = target;
      return this;
    }

    /** A blocked answer needs a denial of the probe's own operation on {@code target}. */
    Builder denial(String target) {
      return denial(operation, target);
    }

    /** A reachable answer needs a tool-call event of this tool. */
    Builder toolEvent(String tool) {
      this.toolEvent = tool;
      return this;
    }

    Builder hostCheck(Supplier<String> check) {
      this.hostCheck = check;
      return this;
    }

    /** Plants with {@code plantCode} in one run and looks with the body in the next. */
    Builder plant(String plantCode) {
      this.kind = Kind.STATE;
      this.plant = plantCode;
      return this;
    }

    /** A whole program whose result the output boundary must refuse ({@code OUTPUT_REJECTED}). */
    Builder rejectedOutput() {
      this.kind = Kind.BOMB;
      this.limit = null;
      return this;
    }

    /** A whole program the limit must stop. */
    Builder bomb(Limit limit) {
      this.kind = Kind.BOMB;
      this.limit = limit;
      return this;
    }

    Probe code(String code) {
      return new Probe(id, language, kind, operation, target, code.strip(), plant, denial, denialTarget, toolEvent,
          limit, hostCheck, null);
    }
  }
}
