# Code mode: one program that calls three tools (lookup, kv.put, kv.get), awaits them together with
# asyncio.gather and returns a summary. asyncio runs on the event loop the sandbox provides (no socket,
# no thread); a tool call answers synchronously, so a coroutine calls it without await.
# expect: OK
# stdout-contains: 3 customers; tiers gold, silver, standard
# Run: bin/sandbox run guest-samples/code_mode.py --policy guest-samples/policy.json
import asyncio

KEYS = ['ada', 'grace', 'linus']


async def profile(key):
    await asyncio.sleep(0)  # lets the other lookups interleave
    return {'key': key, **(tools.lookup(key=key) or {})}


async def remember(p):
    await asyncio.sleep(0)
    tools.kv.put(key='tier:' + p['key'], value=p['tier'])
    return tools.kv.get(key='tier:' + p['key'])


async def main():
    profiles = await asyncio.gather(*(profile(k) for k in KEYS))
    tiers = await asyncio.gather(*(remember(p) for p in profiles))
    print(f"{len(profiles)} customers; tiers {', '.join(tiers)}")
    average = sum(p['discount'] for p in profiles) / len(profiles)
    return {'customers': len(profiles), 'tiers': tiers, 'averageDiscount': round(average, 3)}


asyncio.run(main())
