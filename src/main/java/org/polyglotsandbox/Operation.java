package org.polyglotsandbox;

/** An operation guest code attempted that the sandbox can observe being denied. */
public enum Operation {
  FILE_READ("file.read"),
  FILE_WRITE("file.write"),
  FILE_CREATE("file.create"),
  FILE_DELETE("file.delete"),
  FILE_LIST("file.list"),
  /** Creating a hard or symbolic link; never allowed, so no link can lead out of a mount. */
  FILE_LINK("file.link"),
  PROCESS_SPAWN("process.spawn"),
  NETWORK_SOCKET("network.socket"),
  THREAD_CREATE("thread.create"),
  HOST_ACCESS("host.access"),
  NATIVE_ACCESS("native.access"),
  /** Calling a tool the policy does not allow, or that does not exist; the target is the name tried. */
  TOOL_CALL("tool.call");

  private final String id;

  Operation(String id) {
    this.id = id;
  }

  /** A stable name for reports and JSON, such as {@code file.read}. */
  public String id() {
    return id;
  }

  /** The operation matching a file operation. */
  public static Operation of(FileOperation op) {
    return switch (op) {
      case READ -> FILE_READ;
      case WRITE -> FILE_WRITE;
      case CREATE -> FILE_CREATE;
      case DELETE -> FILE_DELETE;
      case LIST -> FILE_LIST;
    };
  }
}
