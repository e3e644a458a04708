# Hostile: run a shell command.
# expect: GUEST_ERROR
# denied: process.spawn
import os
os.system('id > /tmp/pwned')
