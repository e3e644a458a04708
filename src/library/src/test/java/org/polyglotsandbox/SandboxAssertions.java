package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.assertj.core.api.AbstractAssert;

/** Domain assertions: {@code assertThatRun(result).wasDeniedBy(Operation.FILE_READ, "/etc/passwd")}. */
public final class SandboxAssertions extends AbstractAssert<SandboxAssertions, ExecutionResult> {
  private static final Pattern HOST_DETAIL = Pattern.compile(
      "\\b(?:java\\.|javax\\.|jdk\\.internal|sun\\.|com\\.oracle\\.|org\\.graalvm\\.|org\\.polyglotsandbox\\.)"
          + "|\\bat [\\w.$]+\\(");

  private SandboxAssertions(ExecutionResult actual) {
    super(actual, SandboxAssertions.class);
  }

  public static SandboxAssertions assertThatRun(ExecutionResult result) {
    return new SandboxAssertions(result);
  }

  public SandboxAssertions isOk() {
    isNotNull();
    if (!actual.isOk()) {
      failWithMessage("expected OK but was %s", actual);
    }
    return this;
  }

  public SandboxAssertions hasOutcome(Outcome outcome) {
    isNotNull();
    if (actual.outcome() != outcome) {
      failWithMessage("expected %s but was %s", outcome, actual);
    }
    return this;
  }

  public SandboxAssertions hasValue(Object value) {
    isOk();
    assertThat(actual.value()).as("value of %s", actual).isEqualTo(value);
    return this;
  }

  public SandboxAssertions wasStoppedBy(Limit limit) {
    hasOutcome(Outcome.LIMIT_EXCEEDED);
    assertThat(actual.limit()).as("limit of %s", actual).contains(limit);
    assertThat(actual.events()).as("events of %s", actual)
        .anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(SandboxEvent.LimitExceeded.class,
            l -> assertThat(l.limit()).isEqualTo(limit)));
    return this;
  }

  /**
   * The output boundary rejected the run's output for {@code reason} at {@code path} (exactly), and the
   * error message names both the path and the cap.
   */
  public SandboxAssertions wasRejected(SandboxEvent.OutputRejected.Reason reason, String path) {
    hasOutcome(Outcome.OUTPUT_REJECTED);
    assertThat(actual.value()).as("value of %s", actual).isNull();
    assertThat(actual.outputRejection()).as("rejection of %s", actual).hasValueSatisfying(o -> {
      assertThat(o.reason()).isEqualTo(reason);
      assertThat(o.path()).isEqualTo(path);
      assertThat(o.layer()).isEqualTo(Layer.OUTPUT_BOUNDARY);
    });
    assertThat(actual.errorMessage()).as("error of %s", actual).hasValue("output rejected: " + path + ": "
        + actual.outputRejection().orElseThrow().detail());
    assertThat(actual.events()).as("events of %s", actual).contains(actual.outputRejection().orElseThrow());
    return this;
  }

  /** The run recorded a denial of {@code operation} whose target contains {@code target}. */
  public SandboxAssertions recordedDenial(Operation operation, String target) {
    isNotNull();
    assertThat(actual.deniedOperations()).as("denied operations of %s", actual)
        .anySatisfy(d -> {
          assertThat(d.operation()).isEqualTo(operation);
          assertThat(d.target()).contains(target);
        });
    return this;
  }

  /** The program's value says its attempt raised (see {@link GuestCode#attempt}). */
  public SandboxAssertions attemptWasDenied() {
    isOk();
    assertThat(actual.value()).as("attempt result").asString().startsWith("DENIED");
    return this;
  }

  /** Nothing the guest can see or produced carries a host class name or host stack frame. */
  public SandboxAssertions leaksNoHostDetail() {
    isNotNull();
    for (String text : new String[] {actual.errorMessage().orElse(""), String.valueOf(actual.value()),
        actual.stdout(), actual.stderr(), String.join("\n", actual.guestStackTrace())}) {
      assertThat(HOST_DETAIL.matcher(text).find()).as("host detail in '%s'", text).isFalse();
    }
    return this;
  }
}
