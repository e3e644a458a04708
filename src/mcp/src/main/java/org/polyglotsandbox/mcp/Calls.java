package org.polyglotsandbox.mcp;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.polyglotsandbox.Script;

/**
 * The tool calls in flight, by connection and JSON-RPC request id, so that {@code notifications/cancelled}
 * and a closed connection reach the runs they concern. A call is registered when its run is handed to a
 * thread and removed when it ends.
 */
final class Calls {
  /** One call: the thread that runs it, once it has one, and whether the client withdrew it. */
  static final class Call {
    private volatile Thread thread;
    private volatile boolean withdrawn;

    /** Called by the thread about to run the call; false if it was withdrawn already (then do not run). */
    boolean start() {
      thread = Thread.currentThread();
      return !withdrawn;
    }

    /** Called by that thread when the run has returned; clears an interrupt that came too late. Idempotent. */
    void finish() {
      if (thread != null) {
        thread = null;
        Thread.interrupted();
      }
    }

    /** Whether the client cancelled it (then it gets no response, as the protocol asks). */
    boolean withdrawn() {
      return withdrawn;
    }

    void withdraw() {
      withdrawn = true;
      Thread t = thread;
      if (t != null) {
        t.interrupt();   // interrupts the caller of PolyglotSandbox.run: the run ends CANCELLED
      }
    }
  }

  /** Cancellations that arrived before their call was registered; bounded, a stale entry is harmless. */
  private static final int MAX_EARLY = 1024;

  private final Map<String, Call> calls = new ConcurrentHashMap<>();
  private final Set<String> early = ConcurrentHashMap.newKeySet();

  /** The key of a request: its connection and its id, a number and a string never equal. */
  static String key(String connection, Object requestId) {
    String id = requestId instanceof Number n ? "n:" + n.longValue() : "s:" + requestId;
    return connection + "\u0000" + id;
  }

  /**
   * The run label of a key ({@code Script.withLabel}): "mcp CONNECTION request ID", so that audit events
   * name the request; the client-chosen id's control characters become {@code ?}, the whole is at most 128
   * characters.
   */
  static String label(String key) {
    int sep = key.indexOf('\u0000');
    return Script.labelFrom("mcp " + key.substring(0, sep) + " request " + key.substring(sep + 3));
  }

  /** The connection part of a key. */
  static String connectionOf(String key) {
    return key.substring(0, key.indexOf('\u0000'));
  }

  void put(String key, Call call) {
    calls.put(key, call);
    if (early.remove(key)) {
      call.withdraw();
    }
  }

  void remove(String key, Call call) {
    calls.remove(key, call);
  }

  /** Cancels the call under {@code key}, if it is still running; returns whether there was one. */
  boolean cancel(String key) {
    Call c = calls.get(key);
    if (c == null) {
      if (early.size() >= MAX_EARLY) {
        early.clear();
      }
      early.add(key);
      return false;
    }
    c.withdraw();
    return true;
  }

  /** Cancels every call of a connection that closed; returns how many. */
  int cancelConnection(String connection) {
    int n = 0;
    for (Map.Entry<String, Call> e : calls.entrySet()) {
      if (connectionOf(e.getKey()).equals(connection)) {
        e.getValue().withdraw();
        n++;
      }
    }
    return n;
  }

  /** Calls of a connection still registered. */
  int countConnection(String connection) {
    int n = 0;
    for (String k : calls.keySet()) {
      if (connectionOf(k).equals(connection)) {
        n++;
      }
    }
    return n;
  }

  int size() {
    return calls.size();
  }
}
