// Each line below misuses a tool; ToolStubsTypeCheckTest asserts tsc reports every one.
tools.kv.get({key: 42});
tools.orders.search({status: 'pending'});
tools.kv.gett({key: 'a'});
tools.clock({now: 1});
tools.kv.put({key: 'a'});
const utc = tools.clock().utc.toFixed(2);
tools.orders.search({filter: {from: 1}});
