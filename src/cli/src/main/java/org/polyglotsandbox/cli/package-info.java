/**
 * The {@code sandbox} command line ({@code bin/sandbox}): runs a program under a policy read from a
 * file and options ({@code run}), prints what a policy allows and denies ({@code policy explain}), and
 * attacks a policy from inside to check it holds ({@code audit}); it enforces nothing itself.
 *
 * <p>Depends on the library's API package {@code org.polyglotsandbox} only, never on
 * {@code org.polyglotsandbox.internal}. It asks the library its rules instead of restating them (such as
 * {@link org.polyglotsandbox.Policy#mountFor} for {@code --output-file}) and prints limits as the library
 * words them (policy report notes, limit details). Besides the API it uses picocli for options, Jackson
 * for policy files and {@code --json}, and GraalVM's polyglot API only to print its version.
 */
package org.polyglotsandbox.cli;
