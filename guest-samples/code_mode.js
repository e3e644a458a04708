// Code mode: one program that calls three tools (lookup, kv.put, kv.get), awaits them together and
// returns a summary. It uses top-level await, so the sandbox runs it as the body of an async function:
// its value is what it returns (the Promise is settled before the result is copied out).
// expect: OK
// stdout-contains: 3 customers; tiers gold, silver, standard
// Run: bin/sandbox run guest-samples/code_mode.js --policy guest-samples/policy.json
const keys = ['ada', 'grace', 'linus'];
const profiles = await Promise.all(keys.map(async key => ({ key, ...(await tools.lookup({ key })) })));
await Promise.all(profiles.map(p => tools.kv.put({ key: 'tier:' + p.key, value: p.tier })));
const tiers = await Promise.all(keys.map(key => tools.kv.get({ key: 'tier:' + key })));
console.log(`${profiles.length} customers; tiers ${tiers.join(', ')}`);
const averageDiscount = profiles.reduce((s, p) => s + p.discount, 0) / profiles.length;
return { customers: profiles.length, tiers, averageDiscount: Math.round(averageDiscount * 1000) / 1000 };
