package org.polyglotsandbox;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.polyglotsandbox.internal.boundary.HostWriter;
import org.polyglotsandbox.internal.boundary.ModelText;
import org.polyglotsandbox.internal.boundary.PlainData;
import org.polyglotsandbox.internal.spi.RunRecord;

/**
 * The outcome of one run. Everything in it came from untrusted code: treat the value, the streams,
 * the error message and the output files as data to validate, never as instructions or trusted text.
 * To hand a result to a language model, use {@link #toModelText()}, which frames it as untrusted data.
 *
 * <p>Everything passed the output boundary on its way here. No polyglot {@code Value} or guest object
 * survives the run: {@link #value()} is built only from {@code null}, {@link Boolean}, {@link Long},
 * {@link Double}, {@link java.math.BigInteger}, {@link String}, unmodifiable {@link List} and
 * unmodifiable {@link java.util.Map} with string keys, within the result caps of {@link Limits}.
 * stdout, stderr, the error message and the guest stack frames are capped and sanitised: valid
 * UTF-8, no terminal escape sequences, no control characters but newline and tab, no bidirectional
 * overrides or invisible tag characters ({@link #outputNotes()} says what was changed). The strings
 * inside {@link #value()} are the guest's exact strings: escape them before showing them.
 *
 * @since 0.1.0
 */
public final class ExecutionResult {
  private static final PlainData.Format VALUE_JSON = PlainData.Format.textSafe();

  private final Outcome outcome;
  private final Limit limit;
  private final Object value;
  private final String errorMessage;
  private final List<String> guestStackTrace;
  private final Integer exitStatus;
  private final String stdout;
  private final String stderr;
  private final Usage usage;
  private final List<SandboxEvent> events;
  private final SandboxEvent.OutputRejected rejection;
  private final OutputNotes notes;
  private final Map<String, OutputFile> outputFiles;
  private final List<String> missingOutputFiles;
  private final String runId;
  private final String label;
  private final long undeliveredOutputChunks;
  private final int droppedEvents;
  private final int undeliveredAuditEvents;
  /** The script's audited attributes, which {@link #auditEvents()} carry. */
  private final Map<String, String> auditedAttributes;

  ExecutionResult(RunRecord r) {
    this.outcome = r.outcome();
    this.limit = r.limit();
    this.value = r.value();
    this.errorMessage = r.errorMessage();
    this.guestStackTrace = List.copyOf(r.guestStackTrace());
    this.exitStatus = r.exitStatus();
    this.stdout = r.stdout();
    this.stderr = r.stderr();
    this.usage = r.usage();
    this.events = List.copyOf(r.events());
    this.rejection = r.rejection();
    this.notes = Objects.requireNonNull(r.notes(), "notes");
    this.outputFiles = Collections.unmodifiableMap(new LinkedHashMap<>(r.outputFiles()));
    this.missingOutputFiles = List.copyOf(r.missingOutputFiles());
    this.runId = r.runId();
    this.label = r.label();
    this.undeliveredOutputChunks = r.undeliveredOutputChunks();
    this.droppedEvents = r.droppedEvents();
    this.undeliveredAuditEvents = r.undeliveredAuditEvents();
    this.auditedAttributes = Map.of();
  }

  /** {@code r} whose audit events carry the script's audited attributes. */
  ExecutionResult(ExecutionResult r, Map<String, String> auditedAttributes) {
    this.outcome = r.outcome;
    this.limit = r.limit;
    this.value = r.value;
    this.errorMessage = r.errorMessage;
    this.guestStackTrace = r.guestStackTrace;
    this.exitStatus = r.exitStatus;
    this.stdout = r.stdout;
    this.stderr = r.stderr;
    this.usage = r.usage;
    this.events = r.events;
    this.rejection = r.rejection;
    this.notes = r.notes;
    this.outputFiles = r.outputFiles;
    this.missingOutputFiles = r.missingOutputFiles;
    this.runId = r.runId;
    this.label = r.label;
    this.undeliveredOutputChunks = r.undeliveredOutputChunks;
    this.droppedEvents = r.droppedEvents;
    this.undeliveredAuditEvents = r.undeliveredAuditEvents;
    this.auditedAttributes = auditedAttributes;
  }

  /** This result, carrying {@code script}'s audited attributes into its audit events. */
  ExecutionResult auditedWith(Script script) {
    Map<String, String> audited = script.auditedAttributes();
    return audited.isEmpty() ? this : new ExecutionResult(this, audited);
  }


  /**
   * The run's id, a random UUID: it names the run in {@link AuditEvent}s, in JDK Flight Recorder events
   * and in {@code bin/sandbox}'s audit log.
   *
   * @since 0.1.0
   */
  public String runId() {
    return runId;
  }

  /**
   * Output chunks the run's output listener ({@link Script#withOutputListener}) did not get because
   * 1,000 chunks were already waiting for the sandbox's listeners; 0 without a listener. The output
   * itself is whole in {@link #stdout()} and {@link #stderr()}.
   *
   * @since 0.1.0
   */
  public long undeliveredOutputChunks() {
    return undeliveredOutputChunks;
  }

  /**
   * The embedder's label for the run ({@link Script#withLabel}), as its audit events carry it; empty if none.
   *
   * @since 0.1.0
   */
  public String label() {
    return label;
  }

  /**
   * How the run ended.
   *
   * @since 0.1.0
   */
  public Outcome outcome() {
    return outcome;
  }

  /**
   * Whether the run ended {@link Outcome#OK}.
   *
   * @since 0.1.0
   */
  public boolean isOk() {
    return outcome == Outcome.OK;
  }

  /**
   * The limit that stopped the run, present exactly when the outcome is {@link Outcome#LIMIT_EXCEEDED}.
   *
   * @since 0.1.0
   */
  public Optional<Limit> limit() {
    return Optional.ofNullable(limit);
  }

  /**
   * Why the output boundary refused the run's output, present exactly when the outcome is
   * {@link Outcome#OUTPUT_REJECTED}: the reason, the path (such as {@code $.rows[3].price}, or a
   * declared output file's guest path) and the cap involved.
   *
   * @since 0.1.0
   */
  public Optional<SandboxEvent.OutputRejected> outputRejection() {
    return Optional.ofNullable(rejection);
  }

  /**
   * The value of the program's last expression as plain, immutable Java data (untrusted), or {@code null}
   * when there is none or the run did not end {@link Outcome#OK}. Guest functions are left out. Its
   * strings are exactly the guest's, not sanitised.
   *
   * @since 0.1.0
   */
  public Object value() {
    return value;
  }
  /**
   * {@link #value()} as one line of JSON: numbers stay numbers ({@link java.math.BigInteger} exactly),
   * NaN and the infinities become the strings {@code "NaN"}, {@code "Infinity"} and {@code "-Infinity"},
   * and every character that could act on a terminal or hide in text (controls, DEL, C1, bidirectional
   * and invisible characters, surrogates) is a {@code \}{@code uXXXX} escape, so the line is safe to
   * print or log as it is. Still untrusted data: the strings are the guest's. {@code "null"} when there
   * is no value.
   *
   * @since 0.1.0
   */
  public String valueAsJson() {
    return PlainData.toJson(value, VALUE_JSON);
  }


  /**
   * The error as guest code would describe it, such as {@code "TypeError: x is not a function"}
   * (untrusted text, sanitised); empty when the outcome is {@link Outcome#OK}. Never a host stack trace
   * or host class name. For {@link Outcome#OUTPUT_REJECTED}, {@code "output rejected: $.path: detail"}.
   *
   * @since 0.1.0
   */
  public Optional<String> errorMessage() {
    return Optional.ofNullable(errorMessage);
  }

  /**
   * The guest frames of the error, innermost first, such as {@code "main.py:3 (f)"} (untrusted,
   * sanitised); may be empty.
   *
   * @since 0.1.0
   */
  public List<String> guestStackTrace() {
    return guestStackTrace;
  }

  /**
   * The status the guest passed to {@code exit}/{@code sys.exit}, if it exited that way.
   *
   * @since 0.1.0
   */
  public OptionalInt exitStatus() {
    return exitStatus == null ? OptionalInt.empty() : OptionalInt.of(exitStatus);
  }

  /**
   * What the guest wrote to stdout (untrusted): at most the output limit, decoded as UTF-8 and
   * sanitised as described above; {@link #outputNotes()} says what was cut or changed.
   *
   * @since 0.1.0
   */
  public String stdout() {
    return stdout;
  }

  /**
   * What the guest wrote to stderr (untrusted), capped and sanitised like {@link #stdout()}.
   *
   * @since 0.1.0
   */
  public String stderr() {
    return stderr;
  }

  /**
   * What the output boundary cut from or changed in stdout, stderr and the error message.
   *
   * @since 0.1.0
   */
  public OutputNotes outputNotes() {
    return notes;
  }

  /**
   * The declared output files ({@link Script#withOutputFiles}) the guest left, by guest path in the
   * order declared (untrusted content). Present whatever the outcome, except those the boundary
   * rejected; a failed run's files may be partial.
   *
   * @since 0.1.0
   */
  public Map<String, OutputFile> outputFiles() {
    return outputFiles;
  }

  /**
   * The declared output files that were not there when the guest finished.
   *
   * @since 0.1.0
   */
  public List<String> missingOutputFiles() {
    return missingOutputFiles;
  }

  /**
   * Writes every output file below {@code directory}, as {@link OutputFile#writeTo} does. Nothing is
   * written if any target already exists; if writing fails midway, the files this call wrote are
   * removed again (directories it created stay).
   *
   * @return the host files written, in the order declared
   * @throws FileAlreadyExistsException if a target exists (nothing is written then)
   * @throws IOException as {@link OutputFile#writeTo}
   * @since 0.1.0
   */
  public List<Path> writeOutputFiles(Path directory) throws IOException {
    Objects.requireNonNull(directory, "directory");
    for (OutputFile f : outputFiles.values()) {
      Path target = HostWriter.target(directory, f.guestPath());
      if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
        throw new FileAlreadyExistsException(target.toString(), null,
            "output file " + f.guestPath() + " would replace it; files are never overwritten");
      }
    }
    List<Path> written = new ArrayList<>();
    try {
      for (OutputFile f : outputFiles.values()) {
        written.add(f.writeTo(directory));
      }
    } catch (IOException | RuntimeException e) {
      for (Path p : written) {
        try {
          Files.deleteIfExists(p);
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
    return List.copyOf(written);
  }

  /**
   * This result as text to put in a language model's context, at most 16,384 characters; see
   * {@link #toModelText(int)}.
   *
   * @since 0.1.0
   */
  public String toModelText() {
    return toModelText(ModelText.DEFAULT_MAX_CHARS);
  }

  /**
   * This result as text to put in a language model's context, framed and marked as untrusted data.
   * The frame's opening and closing lines carry a random id the guest could not know, so guest text
   * cannot close the frame early; a line at the top tells the model that the content is data, not
   * instructions. Inside, every line of guest text starts with {@code "| "} so that it cannot pass
   * for the frame's own lines; the value is JSON with control, bidirectional and invisible
   * characters escaped; chat-template markers such as {@code <|im_start|>} are broken up; each part
   * is shortened to its share of {@code maxChars}, with a note saying how much was cut; the
   * {@link #outputNotes()} and the output files' sizes (never their content) are listed.
   *
   * @param maxChars at least 1,000
   * @throws IllegalArgumentException if {@code maxChars} is below 1,000
   * @since 0.1.0
   */
  public String toModelText(int maxChars) {
    Map<String, Integer> files = new LinkedHashMap<>();
    outputFiles.forEach((path, f) -> files.put(path, f.size()));
    return ModelText.render(new ModelText.Parts(outcome.name(), limit == null ? null : limit.id(),
        rejection == null ? null : rejection.reason().name().toLowerCase(Locale.ROOT),
        exitStatus, outcome == Outcome.OK, value, errorMessage, guestStackTrace, stdout, stderr,
        notes.describe(), files, missingOutputFiles), maxChars);
  }

  /**
   * What the run consumed.
   *
   * @since 0.1.0
   */
  public Usage usage() {
    return usage;
  }

  /**
   * Denied operations, tripped limits and tool calls, in order: at most 1,000, plus the limit that
   * ended the run; see {@link #droppedEvents()}.
   *
   * @since 0.1.0
   */
  public List<SandboxEvent> events() {
    return events;
  }

  /**
   * {@link #events()} as audit events of this run, with its audited attributes.
   *
   * @since 0.1.0
   */
  public List<AuditEvent> auditEvents() {
    return events.stream().map(e -> new AuditEvent(runId, label, e, auditedAttributes)).toList();
  }

  /**
   * Events the run produced beyond the 1,000 it keeps: counted, but in neither {@link #events()}, the
   * audit listener nor JDK Flight Recorder.
   *
   * @since 0.1.0
   */
  public int droppedEvents() {
    return droppedEvents;
  }

  /**
   * Events of this run, in {@link #events()}, that the {@link PolyglotSandbox.Builder#auditListener}
   * will not get because its queue was full when they happened (a listener slower than the guests);
   * {@link PolyglotSandbox#undeliveredAuditEvents()} counts them over all runs. Always 0 without a listener.
   *
   * @since 0.1.0
   */
  public int undeliveredAuditEvents() {
    return undeliveredAuditEvents;
  }

  /**
   * The denied-operation events only.
   *
   * @since 0.1.0
   */
  public List<SandboxEvent.DeniedOperation> deniedOperations() {
    return events.stream()
        .filter(SandboxEvent.DeniedOperation.class::isInstance)
        .map(SandboxEvent.DeniedOperation.class::cast)
        .toList();
  }

  /** @since 0.1.0 */
  @Override
  public String toString() {
    return "ExecutionResult{" + outcome + (limit == null ? "" : "(" + limit.id() + ")")
        + (rejection == null ? "" : "(" + rejection.reason().name().toLowerCase(Locale.ROOT) + ")")
        + (errorMessage == null ? "" : ", error=" + errorMessage)
        + ", value=" + value + ", events=" + events.size() + ", " + usage + "}";
  }

  /**
   * What a run consumed. A run has three phases: it waits for a turn and a thread ({@code queueTime}),
   * the sandbox prepares it ({@code setupTime}), then the guest program runs ({@code wallTime}). Only the
   * last is the guest's: its limits ({@link Limits#wallTime()}, CPU time, allocation, statements) count
   * from its first statement. The first two together are bounded by
   * {@link PolyglotSandbox.Builder#startTimeout}.
   *
   * @param wallTime the guest's own time: from its program's first statement to the copied-out result;
   *     zero if the program never started
   * @param cpuTime CPU time of the run's thread, from just before the program started
   * @param allocatedBytes heap bytes the run's thread allocated, from just before the program started
   * @param statements statements executed, known only when the statement limit tripped (GraalVM does not
   *     expose the counter otherwise)
   * @param outputBytes bytes the guest wrote to stdout and stderr together, including any that were cut
   * @param fileBytes bytes held by the run's file system at the end (mounted copies included)
   * @param files files and directories in the run's file system at the end (mounted copies included)
   * @param queueTime from the call to {@link PolyglotSandbox#run} or {@link PolyglotSandbox#runAsync}
   *     until the run's thread took it: waiting for a turn ({@link PolyglotSandbox.Builder#maxConcurrentRuns})
   *     and for a thread
   * @param setupTime the sandbox's own work before the program: making its context (or taking one from
   *     the warm pool, which costs next to nothing), copying the mounts in and binding the inputs
   * @since 0.1.0
   */
  public record Usage(Duration wallTime, Duration cpuTime, long allocatedBytes, OptionalLong statements,
      long outputBytes, long fileBytes, long files, Duration queueTime, Duration setupTime) {
    /** @since 0.1.0 */
    public Usage {
      Objects.requireNonNull(wallTime, "wallTime");
      Objects.requireNonNull(cpuTime, "cpuTime");
      Objects.requireNonNull(statements, "statements");
      Objects.requireNonNull(queueTime, "queueTime");
      Objects.requireNonNull(setupTime, "setupTime");
    }
  }

  /**
   * What the output boundary cut from or changed in the guest's text before it reached the
   * {@link ExecutionResult}: for stdout, stderr, and the error message with its guest stack frames.
   *
   * <p>Guest text is capped ({@link Limits#maxOutputBytes()} for stdout and stderr together) and
   * sanitised: it is valid UTF-8, holds no terminal escape sequence, no control character but newline
   * and tab, and no invisible character that reorders or hides text (bidirectional overrides, tag
   * characters). These notes say how much of that happened, so that an embedder, or a model reading
   * {@link ExecutionResult#toModelText()}, knows the text is not exactly what the guest wrote.
   *
   * @since 0.1.0
   */
  public record OutputNotes(Changes stdout, Changes stderr, Changes errorMessage) {
    /**
     * Notes for a run whose text needed no change.
     *
     * @since 0.1.0
     */
    public static final OutputNotes NONE = new OutputNotes(Changes.NONE, Changes.NONE, Changes.NONE);

    /** @since 0.1.0 */
    public OutputNotes {
      Objects.requireNonNull(stdout, "stdout");
      Objects.requireNonNull(stderr, "stderr");
      Objects.requireNonNull(errorMessage, "errorMessage");
    }

    /**
     * Whether every piece of guest text arrived whole and unchanged.
     *
     * @since 0.1.0
     */
    public boolean isEmpty() {
      return stdout.isEmpty() && stderr.isEmpty() && errorMessage.isEmpty();
    }

    /**
     * One line per changed piece of text, such as {@code "stdout: 2 terminal escape sequences removed"}.
     *
     * @since 0.1.0
     */
    public List<String> describe() {
      List<String> out = new ArrayList<>();
      if (!stdout.isEmpty()) {
        out.add("stdout: " + stdout.describe());
      }
      if (!stderr.isEmpty()) {
        out.add("stderr: " + stderr.describe());
      }
      if (!errorMessage.isEmpty()) {
        out.add("error message: " + errorMessage.describe());
      }
      return List.copyOf(out);
    }

    /**
     * The changes made to one piece of guest text.
     *
     * @param bytesDropped bytes the guest wrote past the output limit, not kept
     * @param escapeSequencesRemoved terminal escape sequences (CSI, OSC, ...) removed whole
     * @param controlCharactersReplaced control characters replaced by U+FFFD, or by a newline (a lone CR,
     *     U+2028, U+2029)
     * @param invalidSequencesReplaced malformed UTF-8 sequences and lone surrogates replaced by U+FFFD
     * @param invisibleCharactersRemoved bidirectional controls, zero-width and tag characters removed
     * @since 0.1.0
     */
    public record Changes(long bytesDropped, int escapeSequencesRemoved, int controlCharactersReplaced,
        int invalidSequencesReplaced, int invisibleCharactersRemoved) {
      /**
       * No change.
       *
       * @since 0.1.0
       */
      public static final Changes NONE = new Changes(0, 0, 0, 0, 0);

      /** @since 0.1.0 */
      public Changes {
        if (bytesDropped < 0 || escapeSequencesRemoved < 0 || controlCharactersReplaced < 0
            || invalidSequencesReplaced < 0 || invisibleCharactersRemoved < 0) {
          throw new IllegalArgumentException("counts must not be negative");
        }
      }

      /**
       * Whether the text arrived whole and unchanged.
       *
       * @since 0.1.0
       */
      public boolean isEmpty() {
        return bytesDropped == 0 && escapeSequencesRemoved == 0 && controlCharactersReplaced == 0
            && invalidSequencesReplaced == 0 && invisibleCharactersRemoved == 0;
      }

      /**
       * The changes in words, such as {@code "120 bytes cut at the output limit, 1 control character replaced"}.
       *
       * @since 0.1.0
       */
      public String describe() {
        List<String> parts = new ArrayList<>();
        if (bytesDropped > 0) {
          parts.add(bytesDropped + (bytesDropped == 1 ? " byte" : " bytes") + " cut at the output limit");
        }
        add(parts, escapeSequencesRemoved, "terminal escape sequence", "removed");
        add(parts, controlCharactersReplaced, "control character", "replaced");
        add(parts, invalidSequencesReplaced, "invalid UTF-8 sequence", "replaced");
        add(parts, invisibleCharactersRemoved, "invisible formatting character", "removed");
        return parts.isEmpty() ? "unchanged" : String.join(", ", parts);
      }

      private static void add(List<String> parts, int n, String what, String verb) {
        if (n > 0) {
          parts.add(n + " " + what + (n == 1 ? " " : "s ") + verb);
        }
      }
    }
  }

  /**
   * A file guest code left at a declared output path ({@link Script#withOutputFiles}), taken out of the
   * run's in-memory file system as bytes. Its content is untrusted: guest code wrote every byte.
   *
   * <p>The sandbox never writes it to the host by itself. {@link #writeTo(Path)} does, when the
   * embedder asks, inside a directory the embedder names, and nowhere else.
   *
   * @since 0.1.0
   */
  public static final class OutputFile {
    private final String guestPath;
    private final byte[] bytes;

    OutputFile(String guestPath, byte[] bytes) {
      this.guestPath = Objects.requireNonNull(guestPath, "guestPath");
      this.bytes = bytes.clone();
    }

    /**
     * The declared guest path, such as {@code /out/report.csv}.
     *
     * @since 0.1.0
     */
    public String guestPath() {
      return guestPath;
    }

    /**
     * The file's size in bytes.
     *
     * @since 0.1.0
     */
    public int size() {
      return bytes.length;
    }

    /**
     * A copy of the file's content (untrusted).
     *
     * @since 0.1.0
     */
    public byte[] bytes() {
      return bytes.clone();
    }

    /**
     * Writes the file below {@code directory}, at its guest path made relative: {@code /out/report.csv}
     * goes to {@code directory/out/report.csv}. Directories on the way are created; one that exists must
     * be a real directory, never a symbolic link. The file is created new ({@code CREATE_NEW},
     * {@code NOFOLLOW_LINKS}): an existing file or link of that name is never overwritten or followed.
     * Nothing is written outside {@code directory}.
     *
     * @return the host file written
     * @throws java.nio.file.FileAlreadyExistsException if the file already exists
     * @throws java.nio.file.NotDirectoryException if {@code directory} is not a directory
     * @throws java.nio.file.FileSystemException if a directory on the way is a symbolic link or a file
     * @throws IllegalArgumentException if a name in the guest path is unsafe as a host file name (never
     *     the case for paths {@link Script#withOutputFiles} accepted)
     * @throws IOException if writing fails; a partly written file is removed
     * @since 0.1.0
     */
    public Path writeTo(Path directory) throws IOException {
      return HostWriter.write(Objects.requireNonNull(directory, "directory"), guestPath, bytes);
    }

    /** @since 0.1.0 */
    @Override
    public String toString() {
      return "OutputFile{" + guestPath + ", " + bytes.length + " bytes}";
    }
  }

  /**
   * A piece of a run's stdout or stderr, as the guest wrote it, for a listener that shows output while
   * the run goes ({@link Script#withOutputListener}). Untrusted text, already sanitised as
   * {@link ExecutionResult#stdout()} is (no escape sequences or control characters but newline and tab)
   * and within the run's {@code maxOutputBytes}: what the cap dropped is never streamed. The chunks of a
   * run, joined in order, are its {@code stdout()} and {@code stderr()}, unless the listener fell behind
   * ({@link ExecutionResult#undeliveredOutputChunks()}) or an escape sequence was split between two writes
   * (each chunk is sanitised on its own: the sequence's printable remains then show as text). A
   * multi-byte character split across two writes arrives whole, in the later chunk.
   *
   * @param runId the run's {@link ExecutionResult#runId()}
   * @param stream which stream the guest wrote to
   * @param text what it wrote, never empty
   * @since 0.1.0
   */
  public record OutputChunk(String runId, Stream stream, String text) {
    /**
     * The guest's two output streams.
     *
     * @since 0.1.0
     */
    public enum Stream {
      STDOUT,
      STDERR
    }

    /** @since 0.1.0 */
    public OutputChunk {
      Objects.requireNonNull(runId, "runId");
      Objects.requireNonNull(stream, "stream");
      Objects.requireNonNull(text, "text");
    }
  }
}
