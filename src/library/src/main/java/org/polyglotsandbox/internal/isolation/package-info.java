/**
 * The operating-system wall around each worker JVM of the process isolation: what the host offers
 * ({@link org.polyglotsandbox.internal.isolation.OsWall}), what one worker's wall holds
 * ({@link org.polyglotsandbox.internal.isolation.WallSpec}), the command that builds it
 * ({@link org.polyglotsandbox.internal.isolation.WallCommand}: cgroup, {@code env -i}, {@code prlimit},
 * {@code bwrap}), the worker's cgroup ({@link org.polyglotsandbox.internal.isolation.CgroupSlot}) and the
 * seccomp filter the worker installs on itself ({@code SeccompFilter}, {@code NativeSeccomp},
 * {@link org.polyglotsandbox.internal.isolation.WalledMain}).
 *
 * <p>{@code NativeSeccomp} has two versions: a JDK 21 stand-in here and the working one, on the foreign
 * function API, in {@code src/main/java22}, which the build puts under {@code META-INF/versions/22} of the
 * multi-release jar when it runs on JDK 22 or newer.
 *
 * <p>May touch: the JDK only. No GraalVM type and no other package of the library: a worker JVM runs
 * {@code WalledMain} before anything else is loaded, and the host builds walls without an engine.
 */
package org.polyglotsandbox.internal.isolation;
