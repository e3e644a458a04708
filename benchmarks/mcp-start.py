#!/usr/bin/env python3
"""How fast `bin/sandbox mcp` answers after its process starts: a recorded harness, not JMH
(each sample is a new JVM). Never a CI gate; record results in docs/performance.md.

Usage: benchmarks/mcp-start.py [ROUNDS]           (from the repository root; default 2 rounds)
       benchmarks/mcp-start.py imports [ROUNDS]   (an agent's Python session, with and without json imported)

Each round starts `bin/sandbox mcp` (default policy, stdio) three times: with the start-up cache and
`run_python`, with it and `run_javascript`, and without it (SANDBOX_STARTUP_CACHE=0) and `run_python`.
Each sample sends `initialize`, `notifications/initialized`, `tools/list` and one `tools/call` of `6*7`
as JSON-RPC lines and prints the seconds from process start to each answer. Run `bin/sandbox mcp` once
before (it builds the project and makes the cache on first use; that start is not timed here).

`imports` starts the server (with the start-up cache) alternately with `--python-imports=` (nothing
imported ahead) and with its default (`json`), and sends, right after `tools/list`, a `run_python` call
whose code starts with `import json`; then, 5 s later (a model writing its next program), a second such
call. It prints the seconds from process start to the first answer, and from sending the second call to
its answer.
"""
import json
import os
import subprocess
import sys
import time


class Server:
    """`bin/sandbox mcp` on stdio, spoken to in JSON-RPC lines; times count from the process start."""

    def __init__(self, args, env=None):
        self.t0 = time.monotonic()
        self.p = subprocess.Popen(["bin/sandbox", "mcp"] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env)

    def send(self, message):
        self.p.stdin.write(json.dumps(dict(message, jsonrpc="2.0")) + "\n")
        self.p.stdin.flush()

    def answer(self, request_id):
        """The response to request_id, and the seconds from the process start to it."""
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("the server ended before answering request %d: %s" % (request_id, self.p.stderr.read()))
            message = json.loads(line)
            if message.get("id") == request_id:
                return message, time.monotonic() - self.t0

    def call(self, request_id, method, params):
        self.send({"id": request_id, "method": method, "params": params})
        return self.answer(request_id)

    def open_session(self):
        """initialize, notifications/initialized, tools/list: the seconds to the first and the last answer."""
        _, initialized = self.call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                                     "clientInfo": {"name": "mcp-start", "version": "1"}})
        self.send({"method": "notifications/initialized"})
        _, listed = self.call(2, "tools/list", {})
        return initialized, listed

    def run(self, request_id, language, code, expected):
        result, seconds = self.call(request_id, "tools/call", {"name": "run_" + language, "arguments": {"code": code}})
        value = result["result"]["structuredContent"]["value"]
        assert value == expected, result
        return seconds

    def close(self):
        self.p.stdin.close()
        self.p.stderr.read()
        self.p.wait()


def sample(language, cache):
    server = Server([], dict(os.environ, SANDBOX_STARTUP_CACHE="1" if cache else "0"))
    initialized, listed = server.open_session()
    called = server.run(3, language, "6*7", 42)
    server.close()
    print("%-10s cache=%-3s initialize %5.2f s  tools/list %5.2f s  first answer %5.2f s"
          % (language, "yes" if cache else "no", initialized, listed, called), flush=True)


def session(imports):
    server = Server([] if imports else ["--python-imports="])
    code = "import json\nrows = [{'id': i, 'qty': i %% 7} for i in range(20)]\n" \
           "json.loads(json.dumps({'total': sum(r['qty'] for r in rows), 'n': %d}))['n']"
    server.open_session()
    first = server.run(3, "python", code % 3, 3)
    time.sleep(5)
    sent = time.monotonic() - server.t0
    second = server.run(4, "python", code % 4, 4) - sent
    server.close()
    print("python-imports %-5s first answer %5.2f s  second call (5 s later) %5.2f s"
          % ("json" if imports else "none", first, second), flush=True)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "imports":
        rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
        for r in range(rounds):
            print("round %d, load %s" % (r + 1, os.getloadavg()[0]), flush=True)
            session(False)
            session(True)
        return
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    for r in range(rounds):
        print("round %d, load %s" % (r + 1, os.getloadavg()[0]), flush=True)
        sample("python", True)
        sample("javascript", True)
        sample("python", False)


if __name__ == "__main__":
    main()
