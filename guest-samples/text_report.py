# A text report: statistics over the mounted sales data.
# expect: OK
# stdout-contains: units   mean   7.75
import csv, statistics

with open('/data/sales.csv') as f:
    units = [int(r['units']) for r in csv.DictReader(f)]
print(f"units   mean {statistics.mean(units):6.2f}")
print(f"units median {statistics.median(units):6.2f}")
print(f"units  stdev {statistics.stdev(units):6.2f}")
len(units)
