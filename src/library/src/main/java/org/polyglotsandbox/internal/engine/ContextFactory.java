package org.polyglotsandbox.internal.engine;

import java.io.InputStream;
import java.io.OutputStream;
import java.time.ZoneOffset;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.EnvironmentAccess;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.PolyglotAccess;
import org.graalvm.polyglot.ResourceLimits;
import org.graalvm.polyglot.SandboxPolicy;
import org.graalvm.polyglot.io.FileSystem;
import org.graalvm.polyglot.io.IOAccess;
import org.polyglotsandbox.Language;

/**
 * The one place engines and contexts are configured. Every permission is spelled out, denied, even
 * where CONSTRAINED already denies it, so that a change of GraalVM defaults cannot open a door.
 */
public final class ContextFactory {
  /** Every JavaScript context's locale (BCP 47), whatever the JVM's default. */
  public static final String JAVASCRIPT_LOCALE = "en-US";

  private ContextFactory() {}

  /**
   * A shared engine for code caching across runs; nothing else is shared.
   *
   * <p>The host's {@code -Dpolyglot.*} system properties are not read: they set the host's own
   * engines, and would otherwise change the guest's language options or make CONSTRAINED refuse the
   * build. ({@code polyglot.engine.userResourceCache}, where GraalPy's files are extracted, is read by
   * Truffle for the whole process either way.)
   */
  public static Engine newEngine(Iterable<Language> languages, OutputStream engineLog) {
    String[] ids = ids(languages);
    Engine.Builder builder = Engine.newBuilder(ids);
    if (java.util.Arrays.asList(ids).contains(Language.JAVASCRIPT.id())) {
      // For every JavaScript context of the engine (see newContext). Set here, not per context: as context
      // options they cost each context 5-15 us more (RESULTS.md, 2026-12-04).
      builder.option("js.locale", JAVASCRIPT_LOCALE)
          .option("js.graal-builtin", "false"); // the engine's exact version: fingerprinting, nothing else
    }
    return builder
        // GraalVM's own nine-line warning about its fallback interpreter names options the sandbox does not
        // read; OptimizingRuntime gives one line that says what to add.
        .option("engine.WarnInterpreterOnly", "false")
        .sandbox(SandboxPolicy.CONSTRAINED)
        .useSystemProperties(false)
        .out(OutputStream.nullOutputStream())
        .err(engineLog)
        .build();
  }

  /**
   * A fresh single-language context on {@code engine}.
   *
   * <p>Host class lookup is left unconfigured on purpose: GraalJS then does not define {@code Java}.
   *
   * <p>A JavaScript context has no {@code Graal} object (GraalJS defines it by default): it tells a guest
   * the engine's exact version, which helps only an attacker choosing a known engine bug. GraalJS's
   * {@code load} stays: guests run mounted scripts with it, and it reads through the same file system.
   * (Both JavaScript options are the engine's, from {@link #newEngine}.)
   *
   * <p>The time zone is UTC, and a JavaScript context's locale is {@value #JAVASCRIPT_LOCALE}: left
   * unset, GraalJS takes the JVM's default locale, and {@code Intl} and {@code toLocaleString} would show
   * the host's to the guest (and make a run's output depend on the server it ran on). A Python
   * context's locale is set by {@link ProcessShield}; no GraalPy option is accepted under CONSTRAINED.
   */
  public static Context newContext(Engine engine, Language language, FileSystem fileSystem,
      OutputStream out, OutputStream err, ResourceLimits limits) {
    return Context.newBuilder(language.id())
        .engine(engine)
        .sandbox(SandboxPolicy.CONSTRAINED)
        .allowAllAccess(false)
        .allowHostAccess(HostAccess.CONSTRAINED)
        .allowHostClassLoading(false)
        .allowNativeAccess(false)
        .allowCreateProcess(false)
        .allowCreateThread(false)
        .allowEnvironmentAccess(EnvironmentAccess.NONE)
        .allowPolyglotAccess(PolyglotAccess.NONE)
        .allowInnerContextOptions(false)
        .allowExperimentalOptions(false)
        .allowValueSharing(false)
        .allowIO(IOAccess.newBuilder().fileSystem(fileSystem).allowHostSocketAccess(false).build())
        .useSystemExit(false)
        .in(InputStream.nullInputStream())
        .out(out)
        .err(err)
        .timeZone(ZoneOffset.UTC)
        .resourceLimits(limits)
        .build();
  }

  private static String[] ids(Iterable<Language> languages) {
    java.util.List<String> ids = new java.util.ArrayList<>();
    languages.forEach(l -> ids.add(l.id()));
    return ids.toArray(String[]::new);
  }
}
