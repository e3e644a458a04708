// Transform JSON: revenue per customer over shipped orders.
// expect: OK
// stdout-contains: ada 50.00
const { orders } = JSON.parse(readText('/data/orders.json'));
const revenue = {};
for (const o of orders.filter(o => o.status === 'shipped')) {
  revenue[o.customer] = (revenue[o.customer] ?? 0) + o.items.reduce((s, i) => s + i.qty * i.price, 0);
}
for (const [c, v] of Object.entries(revenue)) console.log(c, v.toFixed(2));
revenue
