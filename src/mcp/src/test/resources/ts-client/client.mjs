// A client of the MCP server built on the official TypeScript SDK (@modelcontextprotocol/sdk), driven by
// TypeScriptClientTest. Usage: node client.mjs stdio   (server command in SERVER_COMMAND, a JSON array)
//                             node client.mjs http URL
// It makes the calls below and prints one JSON object with what came back; the Java test asserts on it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, url] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  const [command, ...args] = JSON.parse(process.env.SERVER_COMMAND);
  transport = new StdioClientTransport({ command, args, stderr: "inherit" });
} else if (mode === "http") {
  transport = new StreamableHTTPClientTransport(new URL(url));
} else {
  console.error("usage: node client.mjs stdio | http URL");
  process.exit(2);
}

const client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
const out = {};
const call = async (name, args) => {
  try {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
    return { isError: r.isError === true, structured: r.structuredContent ?? null, text: r.content?.[0]?.text ?? null };
  } catch (e) {
    return { protocolError: true, code: e.code ?? null, message: String(e.message) };
  }
};

await client.connect(transport);
out.server = client.getServerVersion();
out.tools = (await client.listTools()).tools.map((t) => ({ name: t.name, hasOutputSchema: !!t.outputSchema }));
out.ok = await call("run_javascript", { code: "console.log('hi'); 6 * 7" });
out.python = await call("run_python", { code: "sum(rows)", inputs: { rows: [1, 2, 3] } });
out.syntaxError = await call("run_javascript", { code: "1 +" });
out.denied = await call("run_python", { code: "open('/etc/passwd').read()" });
out.loop = await call("run_javascript", { code: "while (true) {}" });
out.toolFromGuest = await call("run_javascript", { code: "tools.text.upper({text: 'abc'})" });
out.exposedTool = await call("text_upper", { text: "xyz" });
out.missingCode = await call("run_javascript", {});
out.wrongType = await call("run_javascript", { code: 42 });
out.unknownTool = await call("run_cobol", { code: "1" });

// Cancellation: abort the call when its first progress notification arrives (the run is > 1 s old).
const ac = new AbortController();
const progress = [];
const started = Date.now();
try {
  await client.callTool({ name: "run_javascript", arguments: { code: "while (true) {}" } }, undefined, {
    signal: ac.signal, timeout: 120000,
    onprogress: (p) => { progress.push(p); ac.abort("enough"); },
  });
  out.cancel = { aborted: false };
} catch (e) {
  out.cancel = { aborted: ac.signal.aborted, name: e.name ?? null, afterMs: Date.now() - started };
}
out.cancel.progress = progress.length;
out.afterCancel = await call("run_javascript", { code: "'still here'" });

let n = 0;
for (let i = 0; i < 50; i++) {
  const r = await call("run_javascript", { code: "i * 2", inputs: { i } });
  if (!r.isError && r.structured?.value === i * 2) n++;
}
out.fiftyInARow = n;

await client.close();
console.log(JSON.stringify(out));
