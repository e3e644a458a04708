/**
 * The escape probe's room: the engine behind {@link org.polyglotsandbox.EscapeProbe}. It builds
 * sandboxes from a policy, attacks them from the inside with a battery of JavaScript and Python probes,
 * and judges each probe from the guest's answer, the run's events and host-side checks.
 *
 * <ul>
 *   <li>{@link org.polyglotsandbox.internal.probe.ProbeRunner} runs it: fixtures, battery, one
 *       {@code LanguageRun} per language on a few threads. It is the only type used from outside.
 *   <li>{@code ProbeBattery} plans the probes; each family of attacks is a file of its own
 *       ({@code FileProbes}, {@code MountProbes}, {@code ToolProbes}, {@code NetworkProbes},
 *       {@code ProcessProbes}, {@code ThreadProbes}, {@code HostAccessProbes}, {@code NativeProbes},
 *       {@code EnvironmentProbes}, {@code StateProbes}, {@code BombProbes}) holding its guest code as
 *       constants.
 *   <li>{@code Judge} holds the evidence rules; {@code ProbeFixtures} the host side (a secret file and
 *       module, marker paths, loopback listeners, mount samples); {@code RunKind} the limits of
 *       each kind of run; {@code GuestDriver} the guest program that runs the probe bodies.
 * </ul>
 *
 * <p>What it may touch: only the library's exported API ({@code org.polyglotsandbox}) and the JDK. It
 * drives sandboxes exactly as an embedder would, through {@code PolyglotSandbox}, so it tests the
 * sandbox from outside the engine room and does not depend on how that room is arranged; no other
 * {@code internal} package, no GraalVM type. The host side writes only below its own temporary
 * directory and listens only on loopback ports, and removes both when the probe ends.
 */
package org.polyglotsandbox.internal.probe;
