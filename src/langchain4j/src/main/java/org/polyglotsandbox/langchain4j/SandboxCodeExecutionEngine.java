package org.polyglotsandbox.langchain4j;

import dev.langchain4j.code.CodeExecutionEngine;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import org.polyglotsandbox.ExecutionResult;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.PolyglotSandbox;

/**
 * A LangChain4j {@link CodeExecutionEngine} that runs each piece of code in a {@link PolyglotSandbox},
 * in one language, and returns {@link ExecutionResult#toModelText()}: the outcome, the value, stdout
 * and stderr, framed as untrusted data.
 *
 * <p>Unlike LangChain4j's own GraalVM engines, every call gets the sandbox's policy and limits, and a
 * fresh context that is closed afterwards. {@link #execute} never throws for anything the guest does
 * (an error, a denied operation, a limit): that is all in the text. When the sandbox is too busy to start
 * the run, the text says so and that nothing ran. The sandbox stays the caller's to close.
 *
 * @since 0.1.0
 */
public final class SandboxCodeExecutionEngine implements CodeExecutionEngine {
  private final PolyglotSandbox sandbox;
  private final Language language;
  private final int maxChars;

  private SandboxCodeExecutionEngine(PolyglotSandbox sandbox, Language language, int maxChars) {
    this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
    this.language = Objects.requireNonNull(language, "language");
    if (!sandbox.policy().allows(language)) {
      throw new IllegalArgumentException("the sandbox's policy does not allow language '" + language.id()
          + "' (allowed: " + sandbox.policy().languages().stream().map(Language::id).toList() + ")");
    }
    if (maxChars < 1_000) {
      throw new IllegalArgumentException("maxChars (" + maxChars + ") must be at least 1000");
    }
    this.maxChars = maxChars;
  }

  /**
   * An engine for {@code language}, whose results are rendered in at most 16,384 characters.
   *
   * @throws IllegalArgumentException if the sandbox's policy does not allow {@code language}
   * @since 0.1.0
   */
  public static SandboxCodeExecutionEngine of(PolyglotSandbox sandbox, Language language) {
    return new SandboxCodeExecutionEngine(sandbox, language, 16_384);
  }

  /**
   * This engine with results rendered in at most {@code maxChars} characters.
   *
   * @throws IllegalArgumentException if {@code maxChars} is below 1,000
   * @since 0.1.0
   */
  public SandboxCodeExecutionEngine withMaxChars(int maxChars) {
    return new SandboxCodeExecutionEngine(sandbox, language, maxChars);
  }

  /**
   * The language every piece of code is run as.
   *
   * @since 0.1.0
   */
  public Language language() {
    return language;
  }

  /**
   * Runs {@code code} and returns the result as model text.
   *
   * @throws NullPointerException if {@code code} is null
   * @throws IllegalStateException if the sandbox is closed
   * @since 0.1.0
   */
  @Override
  public String execute(String code) {
    Objects.requireNonNull(code, "code");
    try {
      return sandbox.run(language, code).toModelText(maxChars);
    } catch (RejectedExecutionException e) {
      return busy(e);
    }
  }

  static String busy(RejectedExecutionException e) {
    return "The sandbox is too busy to run this code now (" + e.getMessage() + "). Nothing ran; try again later.";
  }
}
