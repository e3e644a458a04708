package org.polyglotsandbox.springai;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code polyglot-sandbox.*} properties the auto-configured {@code PolyglotSandbox} is built from.
 *
 * <p>The policy is the {@link #getPolicyFile() policy file} (the format of {@code docs/policy-file.md}) if
 * one is set, else compute only; {@link #getLanguages() languages}, {@link #getTools() tools} and each
 * {@link #getLimits() limit} set here are added to it or replace the file's. With neither a file nor
 * languages, guest code may only be JavaScript.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("polyglot-sandbox")
public class PolyglotSandboxProperties {
  // Each field's Javadoc is its description in META-INF/spring-configuration-metadata.json, which IDEs show
  // as it is: plain text, no Javadoc tags. Defaults a field cannot state (the library's, or none) are in
  // META-INF/additional-spring-configuration-metadata.json.

  /** Whether to make the sandbox and its tool callbacks at all. */
  private boolean enabled = true;
  /**
   * A policy file (the format of docs/policy-file.md); relative mount paths in it resolve against its own
   * directory. None unless set: the policy is then compute only (no files, no tools).
   */
  private Path policyFile;
  /**
   * Languages added to the policy file's: js, python. With neither the file nor this naming one, guest code
   * may only be JavaScript.
   */
  private List<String> languages = new ArrayList<>();
  /** Names of Tool beans guest code may call, added to the policy file's. None unless set. */
  private List<String> tools = new ArrayList<>();
  /** Contexts per language made in advance, so that a run skips making its own; 0 (none) unless set. */
  private int warmContexts;
  /**
   * Runs at once; the library's default (4 per processor, at most 1024) unless set. Past it, runs wait for a
   * turn.
   */
  private Integer maxConcurrentRuns;
  /** Runs waiting for a turn; past it, a run is refused at once. The library's default (64) unless set. */
  private Integer maxWaitingRuns;
  /** How long a run may wait for its turn and set-up; the library's default (30 s) unless set. */
  private Duration startTimeout;
  /**
   * How long the start spends running representative programs so that the JIT has compiled the common paths,
   * then waiting for the warm contexts; 0 (none) unless set. With start-in-background (the default) this
   * happens after the application has started, and the first runs wait for it.
   */
  private Duration warmUp;
  /**
   * Whether the sandbox warms up in the background (true, the default) or while the application context
   * starts (false). The warm-up makes the first context of each language in the JVM (seconds for Python,
   * more on a busy machine) and, with a warm-up budget, spends it and waits for the warm contexts, which
   * are otherwise made after it, beside the first runs. In the background, the application starts at once
   * and a run that arrives earlier waits for the warm-up (its queue time includes the wait); a warm-up that
   * fails, such as a python-imports module that cannot be imported, is logged and fails every run instead
   * of the start. Set false to have start-up wait for the warm-up and fail on it.
   */
  private boolean startInBackground = true;
  /**
   * Python standard-library modules imported into each Python context before its run, such as json; with
   * warm contexts, off the caller's time. None unless set.
   */
  private List<String> pythonImports = new ArrayList<>();
  /**
   * Guest directories, inside or above the policy file's mounts, put at the front of sys.path in each Python
   * context; with python-imports, a mounted package can be imported ahead. None unless set.
   */
  private List<String> pythonPath = new ArrayList<>();
  private final LimitsProperties limits = new LimitsProperties();

  /** @since 0.1.0 */
  public boolean isEnabled() {
    return enabled;
  }

  /** @since 0.1.0 */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /** @since 0.1.0 */
  public Path getPolicyFile() {
    return policyFile;
  }

  /** @since 0.1.0 */
  public void setPolicyFile(Path policyFile) {
    this.policyFile = policyFile;
  }

  /** @since 0.1.0 */
  public List<String> getLanguages() {
    return languages;
  }

  /** @since 0.1.0 */
  public void setLanguages(List<String> languages) {
    this.languages = languages;
  }

  /** @since 0.1.0 */
  public List<String> getTools() {
    return tools;
  }

  /** @since 0.1.0 */
  public void setTools(List<String> tools) {
    this.tools = tools;
  }

  /** @since 0.1.0 */
  public int getWarmContexts() {
    return warmContexts;
  }

  /** @since 0.1.0 */
  public void setWarmContexts(int warmContexts) {
    this.warmContexts = warmContexts;
  }

  /** @since 0.1.0 */
  public Integer getMaxConcurrentRuns() {
    return maxConcurrentRuns;
  }

  /** @since 0.1.0 */
  public void setMaxConcurrentRuns(Integer maxConcurrentRuns) {
    this.maxConcurrentRuns = maxConcurrentRuns;
  }

  /** @since 0.1.0 */
  public Integer getMaxWaitingRuns() {
    return maxWaitingRuns;
  }

  /** @since 0.1.0 */
  public void setMaxWaitingRuns(Integer maxWaitingRuns) {
    this.maxWaitingRuns = maxWaitingRuns;
  }

  /** @since 0.1.0 */
  public Duration getStartTimeout() {
    return startTimeout;
  }

  /** @since 0.1.0 */
  public void setStartTimeout(Duration startTimeout) {
    this.startTimeout = startTimeout;
  }

  /** @since 0.1.0 */
  public Duration getWarmUp() {
    return warmUp;
  }

  /** @since 0.1.0 */
  public void setWarmUp(Duration warmUp) {
    this.warmUp = warmUp;
  }

  /** @since 0.1.0 */
  public boolean isStartInBackground() {
    return startInBackground;
  }

  /** @since 0.1.0 */
  public void setStartInBackground(boolean startInBackground) {
    this.startInBackground = startInBackground;
  }

  /** @since 0.1.0 */
  public List<String> getPythonImports() {
    return pythonImports;
  }

  /** @since 0.1.0 */
  public void setPythonImports(List<String> pythonImports) {
    this.pythonImports = pythonImports;
  }

  /** @since 0.1.0 */
  public List<String> getPythonPath() {
    return pythonPath;
  }

  /** @since 0.1.0 */
  public void setPythonPath(List<String> pythonPath) {
    this.pythonPath = pythonPath;
  }

  /** @since 0.1.0 */
  public LimitsProperties getLimits() {
    return limits;
  }

  /**
   * polyglot-sandbox.limits.*: the limits of every run. Each replaces the policy file's when set; unset, a
   * run has the policy file's, else the library's default.
   *
   * @since 0.1.0
   */
  public static class LimitsProperties {
    /** A run's wall-clock deadline, from its start to its copied-out result; the policy file's or 10 s unless set. */
    private Duration wallTime;
    /**
     * CPU time a run's thread may use; unlike the wall time, it does not grow while the guest waits. The policy
     * file's or 10 s unless set.
     */
    private Duration maxCpuTime;
    /** Guest statements a run may execute; the policy file's or 100,000,000 unless set. */
    private Long maxStatements;
    /**
     * Heap a run's thread may allocate, garbage included (allocation, not live data); the policy file's or
     * 1 GB unless set.
     */
    private DataSize maxAllocatedBytes;
    /** Bytes a run may write to stdout and stderr together; the policy file's or 1 MB unless set. */
    private DataSize maxOutputBytes;
    /** Bytes a run's in-memory file system may hold, mounted copies included; the policy file's or 64 MB unless set. */
    private DataSize maxFileBytes;
    /**
     * Files and directories a run's in-memory file system may hold, mounted copies included; the policy file's
     * or 1000 unless set.
     */
    private Integer maxFiles;

    /** @since 0.1.0 */
    public Duration getWallTime() {
      return wallTime;
    }

    /** @since 0.1.0 */
    public void setWallTime(Duration wallTime) {
      this.wallTime = wallTime;
    }

    /** @since 0.1.0 */
    public Duration getMaxCpuTime() {
      return maxCpuTime;
    }

    /** @since 0.1.0 */
    public void setMaxCpuTime(Duration maxCpuTime) {
      this.maxCpuTime = maxCpuTime;
    }

    /** @since 0.1.0 */
    public Long getMaxStatements() {
      return maxStatements;
    }

    /** @since 0.1.0 */
    public void setMaxStatements(Long maxStatements) {
      this.maxStatements = maxStatements;
    }

    /** @since 0.1.0 */
    public DataSize getMaxAllocatedBytes() {
      return maxAllocatedBytes;
    }

    /** @since 0.1.0 */
    public void setMaxAllocatedBytes(DataSize maxAllocatedBytes) {
      this.maxAllocatedBytes = maxAllocatedBytes;
    }

    /** @since 0.1.0 */
    public DataSize getMaxOutputBytes() {
      return maxOutputBytes;
    }

    /** @since 0.1.0 */
    public void setMaxOutputBytes(DataSize maxOutputBytes) {
      this.maxOutputBytes = maxOutputBytes;
    }

    /** @since 0.1.0 */
    public DataSize getMaxFileBytes() {
      return maxFileBytes;
    }

    /** @since 0.1.0 */
    public void setMaxFileBytes(DataSize maxFileBytes) {
      this.maxFileBytes = maxFileBytes;
    }

    /** @since 0.1.0 */
    public Integer getMaxFiles() {
      return maxFiles;
    }

    /** @since 0.1.0 */
    public void setMaxFiles(Integer maxFiles) {
      this.maxFiles = maxFiles;
    }
  }
}
