// Hostile: never stop, and swallow whatever is thrown to stop it.
// expect: LIMIT_EXCEEDED statements
for (;;) { try { while (true) {} } catch (e) { continue; } }
