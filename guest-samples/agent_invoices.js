// An agent-style task: read orders from a mounted file, enrich each customer through the `lookup`
// tool, and keep the invoice totals in the host's key-value store through `kv.put` / `kv.get`.
// expect: OK
// denied: tool.call kv.delete_all
// stdout-contains: ada (gold): 45.00
// Run: bin/sandbox run guest-samples/agent_invoices.js --policy guest-samples/policy.json
const { orders } = JSON.parse(readText('/data/orders.json'));
const totals = {};
for (const o of orders.filter(o => o.status === 'shipped')) {
  totals[o.customer] = (totals[o.customer] ?? 0) + o.items.reduce((s, i) => s + i.qty * i.price, 0);
}
for (const [customer, gross] of Object.entries(totals)) {
  const profile = tools.lookup({ key: customer });   // a fresh guest object, or null
  const net = gross * (1 - (profile?.discount ?? 0));
  tools.kv.put({ key: 'invoice:' + customer, value: { net: Math.round(net * 100) / 100, tier: profile?.tier } });
}
for (const customer of Object.keys(totals)) {
  const invoice = tools['kv.get']({ key: 'invoice:' + customer });
  console.log(`${customer} (${invoice.tier}): ${invoice.net.toFixed(2)}`);
}
let refused;
try { tools.kv.delete_all(); } catch (e) { refused = e.name + ' ' + e.code; }   // not allowed: denied
({ invoices: Object.keys(totals).length, refused })
