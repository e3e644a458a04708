package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.NETWORK_SOCKET;

import java.util.List;

/**
 * The network: connecting (to a loopback listener the probe owns, which counts what it accepts),
 * listening and resolving. GraalJS has no socket API; GraalPy ends the run at the first socket, so
 * each Python probe runs alone and needs the recorded denial.
 */
final class NetworkProbes {
  private NetworkProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    ProbeFixtures s = b.fixtures();
    out.add(Probe.js("js.net.fetch", NETWORK_SOCKET, "connect").code(JS_NET_FETCH));
    s.listen("js.net.fetch");
    out.add(Probe.js("js.net.xhr-websocket", NETWORK_SOCKET, "connect").code(JS_NET_XHR_WEBSOCKET));
    out.add(Probe.js("js.net.import-http", NETWORK_SOCKET, "connect")
        .hostCheck(() -> s.connected("js.net.import-http")).code(JS_NET_IMPORT_HTTP));
    s.listen("js.net.import-http");
    out.add(Probe.js("js.net.java-socket", NETWORK_SOCKET, "connect").code(JS_NET_JAVA_SOCKET));
    s.listen("js.net.java-socket");
  }

  static void python(ProbeBattery b, List<Probe> out) {
    ProbeFixtures s = b.fixtures();
    out.add(Probe.py("py.net.connect", NETWORK_SOCKET, "connect").alone().denial(NETWORK_SOCKET, "")
        .hostCheck(() -> s.connected("py.net.connect")).code(PY_NET_CONNECT));
    s.listen("py.net.connect");
    out.add(Probe.py("py.net.listen", NETWORK_SOCKET, "listen").alone().denial(NETWORK_SOCKET, "").code(PY_NET_LISTEN));
    out.add(Probe.py("py.net.resolve", NETWORK_SOCKET, "resolve").alone().denial(NETWORK_SOCKET, "")
        .code(PY_NET_RESOLVE));
  }

  // ---- guest code

  static final String JS_NET_FETCH = """
      return typeof fetch === 'undefined' ? 'blocked: fetch is not defined'
        : fetch('http://127.0.0.1:' + audit.ports['js.net.fetch'] + '/').then(() => 'reachable: fetched');""";

  static final String JS_NET_XHR_WEBSOCKET = """
      if (typeof XMLHttpRequest === 'undefined' && typeof WebSocket === 'undefined' && typeof EventSource === 'undefined') {
        return 'blocked: no XMLHttpRequest, WebSocket or EventSource';
      }
      return 'reachable: a browser network API exists';""";

  static final String JS_NET_IMPORT_HTTP = """
      return import('http://127.0.0.1:' + audit.ports['js.net.import-http'] + '/x.mjs').then(() => 'reachable: imported over http');""";

  static final String JS_NET_JAVA_SOCKET = """
      const S = Java.type('java.net.Socket');
      new S('127.0.0.1', audit.ports['js.net.java-socket']);
      return 'reachable: connected through java.net.Socket';""";

  static final String PY_NET_CONNECT = """
      import socket
      socket.create_connection(('127.0.0.1', audit['ports']['py.net.connect']), timeout=5).close()
      return 'reachable: connected to the host'""";

  static final String PY_NET_LISTEN = """
      import socket
      s = socket.socket()
      s.bind(('127.0.0.1', 0))
      s.listen(1)
      return 'reachable: listening on port ' + str(s.getsockname()[1])""";

  static final String PY_NET_RESOLVE = """
      import socket
      return 'reachable: resolved ' + str(socket.getaddrinfo('localhost', 80)[0][4])""";
}
