package org.polyglotsandbox.internal.engine;

import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Source;

/**
 * Makes JavaScript builtins that could run for minutes on a small input stoppable. A run is stopped
 * at its thread's next safepoint poll, and GraalJS's builtins, written in Java, poll none while they
 * work: {@code JSON.stringify} of a few hundred bytes of shared references ({@code a = [a, a]}, 40 times)
 * walks 2^40 nodes, and ran 280 s after its run's 5 s wall-time cap had stopped it, holding the JVM's
 * exit for as long.
 *
 * <p>{@code JSON.stringify} is replaced, once per fresh context and before any guest code, by one that
 * calls the original with a replacer function of its own, so that every value it serializes passes
 * through a guest call, where a stopped run stops. The guest's own replacer and space keep their exact
 * meaning: a replacer function is called from it with the same holder, key and value; a replacer array
 * is read into a property list as the specification says (in guest code, so a huge sparse one is
 * stoppable too), and each object that would be serialized with it is handed to the original as a view
 * that lists exactly those keys, in that order, and reads each from the object when the original asks
 * for it (getters, toJSON and Proxies see the same calls in the same order; the view is one per object
 * and call, so cycles are found as before). Everything it uses is taken when it is installed, so a
 * guest that replaces {@code Reflect.apply}, {@code Array.isArray} or {@code Map.prototype.get} later
 * changes nothing. What it costs: one call per serialized value (measured in the class's test).
 *
 * <p>Where no guest call can be slipped in, the input is bounded instead ({@link BuiltinBounds}):
 * {@code String.prototype.padStart} and {@code padEnd} refuse a length above
 * {@link BuiltinBounds#MAX_PAD_LENGTH}, and {@code normalize} a string longer than
 * {@link BuiltinBounds#MAX_NORMALIZE_LENGTH}, with a {@code RangeError} that names both. Below the bounds
 * they give what GraalJS's give, with the same conversions in the same order and the same errors
 * ({@code BoundedBuiltinsTest}); their names and lengths are the originals', and, as internal code, their
 * source shows as {@code [native code]}.
 */
final class JavaScriptBuiltinBounds {
  private static final String CODE = """
      (() => {
        'use strict';
        const json = JSON;
        const original = json.stringify;
        const apply = Reflect.apply;
        const reflectGet = Reflect.get;
        const define = Reflect.defineProperty;
        const bind = Function.prototype.bind;
        const isArray = Array.isArray;
        const ProxyOf = Proxy;
        const MapOf = Map;
        const mapGet = Map.prototype.get;
        const mapSet = Map.prototype.set;
        const toStr = String;
        const trunc = Math.trunc;
        const numberValue = Number.prototype.valueOf;
        const stringValue = String.prototype.valueOf;
        const booleanValue = Boolean.prototype.valueOf;
        const bigintValue = BigInt.prototype.valueOf;
        const isRawJSON = typeof json.isRawJSON === 'function' ? json.isRawJSON : null;
        const has = (v, valueOf) => {
          try { apply(valueOf, v, []); return true; } catch (e) { return false; }
        };
        const emptyTarget = () => ({});
        const slot = { __proto__: null, value: undefined, writable: true, enumerable: true, configurable: true };
        // A view of obj that lists exactly keys: what SerializeJSONObject does with a PropertyList.
        const viewOf = (obj, keys) => new ProxyOf(emptyTarget(), {
          __proto__: null,
          ownKeys: () => keys,
          getOwnPropertyDescriptor: () => ({ __proto__: null, value: undefined, writable: true, enumerable: true,
            configurable: true }),
          get: (t, key) => reflectGet(obj, key),
        });
        // Whether the original serializes v as an object with its keys (SerializeJSONProperty, step 10-11).
        const serializedAsObject = (v) => typeof v === 'object' && v !== null && !isArray(v)
            && !has(v, numberValue) && !has(v, stringValue) && !has(v, booleanValue) && !has(v, bigintValue)
            && !(isRawJSON !== null && isRawJSON(v));
        const propertyList = (replacer) => {
          const list = [];
          let size = 0;
          const seen = new MapOf();
          let len = +replacer.length;
          len = len !== len || len <= 0 ? 0 : len === Infinity ? 9007199254740991 : trunc(len);
          if (len > 9007199254740991) { len = 9007199254740991; }
          for (let k = 0; k < len; k++) {
            const v = replacer[k];
            let item;
            if (typeof v === 'string') { item = v; }
            else if (typeof v === 'number') { item = toStr(v); }
            else if (typeof v === 'object' && v !== null && (has(v, stringValue) || has(v, numberValue))) {
              item = toStr(v);
            }
            if (item !== undefined && apply(mapGet, seen, [item]) === undefined) {
              apply(mapSet, seen, [item, true]);
              slot.value = item;
              define(list, size++, slot);
            }
          }
          return list;
        };
        const passThrough = (key, value) => value;
        const stringify = ({
          stringify(value, replacer, space) {
            if (typeof replacer === 'function') {
              const guest = replacer;
              return original(value, function (key, v) { return apply(guest, this, [key, v]); }, space);
            }
            if (isArray(replacer)) {
              const keys = propertyList(replacer);
              const views = new MapOf();
              return original(value, (key, v) => {
                if (!serializedAsObject(v)) { return v; }
                let view = apply(mapGet, views, [v]);
                if (view === undefined) {
                  view = viewOf(v, keys);
                  apply(mapSet, views, [v, view]);
                }
                return view;
              }, space);
            }
            return original(value, passThrough, space);
          }
        }).stringify;
        define(json, 'stringify', { __proto__: null, value: stringify, writable: true, enumerable: false,
          configurable: true });

        // String methods that work in one Java call for as long as their input is long (BuiltinBounds): each
        // converts its arguments as the specification orders, refuses a length above its bound, and hands
        // the original only primitives, so no guest code runs twice and what was checked is what runs.
        const StringPrototype = String.prototype;
        const RangeErrorOf = RangeError;
        const maxPad = %d;
        const maxNormalize = %d;
        const toLength = (v) => {
          const n = trunc(+v);
          return n !== n || n <= 0 ? 0 : n > 9007199254740991 ? 9007199254740991 : n;
        };
        const pad = (original, name, self, maxLength, fillString) => {
          if (self === undefined || self === null) { return apply(original, self, [maxLength, fillString]); }
          const s = `${self}`;
          const length = toLength(maxLength);
          if (length <= s.length) { return s; }
          const filler = fillString === undefined ? ' ' : `${fillString}`;
          if (filler === '') { return s; }
          if (length > maxPad) {
            throw new RangeErrorOf(`String.prototype.${name}: length ${length} is above the sandbox's maximum of ${maxPad}`);
          }
          return apply(original, s, [length, filler]);
        };
        // Plain method names (an internal function's source shows its name only then), the specification's
        // lengths from the parameters they declare (the rest read from arguments), and plain assignment,
        // which keeps the properties' attributes and costs a fresh context a tenth of defineProperty's.
        const padStart = StringPrototype.padStart;
        const padEnd = StringPrototype.padEnd;
        const normalize = StringPrototype.normalize;
        StringPrototype.padStart = ({
          padStart(maxLength) { return pad(padStart, 'padStart', this, maxLength, arguments[1]); }
        }).padStart;
        StringPrototype.padEnd = ({
          padEnd(maxLength) { return pad(padEnd, 'padEnd', this, maxLength, arguments[1]); }
        }).padEnd;
        StringPrototype.normalize = ({
          normalize() {
            const form = arguments[0];
            if (this === undefined || this === null) { return apply(normalize, this, [form]); }
            const s = `${this}`;
            const f = form === undefined ? undefined : `${form}`;
            if (s.length > maxNormalize) {
              apply(normalize, '', [f]); // an unknown form is the engine's own RangeError, as it comes first
              throw new RangeErrorOf(`String.prototype.normalize: a string of ${s.length} characters is above the sandbox's maximum of ${maxNormalize}`);
            }
            return apply(normalize, s, [f]);
          }
        }).normalize;
      })()
      """.formatted(BuiltinBounds.MAX_PAD_LENGTH, BuiltinBounds.MAX_NORMALIZE_LENGTH);

  /** A constant: the engine keeps a source's compiled code only while the Source object lives. */
  private static final Source SOURCE =
      Source.newBuilder("js", CODE, "sandbox-builtin-bounds.js").internal(true).buildLiteral();

  private JavaScriptBuiltinBounds() {}

  /** Replaces the builtins in a fresh JavaScript context, before any guest code runs in it. */
  static void install(Context context) {
    context.eval(SOURCE);
  }
}
