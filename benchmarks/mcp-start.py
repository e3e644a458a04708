#!/usr/bin/env python3
"""How fast `bin/sandbox mcp` answers after its process starts (issue 19): a recorded harness, not JMH
(each sample is a new JVM). Never a CI gate; record results in benchmarks/RESULTS.md.

Usage: benchmarks/mcp-start.py [ROUNDS]     (from the repository root; default 2 rounds)

Each round starts `bin/sandbox mcp` (default policy, stdio) three times: with the start-up cache and
`run_python`, with it and `run_javascript`, and without it (SANDBOX_STARTUP_CACHE=0) and `run_python`.
Each sample sends `initialize`, `notifications/initialized`, `tools/list` and one `tools/call` of `6*7`
as JSON-RPC lines and prints the seconds from process start to each answer. Run `bin/sandbox mcp` once
before (it builds the project and makes the cache on first use; that start is not timed here).
"""
import json
import os
import subprocess
import sys
import time


def sample(language, cache):
    env = dict(os.environ, SANDBOX_STARTUP_CACHE="1" if cache else "0")
    t0 = time.monotonic()
    p = subprocess.Popen(["bin/sandbox", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)

    def send(message):
        p.stdin.write(json.dumps(message) + "\n")
        p.stdin.flush()

    def answer(request_id):
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("the server ended before answering request %d: %s" % (request_id, p.stderr.read()))
            message = json.loads(line)
            if message.get("id") == request_id:
                return message, time.monotonic() - t0

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "mcp-start", "version": "1"}}})
    _, initialized = answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    _, listed = answer(2)
    send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
          "params": {"name": "run_" + language, "arguments": {"code": "6*7"}}})
    result, called = answer(3)
    p.stdin.close()
    p.stderr.read()
    p.wait()
    value = result["result"]["structuredContent"]["value"]
    assert value == 42, result
    print("%-10s cache=%-3s initialize %5.2f s  tools/list %5.2f s  first answer %5.2f s"
          % (language, "yes" if cache else "no", initialized, listed, called), flush=True)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    for r in range(rounds):
        print("round %d, load %s" % (r + 1, os.getloadavg()[0]), flush=True)
        sample("python", True)
        sample("javascript", True)
        sample("python", False)


if __name__ == "__main__":
    main()
