/**
 * The virtual file system: guest code sees only the policy's mounts, with exactly their operations,
 * copied into an in-memory tree; every other path is refused and reported.
 *
 * <p>{@code GuestFileSystem} is the run's file system and checks every operation against the mounts
 * ({@link org.polyglotsandbox.Mount#contains}); {@code MountCopier} copies the mounts' host content in
 * when a run starts, and guest code never opens a host file; {@code InterpreterFiles} and
 * {@code PythonFileSystem} give Python read-only access to GraalPy's own standard library;
 * {@code JavaScriptFileApi} is JavaScript's one door to the same rules.
 *
 * <p>Depends on the API's {@code Mount} and vocabulary, {@link org.polyglotsandbox.internal.EnforcementSink},
 * Jimfs and GraalVM's polyglot I/O. It must not depend on the other layers (boundary, tools, limits,
 * pool, audit), and nothing here writes to the host.
 */
package org.polyglotsandbox.internal.filesystem;
