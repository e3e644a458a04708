package org.polyglotsandbox;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What guest code may do: the languages it may be written in, the files it may see, and the limits of
 * each run. Immutable; everything not listed is denied.
 *
 * <p>Denied by default and not grantable in this version: host files outside the mounts, network
 * sockets, processes, threads, host classes and reflection, native libraries, environment variables,
 * standard input, evaluation of another language, and ending the JVM. Guest code sees each of these
 * as an ordinary error of its own language ({@code PermissionError}, {@code ReferenceError}, ...).
 *
 * <p>Tools are allowed by name ({@link Builder#allowTools}); the sandbox must have a {@link Tool} of
 * each allowed name registered. No tool is allowed by default.
 *
 * @since 0.1.0
 */
public final class Policy {
  /**
   * Where Python guests find GraalPy's home (its standard library below {@code lib/python3.12}):
   * {@code sys.prefix}, {@code sys.path}, every module's {@code __file__} and code object name this path,
   * never the host directory GraalVM extracted the interpreter to. Read-only; only what lies below it
   * can be seen, and nothing around it ({@code /usr/lib} is as closed as any path outside the mounts).
   * JavaScript guests see nothing there. No mount may lie at, inside or around it when Python is allowed.
   *
   * @since 0.1.0
   */
  public static final String PYTHON_HOME_PATH = "/usr/lib/graalpy";

  private final Set<Language> languages;
  private final List<Mount> mounts;
  private final Set<String> directoriesLeadingToMounts;
  private final Limits limits;
  private final String workingDirectory;
  private final Set<String> tools;

  private Policy(Builder b) {
    this.languages = Collections.unmodifiableSet(EnumSet.copyOf(b.languages));
    this.mounts = List.copyOf(b.mounts);
    this.limits = b.limits;
    this.workingDirectory = b.workingDirectory;
    this.tools = Collections.unmodifiableSet(new LinkedHashSet<>(b.tools));
    Set<String> onTheWay = new LinkedHashSet<>();
    onTheWay.add("/");
    for (Mount m : mounts) {
      String g = m.guestPath();
      for (int i = g.indexOf('/', 1); i > 0; i = g.indexOf('/', i + 1)) {
        onTheWay.add(g.substring(0, i));
      }
    }
    this.directoriesLeadingToMounts = Collections.unmodifiableSet(onTheWay);
  }

  /**
   * A builder with nothing allowed and the default {@link Limits}.
   *
   * @since 0.1.0
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A policy that lets code in the given languages compute, print and return a value: nothing else.
   *
   * @since 0.1.0
   */
  public static Policy computeOnly(Language first, Language... more) {
    return builder().allowLanguages(first, more).build();
  }

  /**
   * A builder holding this policy's settings.
   *
   * @since 0.1.0
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * The languages guest code may be written in; never empty.
   *
   * @since 0.1.0
   */
  public Set<Language> languages() {
    return languages;
  }

  /**
   * Whether code in this language may run.
   *
   * @since 0.1.0
   */
  public boolean allows(Language language) {
    return languages.contains(language);
  }

  /**
   * The mounts, in the order declared; guest paths never overlap.
   *
   * @since 0.1.0
   */
  public List<Mount> mounts() {
    return mounts;
  }

  /**
   * The mount a guest path lies inside ({@link Mount#contains}), if any. Mounts never overlap, so at
   * most one does: there is no nesting to choose between. The path must be absolute and free of
   * {@code ..}; a relative path lies in no mount here, whatever the working directory.
   *
   * @throws NullPointerException if {@code guestPath} is null
   * @since 0.1.0
   */
  public Optional<Mount> mountFor(String guestPath) {
    return mountFor(mounts, guestPath);
  }

  /**
   * The guest directories on the way to a mount, which guest code may list (they show only the entries
   * that lead on to a mount): {@code /} and every directory above a mount's guest path, such as
   * {@code /data} for a mount at {@code /data/sales.csv}. In the order of the mounts, {@code /} first.
   *
   * @since 0.1.0
   */
  public Set<String> directoriesLeadingToMounts() {
    return directoriesLeadingToMounts;
  }

  private static Optional<Mount> mountFor(List<Mount> mounts, String guestPath) {
    Objects.requireNonNull(guestPath, "guestPath");
    return mounts.stream().filter(m -> m.contains(guestPath)).findFirst();
  }

  /**
   * The limits of each run.
   *
   * @since 0.1.0
   */
  public Limits limits() {
    return limits;
  }

  /**
   * The guest's current directory for relative paths; {@code /} unless set.
   *
   * @since 0.1.0
   */
  public String workingDirectory() {
    return workingDirectory;
  }

  /**
   * The names of the tools guest code may call, in the order allowed; empty by default. A registered
   * tool not named here is invisible to the guest, and calling it is denied like an unknown name.
   *
   * @since 0.1.0
   */
  public Set<String> tools() {
    return tools;
  }

  /**
   * Whether guest code may call the tool of this name.
   *
   * @since 0.1.0
   */
  public boolean allowsTool(String name) {
    return tools.contains(name);
  }

  /**
   * What this policy allows and denies, operation by operation, with the layers that enforce each
   * denial: its allowlist and its escape surface. Reads whether each mount's host path is a directory.
   *
   * @since 0.1.0
   */
  public PolicyReport report() {
    return PolicyReport.of(this);
  }

  /** @since 0.1.0 */
  @Override
  public boolean equals(Object o) {
    return o instanceof Policy p
        && languages.equals(p.languages)
        && mounts.equals(p.mounts)
        && limits.equals(p.limits)
        && workingDirectory.equals(p.workingDirectory)
        && tools.equals(p.tools);
  }

  /** @since 0.1.0 */
  @Override
  public int hashCode() {
    return Objects.hash(languages, mounts, limits, workingDirectory, tools);
  }

  /** @since 0.1.0 */
  @Override
  public String toString() {
    return "Policy{languages=" + languages.stream().map(Language::id).collect(Collectors.joining(","))
        + ", mounts=" + mounts + ", workingDirectory=" + workingDirectory
        + (tools.isEmpty() ? "" : ", tools=" + tools) + ", " + limits + "}";
  }

  /**
   * Builds a {@link Policy}; conflicts are rejected in {@link #build()} with a message naming them.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    private final EnumSet<Language> languages = EnumSet.noneOf(Language.class);
    private final List<Mount> mounts = new ArrayList<>();
    private Limits limits = Limits.defaults();
    private String workingDirectory = "/";
    private final Set<String> tools = new LinkedHashSet<>();

    private Builder() {}

    private Builder(Policy p) {
      languages.addAll(p.languages);
      mounts.addAll(p.mounts);
      limits = p.limits;
      workingDirectory = p.workingDirectory;
      tools.addAll(p.tools);
    }

    /**
     * Allows guest code to call the tools of these names. Each must be registered with the sandbox
     * ({@link PolyglotSandbox.Builder#tool}), or building the sandbox fails.
     *
     * @throws IllegalArgumentException if a name is not a valid tool name (see {@link Tool#builder})
     * @since 0.1.0
     */
    public Builder allowTools(String... names) {
      for (String name : Objects.requireNonNull(names, "names")) {
        tools.add(Tool.checkName(name));
      }
      return this;
    }

    /**
     * Allows guest code in these languages.
     *
     * @since 0.1.0
     */
    public Builder allowLanguages(Language first, Language... more) {
      languages.add(Objects.requireNonNull(first, "language"));
      for (Language l : more) {
        languages.add(Objects.requireNonNull(l, "language"));
      }
      return this;
    }

    /**
     * Adds a mount.
     *
     * @since 0.1.0
     */
    public Builder mount(Mount mount) {
      mounts.add(Objects.requireNonNull(mount, "mount"));
      return this;
    }

    /**
     * Replaces the limits.
     *
     * @since 0.1.0
     */
    public Builder limits(Limits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * Sets the guest's working directory; it must be a mounted directory or lie below one.
     *
     * @since 0.1.0
     */
    public Builder workingDirectory(String guestPath) {
      this.workingDirectory = guestPath.equals("/") ? "/" : Mount.normalizeGuestPath(guestPath);
      return this;
    }

    /**
     * Returns the immutable policy.
     *
     * @throws IllegalArgumentException if no language is allowed, two mounts overlap, a mount overlaps
     *     {@link #PYTHON_HOME_PATH} while Python is allowed, or the working directory is not inside a mount
     * @since 0.1.0
     */
    public Policy build() {
      if (languages.isEmpty()) {
        throw new IllegalArgumentException(
            "policy allows no language: call allowLanguages(...) with JAVASCRIPT and/or PYTHON");
      }
      for (int i = 0; i < mounts.size(); i++) {
        for (int j = i + 1; j < mounts.size(); j++) {
          Mount a = mounts.get(i);
          Mount b = mounts.get(j);
          if (a.contains(b.guestPath()) || b.contains(a.guestPath())) {
            throw new IllegalArgumentException(
                "mounts overlap at guest paths " + a.guestPath() + " and " + b.guestPath());
          }
        }
      }
      if (languages.contains(Language.PYTHON)) {
        for (Mount m : mounts) {
          if (m.contains(PYTHON_HOME_PATH) || m.guestPath().startsWith(PYTHON_HOME_PATH + "/")) {
            throw new IllegalArgumentException("mount " + m.guestPath() + " overlaps " + PYTHON_HOME_PATH
                + ", where Python guests find GraalPy's standard library; mount it elsewhere");
          }
        }
      }
      if (!workingDirectory.equals("/") && mountFor(mounts, workingDirectory).isEmpty()) {
        throw new IllegalArgumentException(
            "working directory " + workingDirectory + " is not inside any mount");
      }
      return new Policy(this);
    }
  }
}
