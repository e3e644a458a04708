// Uses the tools of ToolStubsTypeCheckTest as the generated declarations allow; type-checks and runs OK.
const put = tools.kv.put({key: 'a', value: [1, 2]});
const got = tools['kv.get']({key: 'a'});
const now = tools.clock();
const count = tools.kv({});
const found = tools.orders.search({status: 'open', limit: 2, tags: ['x'], 'max-price': 10.5,
  filter: {from: '2026-01-01'}});
const closed = tools['orders.search']({status: 'closed'});
let total = 0;
for (const order of found.concat(closed)) {
  for (const line of order.lines) {
    total += line.qty;
  }
}
let failure = '';
try {
  tools.kv.get({key: ''});
} catch (e) {
  if (e instanceof ToolError) {
    failure = e.name + ':' + e.code;
  }
}
({keys: put.keys, got: got === null ? null : got.length, utc: now.utc.length, count, total, failure,
  odd: tools.odd.names({'not-an-identifier': 1, 'class': 'x'})})
