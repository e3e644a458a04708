# Hostile: never stop, and swallow whatever is thrown to stop it.
# expect: LIMIT_EXCEEDED statements
while True:
    try:
        while True:
            pass
    except BaseException:
        continue
