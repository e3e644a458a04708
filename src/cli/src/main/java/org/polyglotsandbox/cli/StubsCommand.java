package org.polyglotsandbox.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Tool;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sandbox stubs [--policy POLICY.json] --lang ts|python}: prints typed stubs of the tools a policy
 * file allows ({@link Tool#stubs}), TypeScript declarations or a Python stub file, for a model's prompt or
 * a type checker. Starts no sandbox.
 */
@Command(name = "stubs",
    mixinStandardHelpOptions = true,
    versionProvider = SandboxCli.Version.class,
    description = {
        "Prints typed stubs of the tools a policy allows.",
        "TypeScript declarations (.d.ts) for JavaScript guests or a Python stub",
        "file (.pyi) for Python guests, from the tools' JSON Schemas, for a",
        "model's prompt or a type checker. Without --policy: no tools."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {" 0:printed", " 2:bad usage or bad policy file"},
    footer = "%nPolicy file syntax: docs/policy-file.md")
final class StubsCommand implements Callable<Integer> {
  @Option(names = "--policy", paramLabel = "POLICY.json", description = "A policy file; its tools are the ones described.")
  private String policyFile;

  @Option(names = "--lang", required = true, paramLabel = "ts|python", converter = StubLanguage.class,
      description = "ts: TypeScript declarations for JavaScript guests; python: a Python stub file.")
  private Language language;

  private final PrintStream out;

  StubsCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    PolicyCommand.Loaded loaded = PolicyCommand.Loaded.of(policyFile);
    if (!loaded.languagesFromProgram() && !loaded.policy().languages().contains(language)) {
      throw new UsageException(policyFile + ": languages: does not allow " + language.id() + " (allowed: "
          + loaded.languagesText() + ")");
    }
    out.print(Tool.stubs(language, loaded.tools()));
    return ExitStatus.OK.code();
  }

  /** {@code ts} or {@code python}: the language of the guest code the stubs describe. */
  static final class StubLanguage implements CommandLine.ITypeConverter<Language> {
    @Override
    public Language convert(String value) {
      return switch (value) {
        case "ts" -> Language.JAVASCRIPT;
        case "python" -> Language.PYTHON;
        default -> throw new CommandLine.TypeConversionException(Text.quote(value) + " is not ts or python");
      };
    }
  }
}
