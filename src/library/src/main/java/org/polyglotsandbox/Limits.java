package org.polyglotsandbox;

import java.time.Duration;
import java.util.Objects;

/**
 * The resource caps of every run: immutable, with conservative defaults. A run that reaches a cap ends
 * with {@link Outcome#LIMIT_EXCEEDED} and the {@link Limit} that tripped; the sandbox itself keeps
 * working. The caps on what a finished run hands back (its result and its declared output files) end
 * it with {@link Outcome#OUTPUT_REJECTED} instead.
 *
 * <p>Defaults: 100,000,000 statements, 10 s wall time, 10 s CPU time, 1 GiB allocated, 1 MiB of output,
 * an 8 MiB run-thread stack, 64 MiB and 1,000 entries in the file system; a result of at most
 * 100,000 values, 64 levels deep, with strings of at most 1,048,576 characters and 4,194,304
 * characters of text in total; declared output files of at most 8 MiB each and 32 MiB together.
 *
 * @since 0.1.0
 */
public final class Limits {
  private static final Limits DEFAULTS = new Builder().build();

  private final long maxStatements;
  private final Duration wallTime;
  private final Duration maxCpuTime;
  private final long maxAllocatedBytes;
  private final long maxFileBytes;
  private final int maxFiles;
  private final long maxOutputBytes;
  private final long stackSize;
  private final int maxResultNodes;
  private final int maxResultDepth;
  private final int maxResultStringLength;
  private final long maxResultChars;
  private final long maxOutputFileBytes;
  private final long maxTotalOutputFileBytes;

  private Limits(Builder b) {
    this.maxStatements = b.maxStatements;
    this.wallTime = b.wallTime;
    this.maxCpuTime = b.maxCpuTime;
    this.maxAllocatedBytes = b.maxAllocatedBytes;
    this.maxFileBytes = b.maxFileBytes;
    this.maxFiles = b.maxFiles;
    this.maxOutputBytes = b.maxOutputBytes;
    this.stackSize = b.stackSize;
    this.maxResultNodes = b.maxResultNodes;
    this.maxResultDepth = b.maxResultDepth;
    this.maxResultStringLength = b.maxResultStringLength;
    this.maxResultChars = b.maxResultChars;
    this.maxOutputFileBytes = b.maxOutputFileBytes;
    this.maxTotalOutputFileBytes = b.maxTotalOutputFileBytes;
  }

  /**
   * The default limits.
   *
   * @since 0.1.0
   */
  public static Limits defaults() {
    return DEFAULTS;
  }

  /**
   * A builder starting from the defaults.
   *
   * @since 0.1.0
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder starting from these limits.
   *
   * @since 0.1.0
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Guest statements a run may execute, as counted by GraalVM's statement limit: those of the program
   * and of the modules it imports, not the sandbox's own code in the context.
   *
   * @since 0.1.0
   */
  public long maxStatements() {
    return maxStatements;
  }

  /**
   * The whole run's wall-clock deadline, from the start of the run to the copied-out result.
   *
   * @since 0.1.0
   */
  public Duration wallTime() {
    return wallTime;
  }

  /**
   * CPU time the run's thread may use, measured by the JVM ({@code ThreadMXBean}) and checked every
   * 10 ms; unlike the wall time, it does not grow while the guest sleeps or waits.
   *
   * @since 0.1.0
   */
  public Duration maxCpuTime() {
    return maxCpuTime;
  }

  /**
   * Bytes the run's thread may allocate on the heap, checked every 10 ms. This counts allocation, not
   * live data: a program that churns through garbage uses it up too. A single allocation larger than
   * the remaining heap fails at once with the guest's own out-of-memory error.
   *
   * @since 0.1.0
   */
  public long maxAllocatedBytes() {
    return maxAllocatedBytes;
  }

  /**
   * Bytes the run's in-memory file system may hold, mounted copies included.
   *
   * @since 0.1.0
   */
  public long maxFileBytes() {
    return maxFileBytes;
  }

  /**
   * Files and directories the run's in-memory file system may hold, mounted copies included.
   *
   * @since 0.1.0
   */
  public int maxFiles() {
    return maxFiles;
  }

  /**
   * Bytes a run may write to stdout and stderr together before it is stopped.
   *
   * @since 0.1.0
   */
  public long maxOutputBytes() {
    return maxOutputBytes;
  }

  /**
   * The stack size in bytes of the thread each run executes on; bounds guest recursion.
   *
   * @since 0.1.0
   */
  public long stackSize() {
    return stackSize;
  }

  /**
   * Values (scalars, list elements, map entries) the copied-out result may hold in total. The caps on the
   * result are checked while it is copied out, on the guest's thread and under its limits; a result
   * that breaks one ends the run with {@link Outcome#OUTPUT_REJECTED}, naming where.
   *
   * @since 0.1.0
   */
  public int maxResultNodes() {
    return maxResultNodes;
  }

  /**
   * The deepest {@link #maxResultDepth()} may be: 400, so that a result's JSON, inside the CLI's or an MCP
   * answer's envelope, stays within the 500 levels a default Jackson 3 reader accepts.
   *
   * @since 0.1.0
   */
  public static final int MAX_RESULT_DEPTH = 400;

  /**
   * How deeply lists and maps may nest in the copied-out result; at most {@value #MAX_RESULT_DEPTH}.
   *
   * @since 0.1.0
   */
  public int maxResultDepth() {
    return maxResultDepth;
  }

  /**
   * The most {@link #maxResultStringLength()} may be: 20,000,000 characters, the longest string a default
   * Jackson 2 or 3 reader accepts.
   *
   * @since 0.1.0
   */
  public static final int MAX_RESULT_STRING_LENGTH = 20_000_000;

  /**
   * Characters one string, map key or number in the copied-out result may have, at most
   * {@value #MAX_RESULT_STRING_LENGTH}. Checked before the string is copied: a huge guest string never
   * reaches the host heap. Whatever this is, a key may have at most 50,000 characters and an integer
   * 1,000 digits, what a default JSON reader accepts; a result with a longer one is rejected.
   *
   * @since 0.1.0
   */
  public int maxResultStringLength() {
    return maxResultStringLength;
  }

  /**
   * Characters all strings, map keys and big numbers in the copied-out result may have together; bounds
   * the host memory a result can take even when it repeats one long string many times.
   *
   * @since 0.1.0
   */
  public long maxResultChars() {
    return maxResultChars;
  }

  /**
   * Bytes one declared output file ({@link Script#withOutputFiles}) may have.
   *
   * @since 0.1.0
   */
  public long maxOutputFileBytes() {
    return maxOutputFileBytes;
  }

  /**
   * Bytes all declared output files of a run may have together.
   *
   * @since 0.1.0
   */
  public long maxTotalOutputFileBytes() {
    return maxTotalOutputFileBytes;
  }

  /**
   * Checks that no limit here is above {@code ceiling}'s and that the stack size is the same (it is the
   * size of the sandbox's run threads): what a {@link Script#withLimits script's limits} must meet.
   *
   * @throws IllegalArgumentException naming the first limit that breaks this, with both values
   */
  void requireWithin(Limits ceiling) {
    above("maxStatements", maxStatements, ceiling.maxStatements);
    above("wallTime", wallTime.toNanos(), ceiling.wallTime.toNanos(), wallTime, ceiling.wallTime);
    above("maxCpuTime", maxCpuTime.toNanos(), ceiling.maxCpuTime.toNanos(), maxCpuTime, ceiling.maxCpuTime);
    above("maxAllocatedBytes", maxAllocatedBytes, ceiling.maxAllocatedBytes);
    above("maxFileBytes", maxFileBytes, ceiling.maxFileBytes);
    above("maxFiles", maxFiles, ceiling.maxFiles);
    above("maxOutputBytes", maxOutputBytes, ceiling.maxOutputBytes);
    above("maxResultNodes", maxResultNodes, ceiling.maxResultNodes);
    above("maxResultDepth", maxResultDepth, ceiling.maxResultDepth);
    above("maxResultStringLength", maxResultStringLength, ceiling.maxResultStringLength);
    above("maxResultChars", maxResultChars, ceiling.maxResultChars);
    above("maxOutputFileBytes", maxOutputFileBytes, ceiling.maxOutputFileBytes);
    above("maxTotalOutputFileBytes", maxTotalOutputFileBytes, ceiling.maxTotalOutputFileBytes);
    if (stackSize != ceiling.stackSize) {
      throw new IllegalArgumentException("a script's stackSize (" + stackSize + ") must be the policy's ("
          + ceiling.stackSize + "): it is the size of the sandbox's run threads");
    }
  }

  private static void above(String name, long value, long ceiling) {
    above(name, value, ceiling, value, ceiling);
  }

  private static void above(String name, long value, long ceiling, Object shown, Object shownCeiling) {
    if (value > ceiling) {
      throw new IllegalArgumentException("a script's " + name + " (" + shown + ") is above the policy's ("
          + shownCeiling + "): a script can lower a limit, never raise it");
    }
  }

  /** @since 0.1.0 */
  @Override
  public boolean equals(Object o) {
    return o instanceof Limits l
        && maxStatements == l.maxStatements
        && wallTime.equals(l.wallTime)
        && maxCpuTime.equals(l.maxCpuTime)
        && maxAllocatedBytes == l.maxAllocatedBytes
        && maxFileBytes == l.maxFileBytes
        && maxFiles == l.maxFiles
        && maxOutputBytes == l.maxOutputBytes
        && stackSize == l.stackSize
        && maxResultNodes == l.maxResultNodes
        && maxResultDepth == l.maxResultDepth
        && maxResultStringLength == l.maxResultStringLength
        && maxResultChars == l.maxResultChars
        && maxOutputFileBytes == l.maxOutputFileBytes
        && maxTotalOutputFileBytes == l.maxTotalOutputFileBytes;
  }

  /** @since 0.1.0 */
  @Override
  public int hashCode() {
    return Objects.hash(maxStatements, wallTime, maxCpuTime, maxAllocatedBytes, maxFileBytes, maxFiles, maxOutputBytes, stackSize, maxResultNodes,
        maxResultDepth, maxResultStringLength, maxResultChars, maxOutputFileBytes, maxTotalOutputFileBytes);
  }

  /** @since 0.1.0 */
  @Override
  public String toString() {
    return "Limits{statements=" + maxStatements + ", wallTime=" + wallTime + ", cpuTime=" + maxCpuTime
        + ", allocatedBytes=" + maxAllocatedBytes + ", fileBytes=" + maxFileBytes + ", files=" + maxFiles
        + ", outputBytes=" + maxOutputBytes
        + ", stackSize=" + stackSize + ", resultNodes=" + maxResultNodes + ", resultDepth=" + maxResultDepth
        + ", resultStringLength=" + maxResultStringLength + ", resultChars=" + maxResultChars
        + ", outputFileBytes=" + maxOutputFileBytes + ", totalOutputFileBytes=" + maxTotalOutputFileBytes + "}";
  }

  /**
   * Builds {@link Limits}; every setter rejects a non-positive or out-of-range value at once.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    /**
     * Smallest run-thread stack accepted: GraalPy needs a few hundred KiB just to start.
     *
     * @since 0.1.0
     */
    public static final long MIN_STACK_SIZE = 1L << 20;
    /**
     * Largest run-thread stack accepted: unwinding a huge stack takes tens of seconds.
     *
     * @since 0.1.0
     */
    public static final long MAX_STACK_SIZE = 64L << 20;

    private long maxStatements = 100_000_000L;
    private Duration wallTime = Duration.ofSeconds(10);
    private Duration maxCpuTime = Duration.ofSeconds(10);
    private long maxAllocatedBytes = 1L << 30;
    private long maxFileBytes = 64L << 20;
    private int maxFiles = 1000;
    private long maxOutputBytes = 1L << 20;
    private long stackSize = 8L << 20;
    private int maxResultNodes = 100_000;
    private int maxResultDepth = 64;
    private int maxResultStringLength = 1 << 20;
    private long maxResultChars = 4L << 20;
    private long maxOutputFileBytes = 8L << 20;
    private long maxTotalOutputFileBytes = 32L << 20;

    private Builder() {}

    private Builder(Limits l) {
      maxStatements = l.maxStatements;
      wallTime = l.wallTime;
      maxCpuTime = l.maxCpuTime;
      maxAllocatedBytes = l.maxAllocatedBytes;
      maxFileBytes = l.maxFileBytes;
      maxFiles = l.maxFiles;
      maxOutputBytes = l.maxOutputBytes;
      stackSize = l.stackSize;
      maxResultNodes = l.maxResultNodes;
      maxResultDepth = l.maxResultDepth;
      maxResultStringLength = l.maxResultStringLength;
      maxResultChars = l.maxResultChars;
      maxOutputFileBytes = l.maxOutputFileBytes;
      maxTotalOutputFileBytes = l.maxTotalOutputFileBytes;
    }

    /**
     * @see Limits#maxStatements()
     * @since 0.1.0
     */
    public Builder maxStatements(long statements) {
      requirePositive("maxStatements", statements);
      this.maxStatements = statements;
      return this;
    }

    /**
     * @see Limits#wallTime()
     * @since 0.1.0
     */
    public Builder wallTime(Duration wallTime) {
      this.wallTime = requireDuration("wallTime", wallTime);
      return this;
    }

    /**
     * @see Limits#maxCpuTime()
     * @since 0.1.0
     */
    public Builder maxCpuTime(Duration cpuTime) {
      this.maxCpuTime = requireDuration("maxCpuTime", cpuTime);
      return this;
    }

    /**
     * @see Limits#maxAllocatedBytes()
     * @since 0.1.0
     */
    public Builder maxAllocatedBytes(long bytes) {
      requirePositive("maxAllocatedBytes", bytes);
      this.maxAllocatedBytes = bytes;
      return this;
    }

    /**
     * @see Limits#maxFileBytes()
     * @since 0.1.0
     */
    public Builder maxFileBytes(long bytes) {
      requirePositive("maxFileBytes", bytes);
      this.maxFileBytes = bytes;
      return this;
    }

    /**
     * @see Limits#maxFiles()
     * @since 0.1.0
     */
    public Builder maxFiles(int files) {
      requirePositive("maxFiles", files);
      this.maxFiles = files;
      return this;
    }

    /**
     * @see Limits#maxOutputBytes()
     * @since 0.1.0
     */
    public Builder maxOutputBytes(long bytes) {
      requirePositive("maxOutputBytes", bytes);
      if (bytes > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("maxOutputBytes (" + bytes + ") must be below 2 GiB");
      }
      this.maxOutputBytes = bytes;
      return this;
    }

    /**
     * @see Limits#stackSize()
     * @since 0.1.0
     */
    public Builder stackSize(long bytes) {
      if (bytes < MIN_STACK_SIZE || bytes > MAX_STACK_SIZE) {
        throw new IllegalArgumentException(
            "stackSize (" + bytes + ") must be between " + MIN_STACK_SIZE + " and " + MAX_STACK_SIZE + " bytes");
      }
      this.stackSize = bytes;
      return this;
    }

    /**
     * @see Limits#maxResultNodes()
     * @since 0.1.0
     */
    public Builder maxResultNodes(int nodes) {
      requirePositive("maxResultNodes", nodes);
      this.maxResultNodes = nodes;
      return this;
    }

    /**
     * @see Limits#maxResultDepth()
     * @since 0.1.0
     */
    public Builder maxResultDepth(int depth) {
      requirePositive("maxResultDepth", depth);
      if (depth > MAX_RESULT_DEPTH) {
        throw new IllegalArgumentException("maxResultDepth (" + depth + ") must be at most " + MAX_RESULT_DEPTH
            + ": a JSON reader with its default bounds reads no deeper (Jackson 3: 500 levels, with the"
            + " envelope around the value)");
      }
      this.maxResultDepth = depth;
      return this;
    }

    /**
     * @see Limits#maxResultStringLength()
     * @since 0.1.0
     */
    public Builder maxResultStringLength(int chars) {
      requirePositive("maxResultStringLength", chars);
      if (chars > MAX_RESULT_STRING_LENGTH) {
        throw new IllegalArgumentException("maxResultStringLength (" + chars + ") must be at most "
            + MAX_RESULT_STRING_LENGTH + ": a JSON reader with its default bounds reads no longer string");
      }
      this.maxResultStringLength = chars;
      return this;
    }

    /**
     * @see Limits#maxResultChars()
     * @since 0.1.0
     */
    public Builder maxResultChars(long chars) {
      requirePositive("maxResultChars", chars);
      this.maxResultChars = chars;
      return this;
    }

    /**
     * @see Limits#maxOutputFileBytes()
     * @since 0.1.0
     */
    public Builder maxOutputFileBytes(long bytes) {
      requirePositive("maxOutputFileBytes", bytes);
      if (bytes > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("maxOutputFileBytes (" + bytes + ") must be below 2 GiB");
      }
      this.maxOutputFileBytes = bytes;
      return this;
    }

    /**
     * @see Limits#maxTotalOutputFileBytes()
     * @since 0.1.0
     */
    public Builder maxTotalOutputFileBytes(long bytes) {
      requirePositive("maxTotalOutputFileBytes", bytes);
      this.maxTotalOutputFileBytes = bytes;
      return this;
    }

    /**
     * Returns the immutable limits.
     *
     * @since 0.1.0
     */
    public Limits build() {
      return new Limits(this);
    }

    private static Duration requireDuration(String name, Duration d) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " (" + d + ") must be positive");
      }
      if (d.compareTo(Duration.ofDays(1)) > 0) {
        throw new IllegalArgumentException(name + " (" + d + ") must be at most one day");
      }
      return d;
    }

    private static void requirePositive(String name, long value) {
      if (value <= 0) {
        throw new IllegalArgumentException(name + " (" + value + ") must be positive");
      }
    }
  }
}
