package org.polyglotsandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.polyglotsandbox.Mount;
import org.polyglotsandbox.Operation;
import picocli.CommandLine;

/** The small parsers and encoders of the command line: durations, --mount, escaping, JSON values. */
class CliTextTest {
  @TempDir
  Path dir;

  @ParameterizedTest(name = "{0}")
  @CsvSource({"500ms, PT0.5S", "2s, PT2S", "1.5s, PT1.5S", "1m, PT1M", "0.25m, PT15S", "1.001s, PT1.001S"})
  void durations_areParsed(String text, Duration expected) {
    assertThat(Durations.parse(text)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "''{0}''")
  @ValueSource(strings = {"2 sec", "2", "2S", "1h", "PT2S", "-1s", "1.s", ".5s", "1.0001s", " 2s", "2s ", "", "1e3ms"})
  void durations_otherwiseAreRejected_namingTheText(String text) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'" + text + "' is not a duration (use 500ms, 2s, 1.5s or 1m)");
  }

  @Test
  void zeroDuration_isRejected() {
    assertThatThrownBy(() -> Durations.parse("0s")).hasMessage("'0s' must be longer than zero");
  }

  @Test
  void mountOption_defaultsToReadOnly() {
    Mount m = MountOption.parse(dir + ":/data", Path.of(""));

    assertThat(m.hostPath()).contains(dir.toAbsolutePath());
    assertThat(m.guestPath()).isEqualTo("/data");
    assertThat(m.operations()).containsExactlyInAnyOrder(Operation.FILE_READ, Operation.FILE_LIST);
  }

  @Test
  void mountOption_rw_isWritable_ro_isNot() {
    assertThat(MountOption.parse(dir + ":/data:rw", Path.of("")).isWritable()).isTrue();
    assertThat(MountOption.parse(dir + ":/data:ro", Path.of("")).isWritable()).isFalse();
  }

  @Test
  void mountOption_relativeHostPath_resolvesAgainstTheBase() {
    assertThat(MountOption.parse(".:/data", dir).hostPath()).contains(dir.toAbsolutePath().normalize());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      DIR                 | expected HOST_PATH:GUEST_PATH[:ro|rw]
      DIR:/data:rx        | access 'rx' is not ro or rw
      DIR:data            | guest path 'data' must be absolute
      :/data              | the host path is empty
      DIR/absent:/data    | /absent does not exist
      DIR:/a/../b         | must not contain '..'
      """)
  void mountOption_rejectsBadSpecs_namingThem(String spec, String problem) {
    String s = spec.replace("DIR", dir.toString());

    assertThatThrownBy(() -> MountOption.parse(s, Path.of("")))
        .isInstanceOf(CommandLine.TypeConversionException.class)
        .hasMessageStartingWith("'" + s + "': ")
        .hasMessageContaining(problem);
  }

  @Test
  void escape_keepsNewlinesAndTabs_escapesOtherControls() {
    assertThat(Text.escape("a\tb\nc\u001b[31m\r\u007f\u009b\u202e\u2066é😀"))
        .isEqualTo("a\tb\nc\\x1b[31m\\r\\x7f\\x9b\\u202e\\u2066é😀");
  }

  @Test
  void escape_escapesLoneSurrogates() {
    assertThat(Text.escape("a\ud800b\udc00")).isEqualTo("a\\ud800b\\udc00");
  }

  @Test
  void quote_isOneLineAndBounded() {
    assertThat(Text.quote("a\nb")).isEqualTo("'a\\nb'");
    assertThat(Text.quote("x".repeat(500))).hasSize(125);
  }

  @Test
  void scriptName_keepsTheFileNameOnly_withSafeCharacters() {
    assertThat(RunCommand.scriptName(Path.of("/home/me/my script (1).py"))).isEqualTo("my_script__1_.py");
  }
}
