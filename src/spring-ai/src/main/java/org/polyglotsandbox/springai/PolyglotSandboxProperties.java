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
 */
@ConfigurationProperties("polyglot-sandbox")
public class PolyglotSandboxProperties {
  /** Whether to make the sandbox and its tool callbacks at all; true unless set. */
  private boolean enabled = true;
  /** A policy file; relative mount paths in it resolve against its own directory. */
  private Path policyFile;
  /** Languages added to the policy: {@code js}, {@code python}. */
  private List<String> languages = new ArrayList<>();
  /** Names of {@code Tool} beans guest code may call, added to the policy file's. */
  private List<String> tools = new ArrayList<>();
  /** Contexts per language made in advance; 0 (none) unless set. */
  private int warmContexts;
  /** Runs at once; the library's default unless set. */
  private Integer maxConcurrentRuns;
  /** Runs waiting for a turn; the library's default unless set. */
  private Integer maxWaitingRuns;
  /** How long a run may wait for its turn and set-up; the library's default (30 s) unless set. */
  private Duration startTimeout;
  /** Warm-up budget for the JIT at start; none unless set. */
  private Duration warmUp;
  /**
   * Whether the warm-up runs in the background, so that the application starts without waiting for it
   * (the first runs wait instead); false unless set.
   */
  private boolean startInBackground;
  /**
   * Python standard-library modules imported into each Python context before its run, such as
   * {@code json}; with warm contexts, off the caller's time. None unless set.
   */
  private List<String> pythonImports = new ArrayList<>();
  /**
   * Guest directories, inside or above the policy file's mounts, put at the front of {@code sys.path} in each
   * Python context; with {@code python-imports}, a mounted package can be imported ahead. None unless set.
   */
  private List<String> pythonPath = new ArrayList<>();
  private final LimitsProperties limits = new LimitsProperties();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Path getPolicyFile() {
    return policyFile;
  }

  public void setPolicyFile(Path policyFile) {
    this.policyFile = policyFile;
  }

  public List<String> getLanguages() {
    return languages;
  }

  public void setLanguages(List<String> languages) {
    this.languages = languages;
  }

  public List<String> getTools() {
    return tools;
  }

  public void setTools(List<String> tools) {
    this.tools = tools;
  }

  public int getWarmContexts() {
    return warmContexts;
  }

  public void setWarmContexts(int warmContexts) {
    this.warmContexts = warmContexts;
  }

  public Integer getMaxConcurrentRuns() {
    return maxConcurrentRuns;
  }

  public void setMaxConcurrentRuns(Integer maxConcurrentRuns) {
    this.maxConcurrentRuns = maxConcurrentRuns;
  }

  public Integer getMaxWaitingRuns() {
    return maxWaitingRuns;
  }

  public void setMaxWaitingRuns(Integer maxWaitingRuns) {
    this.maxWaitingRuns = maxWaitingRuns;
  }

  public Duration getStartTimeout() {
    return startTimeout;
  }

  public void setStartTimeout(Duration startTimeout) {
    this.startTimeout = startTimeout;
  }

  public Duration getWarmUp() {
    return warmUp;
  }

  public void setWarmUp(Duration warmUp) {
    this.warmUp = warmUp;
  }

  public boolean isStartInBackground() {
    return startInBackground;
  }

  public void setStartInBackground(boolean startInBackground) {
    this.startInBackground = startInBackground;
  }

  public List<String> getPythonImports() {
    return pythonImports;
  }

  public void setPythonImports(List<String> pythonImports) {
    this.pythonImports = pythonImports;
  }

  public List<String> getPythonPath() {
    return pythonPath;
  }

  public void setPythonPath(List<String> pythonPath) {
    this.pythonPath = pythonPath;
  }

  public LimitsProperties getLimits() {
    return limits;
  }

  /** {@code polyglot-sandbox.limits.*}: each replaces the policy file's (or the default) when set. */
  public static class LimitsProperties {
    private Duration wallTime;
    private Duration maxCpuTime;
    private Long maxStatements;
    private DataSize maxAllocatedBytes;
    private DataSize maxOutputBytes;
    private DataSize maxFileBytes;
    private Integer maxFiles;

    public Duration getWallTime() {
      return wallTime;
    }

    public void setWallTime(Duration wallTime) {
      this.wallTime = wallTime;
    }

    public Duration getMaxCpuTime() {
      return maxCpuTime;
    }

    public void setMaxCpuTime(Duration maxCpuTime) {
      this.maxCpuTime = maxCpuTime;
    }

    public Long getMaxStatements() {
      return maxStatements;
    }

    public void setMaxStatements(Long maxStatements) {
      this.maxStatements = maxStatements;
    }

    public DataSize getMaxAllocatedBytes() {
      return maxAllocatedBytes;
    }

    public void setMaxAllocatedBytes(DataSize maxAllocatedBytes) {
      this.maxAllocatedBytes = maxAllocatedBytes;
    }

    public DataSize getMaxOutputBytes() {
      return maxOutputBytes;
    }

    public void setMaxOutputBytes(DataSize maxOutputBytes) {
      this.maxOutputBytes = maxOutputBytes;
    }

    public DataSize getMaxFileBytes() {
      return maxFileBytes;
    }

    public void setMaxFileBytes(DataSize maxFileBytes) {
      this.maxFileBytes = maxFileBytes;
    }

    public Integer getMaxFiles() {
      return maxFiles;
    }

    public void setMaxFiles(Integer maxFiles) {
      this.maxFiles = maxFiles;
    }
  }
}
