/**
 * An MCP server over a {@link org.polyglotsandbox.PolyglotSandbox}: {@link
 * org.polyglotsandbox.mcp.SandboxMcpServer} serves {@code run_javascript} and {@code run_python} (and,
 * if asked, the policy's host tools) over stdio or Streamable HTTP, built on the MCP Java SDK. It uses
 * only the library's exported package (the tools' descriptions are the library's {@code
 * describeForModel}). The classes beside it are its rooms: {@code RunTools} turns calls into runs and
 * results into MCP results, {@code Calls} tracks calls in flight so that a cancellation reaches its run, {@code Inbound} checks
 * every message before the SDK sees it, {@code StdioGuard} and {@code HttpEndpoint} are the two
 * transports' front doors.
 */
package org.polyglotsandbox.mcp;
