package org.polyglotsandbox.internal.tools;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyArray;
import org.graalvm.polyglot.proxy.ProxyExecutable;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Layer;
import org.polyglotsandbox.Limit;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Operation;
import org.polyglotsandbox.PolyglotSandbox.RunObserver;
import org.polyglotsandbox.SandboxEvent.ToolCall.Status;
import org.polyglotsandbox.SandboxEvent.ToolCall;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.ToolException;
import org.polyglotsandbox.internal.PythonJson;
import org.polyglotsandbox.internal.boundary.GuestFunction;
import org.polyglotsandbox.internal.boundary.GuestMeasure;
import org.polyglotsandbox.internal.boundary.NotPlainDataException;
import org.polyglotsandbox.internal.boundary.PlainData;
import org.polyglotsandbox.internal.boundary.TextSanitizer;
import org.polyglotsandbox.internal.boundary.ValueCopier;
import org.polyglotsandbox.internal.boundary.ValueRejectedException;
import org.polyglotsandbox.internal.limits.RunGuard;
import org.polyglotsandbox.internal.text.Durations;

/**
 * One run's door to the host: the guest-side {@code tools} object and the one host function behind it.
 *
 * <p>The guest holds exactly one host value, a {@link ProxyExecutable} {@code raw(name, args)} hidden in
 * a closure of a small guest-side wrapper. It takes a string and a guest object and returns a string:
 * {@code "R" + json} for a result, {@code "E" + json} for an error, which the wrapper parses with the
 * guest's own JSON parser (a fresh guest value) or throws as a guest {@code ToolError}. For Python, a
 * result that is a number, boolean or null comes back as that primitive, text as {@code "S" + text}, and a
 * small list or map as a {@link ProxyArray} of strings and primitives that the wrapper copies into a
 * fresh list or dict (see {@link #forPython}): never a host object either. No host
 * exception, host object or host class name ever reaches the guest. A guest that digs {@code raw} out
 * (Python closures are introspectable) gains nothing: every check is here, on the host side.
 *
 * <p>Per call: look up the name among the allowed tools (else a {@link Operation#TOOL_CALL} denial);
 * count it against the tool's budget (over it, the run ends with {@link Limit#TOOL_CALLS}); copy the
 * arguments once, on the guest thread and so under the guest's limits, as strict plain data; validate
 * that copy; run the handler on a sandbox thread with the tool's timeout while watching for the run
 * being cancelled (an inline tool's handler runs right here, interrupted by the run's guard instead);
 * check and encode the result. Every call is recorded as a {@link ToolCall} event.
 */
public final class ToolGateway {
  private static final System.Logger LOG = System.getLogger("org.polyglotsandbox");
  /** Values and nesting an argument object may hold, whatever its byte cap. */
  static final int MAX_ARGUMENT_NODES = 10_000;
  static final int MAX_ARGUMENT_DEPTH = 32;
  private static final PlainData.Format ARGUMENTS =
      PlainData.Format.strict(MAX_ARGUMENT_DEPTH + 1, Integer.MAX_VALUE);
  /**
   * A structured answer for Python of at most this many tokens crosses as a flat tape that the wrapper
   * builds ({@link PlainData#tape}); a larger one as JSON text for {@code _json}'s scanner, whose fixed
   * cost a large value amortises while the tape's per-token reads of a host array do not.
   */
  static final int MAX_TAPE_TOKENS = 256;
  /** Tool names a run may try that are unknown or not allowed and still be reported one by one. */
  private static final int MAX_DENIALS_REPORTED = 100;
  /** How often a guest thread waiting for a handler checks whether its run was cancelled. */
  private static final long CANCEL_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  /**
   * Defines {@code tools} and the global {@code ToolError}. Every intrinsic it calls later is bound here,
   * before any guest code: a guest that replaces {@code String.prototype.slice}, {@code Map.prototype.get},
   * {@code Reflect.get} or {@code Object.defineProperty} changes nothing of it, and its tables have no
   * prototype, so no getter or setter a guest puts on one is consulted.
   */
  private static final String JAVASCRIPT_WRAPPER = """
      (raw, parse) => {
        'use strict';
        const slice = Function.prototype.call.bind(String.prototype.slice);
        const isArray = Array.isArray, get = Reflect.get, define = Object.defineProperty, Proxy_ = Proxy;
        const TypeError_ = TypeError;
        const hidden = { __proto__: null, then: true, toJSON: true, toString: true, valueOf: true, constructor: true,
          prototype: true };
        const native = { __proto__: null, call: true, apply: true, bind: true };
        class ToolError extends Error {
          constructor(message, code) {
            super(message);
            define(this, 'code', { __proto__: null, value: code, writable: true, enumerable: true, configurable: true });
          }
          get name() { return 'ToolError'; }
        }
        const readOnly = { set() { return false; }, defineProperty() { return false; },
          deleteProperty() { return false; }, setPrototypeOf() { return false; } };
        const nodes = { __proto__: null };
        let kept = 0;
        const node = (name) => {
          const known = nodes[name];
          if (known !== undefined) { return known; }
          const call = (args) => {
            if (args === undefined) { args = {}; }
            else if (args === null || typeof args !== 'object' || isArray(args)) {
              throw new TypeError_("tools['" + name + "'](args): args must be an object such as {key: 'a'}");
            }
            const r = raw(name, args);
            const body = parse(slice(r, 1));
            if (r[0] === 'R') { return body; }
            throw new ToolError(body.message, body.code);
          };
          const proxy = new Proxy_(call, { ...readOnly, get(target, key) {
            if (typeof key !== 'string' || hidden[key] === true || key[0] === '_') { return undefined; }
            if (native[key] === true) { return get(target, key); }
            return node(name + '.' + key);
          } });
          if (kept < 256) { nodes[name] = proxy; kept++; }
          return proxy;
        };
        const root = new Proxy_(Object.freeze(Object.create(null)), { ...readOnly, get(target, key) {
          if (typeof key !== 'string' || hidden[key] === true || native[key] === true || key[0] === '_') {
            return undefined;
          }
          return node(key);
        } });
        define(globalThis, 'tools', { __proto__: null, value: root, enumerable: false, writable: false,
          configurable: false });
        define(globalThis, 'ToolError', { __proto__: null, value: ToolError, enumerable: false, writable: true,
          configurable: true });
      }""";

  /**
   * Defines {@code install(raw)} and takes it straight back out of the module's globals, so nothing is
   * left there but, later, {@code tools}. The builtins the wrapper needs are bound as locals when it is
   * installed, before any guest code runs: a guest that later shadows or patches them changes nothing.
   *
   * <p>Per call it does as little as it can in Python, because only this source's code is shared (and
   * compiled) across contexts, while the standard library's is parsed and interpreted afresh in each
   * one: a number, boolean or {@code None} comes back as itself, a string as {@code "S" + text}, a list
   * or map of at most {@value #MAX_TAPE_TOKENS} tokens as a flat tape ({@link PlainData#tape}) that
   * {@code build} walks (about 40 us less than scanning its JSON for a two-key map; RESULTS.md,
   * 2026-12-03), and only larger ones and errors as JSON, read with the {@code _json} module's scanner
   * (written in Java, {@link PythonJson}) instead of {@code json.loads} (Python), with no import of
   * {@code json}. Tool nodes ({@code tools.kv}, {@code tools.kv.get})
   * are kept once made, up to 256 names.
   */
  private static final String PYTHON_WRAPPER = """
      def _polyglot_sandbox_tools(raw):
          scan = JSON_SCANNER
          isinstance_, len_, dict_, str_, type_, int_ = isinstance, len, dict, str, type, int
          plain = (int, float, bool)
          TypeError_, AttributeError_, RuntimeError_ = TypeError, AttributeError, RuntimeError
          setattr_ = object.__setattr__
          nodes = {}
          class ToolError(RuntimeError):
              def __init__(self, message, code):
                  RuntimeError_.__init__(self, message)
                  self.code = code
          ToolError.__module__ = 'builtins'
          # A builtin name, like the language's own exceptions: 'except ToolError' works in every module.
          __import__('builtins').ToolError = ToolError
          class Tool:
              __slots__ = ('_Tool__name',)
              def __init__(self, name):
                  setattr_(self, '_Tool__name', name)
              def __getattr__(self, key):
                  if key.startswith('_'):
                      raise AttributeError_(key)
                  name = key if self.__name == '' else self.__name + '.' + key
                  node = nodes.get(name)
                  if node is None:
                      node = Tool(name)
                      if len_(nodes) < 256:
                          nodes[name] = node
                  return node
              def __setattr__(self, key, value):
                  raise AttributeError_('tools are read-only')
              def __delattr__(self, key):
                  raise AttributeError_('tools are read-only')
              def __repr__(self):
                  return '<tools>' if self.__name == '' else "<tool '" + self.__name + "'>"
              def __call__(self, *args, **kwargs):
                  if args:
                      if kwargs:
                          raise TypeError_('tools.' + self.__name + '(): pass a dict or keyword arguments, not both')
                      if len_(args) > 1:
                          raise TypeError_('tools.' + self.__name + '(): takes one dict or keyword arguments')
                      a = args[0]
                      if not isinstance_(a, dict_):
                          raise TypeError_('tools.' + self.__name + '(): arguments must be a dict or keyword arguments')
                  else:
                      a = kwargs
                  r = raw(self.__name, a)
                  if r is None:  # the host's null arrives as a foreign None
                      return None
                  t = type_(r)
                  if t is not str_:
                      return r if t in plain else build(r)
                  tag = r[0]
                  if tag == 'S':
                      return r[1:]
                  body = scan(r, 1)[0]
                  if tag == 'R':
                      return body
                  raise ToolError(body['message'], body['code'])
          def build(tape):
              # A structured answer as the host's flat tape (PlainData.tape): one kind per token, data after.
              kinds = tape[0]
              stack = []
              push, pop = stack.append, stack.pop
              cur = root = key = None
              in_dict = False
              i = 1
              for k in kinds:
                  if k == 'k':
                      key = tape[i]
                      i += 1
                      continue
                  if k == '}' or k == ']':
                      cur, in_dict, key = pop()
                      continue
                  if k == '{':
                      v = {}
                  elif k == '[':
                      v = []
                  elif k == 'n':
                      v = None
                  elif k == 't':
                      v = True
                  elif k == 'F':
                      v = False
                  elif k == 'B':
                      v = int_(tape[i])
                      i += 1
                  else:
                      v = tape[i]
                      i += 1
                  if cur is None:
                      root = v
                  elif in_dict:
                      cur[key] = v
                  else:
                      cur.append(v)
                  if k == '{' or k == '[':
                      push((cur, in_dict, key))
                      cur = v
                      in_dict = k == '{'
              return root
          Tool.__module__ = 'tools'
          Tool.__qualname__ = Tool.__name__ = 'Tools'
          return Tool('')
      globals().pop('_polyglot_sandbox_tools')
      """;

  // Constants: the engine keeps a source's compiled code only while the Source object lives, and these run
  // in every context that has tools.
  private static final Source JAVASCRIPT_PARSE =
      Source.newBuilder("js", "JSON.parse", "sandbox-tools-json.js").internal(true).buildLiteral();
  private static final Source JAVASCRIPT_INSTALL =
      Source.newBuilder("js", JAVASCRIPT_WRAPPER, "sandbox-tools.js").internal(true).buildLiteral();
  private static final Source PYTHON_INSTALL =
      Source.newBuilder("python", PYTHON_WRAPPER.replace("JSON_SCANNER", PythonJson.SCANNER), "sandbox-tools.py")
          .internal(true).buildLiteral();

  private final Map<String, ToolBinding> tools;
  private final Language language;
  private final Limits limits;
  private final RunGuard guard;
  private final HandlerThreads handlers;
  private final Map<String, Integer> calls = new HashMap<>();
  private int denials;
  /** The run's label and attributes, which each handler call receives; set when the run starts. */
  private volatile String label = "";
  private volatile Map<String, String> attributes = Map.of();
  private volatile RunObserver.Run observed = RunObserver.Run.NONE;
  /** Asks the guest for string lengths before arguments are copied; made once, in {@link #install}. */
  private GuestMeasure measure;

  ToolGateway(Map<String, ToolBinding> tools, Language language, Limits limits, RunGuard guard,
      HandlerThreads handlers) {
    this.tools = tools;
    this.language = language;
    this.limits = limits;
    this.guard = guard;
    this.handlers = handlers;
  }

  /**
   * Sets the run's label and attributes that handlers receive ({@link Tool.Call}); called when
   * the run starts, before its guest does, as a context prepared in advance did not know its script.
   */
  public void runContext(String label, Map<String, String> attributes, RunObserver.Run observed) {
    this.label = label;
    this.attributes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(attributes));
    this.observed = observed;
  }

  /** Calls the handler, telling the run's observer before and after, on the handler's own thread. */
  private Object callHandler(ToolBinding tool, Map<String, Object> arguments, Tool.Call context) throws Exception {
    RunObserver.Run o = observed;
    if (o == RunObserver.Run.NONE) {
      return tool.handler().call(arguments, context);
    }
    RunObserver.HandlerCall call = o.handlerStarted(context);
    Throwable failure = null;
    try {
      return tool.handler().call(arguments, context);
    } catch (Throwable t) {
      failure = t;
      throw t;
    } finally {
      call.ended(failure);
    }
  }

  private Tool.Call context(ToolBinding tool) {
    return new Tool.Call(tool.name(), guard.runId(), label, attributes);
  }

  /** Defines {@code tools} in a fresh context; {@code measure} was made in it before any guest code. */
  public void install(Context context, GuestMeasure measure) {
    this.measure = measure;
    // Named: a guest that digs raw out of the Python wrapper's closure sees "tools", not a host class.
    ProxyExecutable raw = GuestFunction.named("tools", this::call);
    if (language == Language.JAVASCRIPT) {
      context.eval(JAVASCRIPT_INSTALL).execute(raw, context.eval(JAVASCRIPT_PARSE));
    } else {
      context.getBindings("python").putMember("tools", context.eval(PYTHON_INSTALL).execute(raw));
    }
  }

  /**
   * The body of {@code raw(name, args)}; runs on the guest thread. Whatever goes wrong on the host side
   * becomes a tool error: an exception thrown from here would reach the guest as a host object. Only
   * the guest's own errors (raised by its code while its arguments were read) and the run's end pass.
   */
  private Object call(Value... args) {
    try {
      return callChecked(args);
    } catch (PolyglotException e) {
      throw e;
    } catch (RuntimeException | StackOverflowError e) {
      LOG.log(System.Logger.Level.ERROR, "the tool gateway failed", e);
      return error("failed", "the tool call failed in the sandbox");
    }
  }

  private Object callChecked(Value... args) {
    long start = System.nanoTime();
    if (args.length != 2 || !args[0].isString()) {
      return error("invalid_call", "tools are called as tools.name({...})");
    }
    // The name is guest data: its length is asked before it is copied, so a huge one never reaches the host.
    long length = measure.length(args[0]);
    String name = length <= Tool.MAX_NAME_LENGTH ? args[0].asString() : null;
    ToolBinding tool = name == null ? null : tools.get(name);
    if (tool == null) {
      // A name longer than any tool's is neither copied nor shown.
      String target = name == null ? "(a name of " + length + " characters)" : name;
      if (denials++ < MAX_DENIALS_REPORTED) {
        guard.denied(Operation.TOOL_CALL, target, Layer.TOOL_GATEWAY);
      }
      return error("denied", (name == null ? "a tool name of " + length + " characters" : "tool '" + name + "'")
          + " is not available in this sandbox");
    }
    if (guard.isCancelled()) {
      return error("cancelled", "the run was cancelled");
    }
    int n = calls.merge(name, 1, Integer::sum);
    if (n > tool.maxCallsPerRun()) {
      guard.trip(Limit.TOOL_CALLS, "tool '" + name + "' called more than " + tool.maxCallsPerRun() + " times",
          Layer.TOOL_GATEWAY, true);
      record(tool, 0, start, Status.OVER_BUDGET);
      return error("over_budget", "tool '" + name + "' may be called at most " + tool.maxCallsPerRun()
          + " times per run");
    }

    Map<String, Object> arguments;
    try {
      Object copy = ValueCopier.forArguments(language, MAX_ARGUMENT_NODES, MAX_ARGUMENT_DEPTH,
          tool.maxArgumentBytes(), measure).copy(args[1]);
      if (!(copy instanceof Map<?, ?> map)) {
        record(tool, 0, start, Status.INVALID_ARGUMENTS);
        return error("invalid_arguments", "tool '" + name + "': arguments must be an object");
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> m = (Map<String, Object>) map;
      arguments = m;
    } catch (NotPlainDataException | ValueRejectedException e) {
      record(tool, 0, start, Status.INVALID_ARGUMENTS);
      return error("invalid_arguments", "tool '" + name + "': " + e.getMessage());
    }
    byte[] json;
    try {
      json = PlainData.toJson(arguments, ARGUMENTS).getBytes(StandardCharsets.UTF_8);
    } catch (NotPlainDataException e) {
      record(tool, 0, start, Status.INVALID_ARGUMENTS); // not reached: the copier produces only plain data
      return error("invalid_arguments", "tool '" + name + "': arguments are not plain data");
    }
    if (json.length > tool.maxArgumentBytes()) {
      record(tool, json.length, start, Status.INVALID_ARGUMENTS);
      return error("invalid_arguments", "tool '" + name + "': arguments are " + json.length
          + " bytes of JSON, more than the " + tool.maxArgumentBytes() + " allowed");
    }
    List<String> violations = tool.parameters().violations(arguments);
    if (!violations.isEmpty()) {
      record(tool, json.length, start, Status.INVALID_ARGUMENTS);
      return error("invalid_arguments", "tool '" + name + "': invalid arguments: " + String.join("; ", violations));
    }

    Object result;
    try {
      result = await(tool, arguments);
    } catch (TimeoutException e) {
      record(tool, json.length, start, Status.TIMED_OUT);
      return error("timeout", "tool '" + name + "' did not answer within " + Durations.format(tool.timeout()));
    } catch (CancellationException e) {
      record(tool, json.length, start, Status.CANCELLED);
      return error("cancelled", "the run was cancelled");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      record(tool, json.length, start, Status.FAILED);
      if (cause instanceof ToolException) {
        return error("failed", TextSanitizer.withoutHostNames(cause.getMessage()));
      }
      LOG.log(System.Logger.Level.WARNING, "tool '" + name + "' failed", cause);
      String message = cause == null ? null : cause.getMessage();
      return error("failed", "tool '" + name + "' failed"
          + (message == null || message.isBlank() ? "" : ": " + TextSanitizer.withoutHostNames(message)));
    }

    String text;
    try {
      text = PlainData.toJson(result, PlainData.Format.strict(limits.maxResultDepth(), limits.maxResultNodes()));
    } catch (NotPlainDataException e) {
      LOG.log(System.Logger.Level.WARNING, "tool '" + name + "' returned an unusable result: " + e.getMessage());
      record(tool, json.length, start, Status.INVALID_RESULT);
      return error("invalid_result", "tool '" + name + "' returned a result that is not plain data");
    }
    if (tool.result() != null) {
      List<String> wrong = tool.result().violations(result);
      if (!wrong.isEmpty()) {
        LOG.log(System.Logger.Level.WARNING, "tool '" + name + "' returned an invalid result: " + wrong);
        record(tool, json.length, start, Status.INVALID_RESULT);
        return error("invalid_result", "tool '" + name + "' returned an invalid result: " + String.join("; ", wrong));
      }
    }
    if (text.length() > limits.maxResultStringLength()) {
      record(tool, json.length, start, Status.INVALID_RESULT);
      return error("invalid_result", "tool '" + name + "' returned more than " + limits.maxResultStringLength()
          + " characters of JSON");
    }
    record(tool, json.length, start, Status.OK);
    return language == Language.PYTHON ? forPython(result, text) : "R" + text;
  }

  /**
   * What {@code raw} hands the Python wrapper for a checked result: a number, boolean or null as
   * itself (GraalPy sees an {@code int}, {@code float}, {@code bool} or {@code None}), text as
   * {@code "S" + text}, a list or map of at most {@value #MAX_TAPE_TOKENS} tokens as the tape of
   * {@code json} ({@link PlainData#tape}), anything larger as {@code "R" + json}. {@code json} is the
   * result already checked and encoded, so every cap has been applied whatever form it takes, and the
   * tape is read from that text, not from the handler's value again (which could answer differently).
   */
  private static Object forPython(Object result, String json) {
    if (result == null || result instanceof Boolean) {
      return result;
    }
    if (result instanceof Long || result instanceof Integer || result instanceof Short || result instanceof Byte) {
      return ((Number) result).longValue();
    }
    if (result instanceof Double || result instanceof Float) {
      return ((Number) result).doubleValue(); // finite: the JSON encoding refused anything else
    }
    if (result instanceof CharSequence || result instanceof Character) {
      return "S" + result;
    }
    List<Object> tape = PlainData.tape(json, MAX_TAPE_TOKENS);
    return tape == null ? "R" + json : new Tape(tape);
  }

  /**
   * Runs the handler on a sandbox thread and waits for it, at most its timeout, and only while the run
   * is not cancelled. An abandoned handler is interrupted and left to finish on its own.
   */
  private Object await(ToolBinding tool, Map<String, Object> arguments)
      throws TimeoutException, ExecutionException {
    if (tool.inline()) {
      return inline(tool, arguments);
    }
    HandlerThreads.Call call;
    try {
      Tool.Call context = context(tool);
      call = handlers.start(() -> callHandler(tool, arguments, context));
    } catch (RejectedExecutionException e) {
      throw new ExecutionException(new ToolException("too many tool calls are still running; try again later"));
    }
    return call.await(tool.timeout().toNanos(), CANCEL_POLL_NANOS, guard::isCancelled);
  }

  /**
   * Runs an inline tool's handler here, on the guest thread; the run's guard interrupts it past its
   * timeout or on cancellation, and the call then fails whatever the handler did.
   */
  private Object inline(ToolBinding tool, Map<String, Object> arguments)
      throws TimeoutException, ExecutionException {
    Object result = null;
    Throwable failure = null;
    guard.enterInlineCall(System.nanoTime() + tool.timeout().toNanos());
    try {
      result = callHandler(tool, arguments, context(tool));
    } catch (Throwable t) { // anything escaping here would reach the guest as a host exception
      failure = t;
    } finally {
      if (guard.exitInlineCall()) {
        if (guard.isCancelled()) {
          throw new CancellationException("the run was cancelled");
        }
        throw new TimeoutException();
      }
    }
    if (failure != null) {
      throw new ExecutionException(failure);
    }
    return result;
  }

  /**
   * One call's tape ({@link PlainData#tape}) as the Python wrapper reads it. The wrapper reads it once and
   * drops it; a guest that calls {@code raw} itself gets a tape of its own, and may change it as it likes:
   * every change a list allows is allowed here, because a refused one would show the guest GraalPy's
   * message naming the host's proxy class ({@code ToolGatewayTest}).
   */
  private static final class Tape implements ProxyArray {
    private final List<Object> items;

    /** @param tape {@link PlainData#tape}'s list, taken as it is (a fresh one per call) */
    Tape(List<Object> tape) {
      this.items = tape;
    }

    @Override
    public Object get(long index) {
      return items.get(checked(index, items.size()));
    }

    @Override
    public void set(long index, Value value) {
      int i = checked(index, items.size() + 1);
      if (i == items.size()) {
        items.add(value);
      } else {
        items.set(i, value);
      }
    }

    @Override
    public boolean remove(long index) {
      items.remove(checked(index, items.size()));
      return true;
    }

    @Override
    public long getSize() {
      return items.size();
    }

    private static int checked(long index, int bound) {
      if (index < 0 || index >= bound) {
        throw new ArrayIndexOutOfBoundsException();
      }
      return (int) index;
    }

    @Override
    public String toString() {
      return "tape";
    }
  }

  private void record(ToolBinding tool, long argumentBytes, long start, Status status) {
    guard.toolCall(new ToolCall(Instant.now(), tool.name(), argumentBytes,
        Duration.ofNanos(System.nanoTime() - start), status));
  }

  private static String error(String code, String message) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("code", code);
    o.put("message", message);
    return "E" + PlainData.toJson(o, PlainData.Format.strict(1, 3));
  }
}
