/**
 * The engine room: runs one guest program from start to result. {@code EngineRoom} admits runs (the
 * concurrency and queue bounds), takes a context from the warm pool or makes one ({@code
 * RunEnvironment}: context, virtual file system, output buffers, tools, made together and closed
 * together), and {@code GuestRun} executes it on a run thread, copies the value out, applies the
 * output boundary and builds the result. {@code ContextFactory} is where every GraalVM permission is
 * set (deny by default); {@code ProcessShield} replaces, in every Python context before the guest
 * runs, GraalPy's functions that would change process-wide state or show the host's identity;
 * {@code BuiltinBounds} holds the bounds on builtins no cancellation interrupts, which
 * {@code JavaScriptBuiltinBounds} and the shield ({@code PythonBuiltinBounds}) put in each context;
 * {@code ErrorClassifier} turns engine exceptions into outcomes without host detail.
 *
 * <p>May touch every other internal layer and the API's types; only {@code internal.spi} reaches it
 * from the API, and no other layer depends on it.
 */
package org.polyglotsandbox.internal.engine;
