package org.polyglotsandbox.internal.probe;

import static org.polyglotsandbox.Operation.NATIVE_ACCESS;

import java.util.List;

/** Native code: WebAssembly and host libraries from JavaScript; {@code ctypes}, cffi and dlopen from Python. */
final class NativeProbes {
  private static final String ANY_LIBRARY = "<any library>";

  private NativeProbes() {}

  static void javascript(ProbeBattery b, List<Probe> out) {
    out.add(Probe.js("js.native.webassembly", NATIVE_ACCESS, ANY_LIBRARY).code(JS_NATIVE_WEBASSEMBLY));
    out.add(Probe.js("js.native.load-library", NATIVE_ACCESS, ANY_LIBRARY).code(JS_NATIVE_LOAD_LIBRARY));
  }

  static void python(ProbeBattery b, List<Probe> out) {
    out.add(Probe.py("py.native.ctypes", NATIVE_ACCESS, ANY_LIBRARY).code(PY_NATIVE_CTYPES));
    out.add(Probe.py("py.native.cffi", NATIVE_ACCESS, ANY_LIBRARY).code(PY_NATIVE_CFFI));
    out.add(Probe.py("py.native.dlopen", NATIVE_ACCESS, ANY_LIBRARY).alone().denial(NATIVE_ACCESS, "")
        .code(PY_NATIVE_DLOPEN));
  }

  // ---- guest code

  static final String JS_NATIVE_WEBASSEMBLY = """
      if (typeof WebAssembly === 'undefined') { return 'blocked: WebAssembly is not defined'; }
      new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
      return 'reachable: compiled a WebAssembly module';""";

  static final String JS_NATIVE_LOAD_LIBRARY = """
      Java.type('java.lang.System').loadLibrary('c');
      return 'reachable: loaded libc';""";

  static final String PY_NATIVE_CTYPES = """
      import ctypes
      return 'reachable: ' + repr(ctypes.CDLL(None))""";

  static final String PY_NATIVE_CFFI = """
      import _cffi_backend
      return 'reachable: imported _cffi_backend'""";

  static final String PY_NATIVE_DLOPEN = """
      import _ctypes
      return 'reachable: ' + repr(_ctypes.dlopen('libc.so.6', 0))""";
}
