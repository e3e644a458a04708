/**
 * LangChain4j agents on polyglot-sandbox: {@link org.polyglotsandbox.langchain4j.SandboxCodeExecutionEngine}
 * is a {@code CodeExecutionEngine}, {@link org.polyglotsandbox.langchain4j.SandboxTools} offers
 * {@code run_javascript} / {@code run_python} to {@code AiServices}, and
 * {@link org.polyglotsandbox.langchain4j.ApplicationTools} turns an application's {@code @Tool} methods
 * into sandbox tools that guest code may call.
 *
 * <p>Uses only the library's exported package {@code org.polyglotsandbox}; every rule of the sandbox
 * (policy, limits, tool validation, output boundary, audit) applies unchanged.
 */
package org.polyglotsandbox.langchain4j;
