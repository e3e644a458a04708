// A typical agent task: summarise a mounted CSV by region.
// expect: OK
// stdout-contains: north: 164.97
// Run: bin/sandbox run guest-samples/sales_summary.js --policy guest-samples/policy.json
const [header, ...rows] = readText('/data/sales.csv').trim().split('\n');
const cols = header.split(',');
const totals = {};
for (const line of rows) {
  const r = Object.fromEntries(line.split(',').map((v, i) => [cols[i], v]));
  totals[r.region] = (totals[r.region] ?? 0) + Number(r.units) * Number(r.unit_price);
}
for (const [region, total] of Object.entries(totals).sort()) {
  console.log(`${region}: ${total.toFixed(2)}`);
}
({ regions: Object.keys(totals).length, best: Object.entries(totals).sort((a, b) => b[1] - a[1])[0][0] })
