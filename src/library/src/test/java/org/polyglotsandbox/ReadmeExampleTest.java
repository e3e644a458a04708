package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first Java example, as written: compiled into a program of its own and run in two fresh
 * JVMs in a row with no JVM flags at all (so on GraalVM's fallback interpreter, cold each time), it
 * prints the answer its own comment states.
 */
@Tag("slow")
class ReadmeExampleTest {
  @Test
  void theFirstJavaExample_printsItsStatedAnswer_inTwoFreshJvmsWithNoFlags(@TempDir Path dir) throws Exception {
    String readme = Files.readString(PlainJvm.projectRoot().resolve("README.md"));
    String section = readme.substring(readme.indexOf("## Use it from Java"));
    Matcher block = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(section);
    assertThat(block.find()).as("a java block under 'Use it from Java'").isTrue();
    String example = block.group(1);
    Matcher stated = Pattern.compile("// plain Java data: Long (\\d+)").matcher(example);
    assertThat(stated.find()).as("the example states its answer").isTrue();

    Path source = dir.resolve("src/ReadmeExample.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, """
        import java.nio.file.Path;
        import java.time.Duration;
        import org.polyglotsandbox.*;

        public class ReadmeExample {
          public static void main(String[] args) {
        %s
          }
        }
        """.formatted(example));
    Path classes = Files.createDirectories(dir.resolve("classes"));
    Process javac = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
        "-d", classes.toString(), "-cp", PlainJvm.classPath(), source.toString()).redirectErrorStream(true).start();
    String javacOutput = new String(javac.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(javac.waitFor()).as("the example compiles:\n%s", javacOutput).isZero();
    // The README says where its sales.csv comes from.
    assertThat(readme).contains("`guest-samples/data/sales.csv`");
    Files.copy(PlainJvm.projectRoot().resolve("guest-samples/data/sales.csv"), dir.resolve("sales.csv"));

    for (int jvm = 1; jvm <= 2; jvm++) {
      PlainJvm.Result r = PlainJvm.run(dir, classes + java.io.File.pathSeparator + PlainJvm.classPath(), List.of(),
          "ReadmeExample");
      assertThat(r.exitStatus()).as("JVM %d, stderr:\n%s", jvm, r.stderr()).isZero();
      assertThat(r.stdout().strip()).as("JVM %d, stderr:\n%s", jvm, r.stderr()).isEqualTo(stated.group(1));
    }
  }
}
