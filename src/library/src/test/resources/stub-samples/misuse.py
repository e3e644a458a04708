# Each line below misuses a tool; ToolStubsTypeCheckTest asserts mypy reports every one.
tools.kv.get(key=42)
tools.orders.search(status="pending")
tools.kv.gett(key="a")
tools.clock(now=1)
tools.kv.put(key="a")
utc = tools.clock()["utc"] + 1
tools.orders.search(filter={"from": 1})
