/**
 * Spring AI agents on polyglot-sandbox: {@link org.polyglotsandbox.springai.SandboxToolCallback} is a
 * {@code ToolCallback} for {@code run_javascript} / {@code run_python},
 * {@link org.polyglotsandbox.springai.SandboxToolCallbackProvider} offers one per language the policy
 * allows, and {@link org.polyglotsandbox.springai.PolyglotSandboxAutoConfiguration} makes a
 * {@code PolyglotSandbox} bean from {@code polyglot-sandbox.*} properties in a Spring Boot application.
 *
 * <p>Uses only the library's exported package {@code org.polyglotsandbox}; every rule of the sandbox
 * (policy, limits, tool validation, output boundary, audit) applies unchanged.
 */
package org.polyglotsandbox.springai;
