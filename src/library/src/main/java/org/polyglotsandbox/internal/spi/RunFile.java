package org.polyglotsandbox.internal.spi;

import java.util.Objects;

/**
 * One file the embedder hands to a single run ({@code Script.withFile}): its normalized guest path, its
 * content and whether guest code may overwrite it. The bytes are the script's own copy, never changed.
 */
public record RunFile(String guestPath, byte[] bytes, boolean writable) {
  public RunFile {
    Objects.requireNonNull(guestPath, "guestPath");
    Objects.requireNonNull(bytes, "bytes");
  }
}
