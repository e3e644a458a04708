# A typical agent task: summarise a mounted CSV by region.
# expect: OK
# stdout-contains: north: 164.97
# Run: bin/sandbox run guest-samples/sales_summary.py --policy guest-samples/policy.json
import csv
from collections import defaultdict

totals = defaultdict(float)
with open('/data/sales.csv', newline='') as f:
    for row in csv.DictReader(f):
        totals[row['region']] += int(row['units']) * float(row['unit_price'])

for region in sorted(totals):
    print(f"{region}: {totals[region]:.2f}")

{'regions': len(totals), 'best': max(totals, key=totals.get)}
