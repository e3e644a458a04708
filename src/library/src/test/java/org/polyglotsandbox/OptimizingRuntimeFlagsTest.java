package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.polyglotsandbox.internal.engine.OptimizingRuntime;

/**
 * An embedder's way to the optimizing runtime: the flags the library prints give a fresh JVM on a stock
 * JDK GraalVM's compiler with no warning at all; without them the sandbox says so in one line that names
 * the command, instead of GraalVM's nine, and GraalVM's own switch silences it.
 */
@Tag("slow")
class OptimizingRuntimeFlagsTest {
  private static final String WARNING = "guest code runs in GraalVM's fallback interpreter";

  private static String[] printedFlags(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = OptimizingRuntime.print(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(status).as("stderr: %s", err).isZero();
    return out.toString(StandardCharsets.UTF_8).strip().split(" ");
  }

  @Test
  void theFlagsItPrints_giveAFreshJvmTheOptimizingRuntime_withoutAWarning(@TempDir Path dir) throws Exception {
    List<String> flags = Arrays.asList(printedFlags());
    assertThat(flags).contains("-XX:+EnableJVMCI").anySatisfy(f -> assertThat(f).startsWith("--upgrade-module-path="));
    PlainJvm.Result r = PlainJvm.run(dir, PlainJvm.classPath(), flags, RuntimeNameMain.class.getName());
    assertThat(r.exitStatus()).as("stderr:\n%s", r.stderr()).isZero();
    assertThat(r.stdout()).contains("VALUE 42").contains("| true").doesNotContain("Interpreted");
    assertThat(r.stderr()).as("nothing to warn about").doesNotContain("WARNING");
  }

  @Test
  void theFlagsFromACopiedJarDirectory_work_asTheReadmesMavenSnippetMakesIt(@TempDir Path dir) throws Exception {
    // What the dependency-plugin execution of docs/getting-started.md makes: the four jars in one directory of the build.
    Path jit = Files.createDirectories(dir.resolve("graal-jit"));
    for (String flag : printedFlags()) {
      if (flag.startsWith("--upgrade-module-path=")) {
        for (String jar : flag.substring(flag.indexOf('=') + 1).split(java.io.File.pathSeparator)) {
          Files.copy(Path.of(jar), jit.resolve(Path.of(jar).getFileName()));
        }
      }
    }
    List<String> flags = Arrays.asList(printedFlags(jit.toString()));
    assertThat(flags).anySatisfy(f -> assertThat(f).startsWith("--upgrade-module-path=" + jit));
    List<String> readme = List.of("-XX:+UnlockExperimentalVMOptions", "-XX:+EnableJVMCI",
        "--upgrade-module-path=" + jit, "--enable-native-access=ALL-UNNAMED");
    PlainJvm.Result r = PlainJvm.run(dir, PlainJvm.classPath(), readme, RuntimeNameMain.class.getName());
    assertThat(r.stdout()).as("stderr:\n%s", r.stderr()).contains("VALUE 42").contains("| true");
    assertThat(r.stderr()).doesNotContain(WARNING).doesNotContain("[engine]");
  }

  @Test
  void withoutTheFlags_theSandboxWarnsInOneLineNamingTheCommand_andGraalVmsWarningIsOff(@TempDir Path dir)
      throws Exception {
    PlainJvm.Result r = PlainJvm.run(dir, PlainJvm.classPath(), List.of(), RuntimeNameMain.class.getName());
    assertThat(r.stdout()).as("stderr:\n%s", r.stderr()).contains("VALUE 42").contains("Interpreted | false");
    assertThat(r.stderr().lines().filter(l -> l.contains(WARNING))).singleElement().satisfies(line -> assertThat(line)
        .contains("'java -").contains("prints them")
        .contains("-Dpolyglot.engine.WarnInterpreterOnly=false"));
    assertThat(r.stderr()).doesNotContain("[engine]").doesNotContain("fallback runtime")
        .doesNotContain("To redirect Truffle log output");
  }

  @Test
  void graalVmsOwnSwitch_silencesTheSandboxsWarning(@TempDir Path dir) throws Exception {
    PlainJvm.Result r = PlainJvm.run(dir, PlainJvm.classPath(), List.of("-Dpolyglot.engine.WarnInterpreterOnly=false"),
        RuntimeNameMain.class.getName());
    assertThat(r.stdout()).as("stderr:\n%s", r.stderr()).contains("VALUE 42").contains("Interpreted | false");
    assertThat(r.stderr()).doesNotContain(WARNING).doesNotContain("[engine]");
  }

  @Test
  void withoutTheCompilerJar_itNamesTheMissingArtifact_andWhereItLooked_andExitsOne(@TempDir Path dir) throws Exception {
    // A home with no Maven repository or Gradle cache, and a class path without the compiler jars.
    PlainJvm.Result r = PlainJvm.run(dir, PlainJvm.classPath(), List.of("-Duser.home=" + dir, "-Dmaven.repo.local="),
        OptimizingRuntime.class.getName());
    assertThat(r.exitStatus()).isEqualTo(1);
    assertThat(r.stdout()).isEmpty();
    // Collections, word and truffle-compiler come with the languages, on the class path; the compiler does not.
    assertThat(r.stderr()).contains("needs org.graalvm.compiler:compiler:" + OptimizingRuntime.graalVmVersion() + " (",
        dir.resolve(".m2").toString()).doesNotContain("org.graalvm.sdk:word");
  }

  @Test
  void anUnknownOption_isRefusedByName() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = OptimizingRuntime.print(new String[] {"--verbose"}, new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(status).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--verbose");
  }
}
