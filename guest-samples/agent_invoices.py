# An agent-style task: read orders from a mounted file, enrich each customer through the `lookup`
# tool, and keep the invoice totals in the host's key-value store through `kv.put` / `kv.get`.
# expect: OK
# denied: tool.call kv.delete_all
# stdout-contains: ada (gold): 45.00
# Run: bin/sandbox run guest-samples/agent_invoices.py --policy guest-samples/policy.json
import json
from collections import defaultdict

with open('/data/orders.json') as f:
    orders = json.load(f)['orders']

totals = defaultdict(float)
for o in orders:
    if o['status'] == 'shipped':
        totals[o['customer']] += sum(i['qty'] * i['price'] for i in o['items'])

for customer, gross in totals.items():
    profile = tools.lookup(key=customer) or {}          # a fresh dict, or None
    net = gross * (1 - profile.get('discount', 0))
    tools.kv.put(key='invoice:' + customer, value={'net': round(net, 2), 'tier': profile.get('tier')})

for customer in totals:
    invoice = getattr(tools, 'kv.get')({'key': 'invoice:' + customer})
    print(f"{customer} ({invoice['tier']}): {invoice['net']:.2f}")

try:
    tools.kv.delete_all()                               # not allowed: denied
except RuntimeError as e:
    refused = type(e).__name__ + ' ' + e.code

{'invoices': len(totals), 'refused': refused}
