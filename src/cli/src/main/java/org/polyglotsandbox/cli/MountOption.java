package org.polyglotsandbox.cli;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import org.polyglotsandbox.Mount;
import picocli.CommandLine;

/**
 * Parses {@code --mount HOST_PATH:GUEST_PATH[:ro|rw]}. The access defaults to {@code ro}; a relative
 * host path resolves against the current directory and must exist. The guest path is the part after the
 * last {@code :} (after removing the access), so host paths may contain colons.
 */
final class MountOption implements CommandLine.ITypeConverter<Mount> {
  static final String SYNTAX = "HOST_PATH:GUEST_PATH[:ro|rw]";

  @Override
  public Mount convert(String spec) {
    return parse(spec, Path.of(""));
  }

  /**
   * Parses a mount specification; relative host paths resolve against {@code base}.
   *
   * @throws CommandLine.TypeConversionException naming the specification and what is wrong with it
   */
  static Mount parse(String spec, Path base) {
    String rest = spec;
    String access = "ro";
    int colon = rest.lastIndexOf(':');
    if (colon < 0) {
      throw invalid(spec, "expected " + SYNTAX);
    }
    String last = rest.substring(colon + 1);
    if (last.equals("ro") || last.equals("rw")) {
      access = last;
      rest = rest.substring(0, colon);
      colon = rest.lastIndexOf(':');
      if (colon < 0) {
        throw invalid(spec, "expected " + SYNTAX);
      }
    } else if (!last.startsWith("/") && rest.substring(0, colon).contains(":")) {
      throw invalid(spec, "access " + Text.quote(last) + " is not ro or rw");
    }
    String host = rest.substring(0, colon);
    String guest = rest.substring(colon + 1);
    if (host.isEmpty()) {
      throw invalid(spec, "the host path is empty");
    }
    Path hostPath;
    try {
      hostPath = base.resolve(host).toAbsolutePath().normalize();
    } catch (InvalidPathException e) {
      throw invalid(spec, "host path " + Text.quote(host) + " is not a valid path");
    }
    if (!Files.exists(hostPath)) {
      throw invalid(spec, "host path " + hostPath + " does not exist");
    }
    try {
      return access.equals("rw") ? Mount.readWrite(hostPath, guest) : Mount.readOnly(hostPath, guest);
    } catch (IllegalArgumentException e) {
      throw invalid(spec, e.getMessage());
    }
  }

  private static CommandLine.TypeConversionException invalid(String spec, String problem) {
    return new CommandLine.TypeConversionException(Text.quote(spec) + ": " + problem);
  }
}
