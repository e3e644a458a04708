#!/usr/bin/env python3
"""How fast `bin/sandbox mcp` answers after its process starts (issue 19): a recorded harness, not JMH
(each sample is a new JVM). Never a CI gate; record results in benchmarks/RESULTS.md.

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


def session(imports):
    args = ["bin/sandbox", "mcp"] + ([] if imports else ["--python-imports="])
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def call(request_id, method, params):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}) + "\n")
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("the server ended before answering request %d: %s" % (request_id, p.stderr.read()))
            message = json.loads(line)
            if message.get("id") == request_id:
                return message

    def run(request_id, n):
        code = "import json\nrows = [{'id': i, 'qty': i %% 7} for i in range(20)]\n" \
               "json.loads(json.dumps({'total': sum(r['qty'] for r in rows), 'n': %d}))['n']" % n
        answer = call(request_id, "tools/call", {"name": "run_python", "arguments": {"code": code}})
        value = answer["result"]["structuredContent"]["value"]
        assert value == n, answer

    call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "mcp-start", "version": "1"}})
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    call(2, "tools/list", {})
    run(3, 3)
    first = time.monotonic() - t0
    time.sleep(5)
    t1 = time.monotonic()
    run(4, 4)
    second = time.monotonic() - t1
    p.stdin.close()
    p.stderr.read()
    p.wait()
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
