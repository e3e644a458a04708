# Transform JSON: revenue per customer over shipped orders, written to the scratch directory.
# expect: OK
# stdout-contains: ada 50.00
import json

with open('/data/orders.json') as f:
    orders = json.load(f)['orders']

revenue = {}
for o in orders:
    if o['status'] == 'shipped':
        revenue[o['customer']] = revenue.get(o['customer'], 0) + sum(i['qty'] * i['price'] for i in o['items'])

with open('revenue.json', 'w') as f:   # /scratch: in memory, gone after the run
    json.dump(revenue, f)
for c, v in revenue.items():
    print(c, f"{v:.2f}")
json.load(open('/scratch/revenue.json'))
