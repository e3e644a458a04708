# What an agent writes for "what is the total of this CSV?": units x unit price over every row of a mounted file.
# expect: OK
# stdout-contains: total: 403.45
# Run: bin/sandbox run guest-samples/csv_total.py --policy guest-samples/policy.json
# An agent sends this file as run_python's code: AiServicesAgentTest (src/langchain4j) and ChatClientAgentTest
# (src/spring-ai), csvTotal_theAnswerCarriesTheValueThePythonComputed (docs/spring-ai.md and docs/langchain4j.md, "The example agent").
import csv

with open('/data/sales.csv', newline='') as f:
    total = sum(int(row['units']) * float(row['unit_price']) for row in csv.DictReader(f))

print(f"total: {total:.2f}")
round(total, 2)
