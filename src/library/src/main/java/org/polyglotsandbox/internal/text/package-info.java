/**
 * Words for people: how the sandbox writes quantities (durations) in the messages, notes and denials
 * it produces, so that a limit reads the same wherever it is named.
 *
 * <p>Depends on {@code java.base} only. It must not import the API package {@code org.polyglotsandbox}
 * or any other layer, so that the API and every layer may use it without a cycle.
 */
package org.polyglotsandbox.internal.text;
