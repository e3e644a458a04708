# Uses the tools of ToolStubsTypeCheckTest as the generated stubs allow; type-checks and runs OK.
put = tools.kv.put(key="a", value=[1, 2])
got = tools.kv.get({"key": "a"})
now = tools.clock()
count = tools.kv()
found = tools.orders.search(status="open", limit=2, tags=["x"], filter={"from": "2026-01-01"})
closed = tools.orders.search({"status": "closed", "max-price": 10.5})
total = 0
for order in found + closed:
    for line in order["lines"]:
        total += line["qty"]
failure = ""
try:
    tools.kv.get(key="")
except ToolError as e:
    failure = type(e).__name__ + ":" + e.code
odd = tools.odd.names({"not-an-identifier": 1, "class": "x"})
summary = {"keys": put["keys"], "got": None if got is None else len(got), "utc": len(now["utc"]),
           "count": count, "total": total, "failure": failure, "odd": odd}
summary
