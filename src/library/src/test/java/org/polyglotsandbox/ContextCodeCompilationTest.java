package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The sandbox's own code that runs once in every context is never compiled (see
 * {@link ContextCodeCompilationMain}): 150 Python contexts in a 384 MiB heap, and no compilation of it
 * starts, so none fails, and the host never runs out of heap.
 */
@Tag("slow")
class ContextCodeCompilationTest {
  @Test
  void contextsMadeBackToBack_neverHaveTheCompilerBuildTheShieldsGraph() throws IOException, InterruptedException {
    ForkedJvm.Result fork = ForkedJvm.run(ContextCodeCompilationMain.class, "384m", 8, List.of(), List.of("150", "15"));
    String output = fork.output();
    assertThat(fork.finished()).as("finished:\n%s", output).isTrue();
    assertThat(fork.exitStatus()).as("exit status:\n%s", output).isZero();
    assertThat(output).contains("HEALTHY 42").doesNotContain("FAILED run").doesNotContain("OutOfMemoryError");
    assertThat(output).as("compilations of the sandbox's per-context code").doesNotContain("COMPILED ");
  }
}
