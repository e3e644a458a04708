package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a host where GraalPy has never extracted its home, process isolation extracts it first (outside the
 * wall, with no guest code) and the walled workers read it: a fresh machine's first Python run works.
 */
@Tag("slow")
class ProcessFreshCacheTest {
  @Test
  void emptyGraalPyCache_isFilledBeforeTheWalledWorkersStart(@TempDir Path cache) throws Exception {
    ForkedJvm.Result fork = ForkedJvm.run(ProcessFreshCacheMain.class, "256m", 10,
        List.of("-Dpolyglot.engine.userResourceCache=" + cache), List.of());
    assertThat(fork.finished()).as(fork.output()).isTrue();
    assertThat(fork.output()).contains("result: OK 3").contains("wall: process isolation").contains("seccomp");
    try (Stream<Path> homes = Files.list(cache.resolve("python").resolve("python-home"))) {
      assertThat(homes.toList()).hasSize(1);
    }
  }
}
