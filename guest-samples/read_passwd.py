# Hostile: read the host's /etc/passwd.
# expect: GUEST_ERROR
# denied: file.read /etc/passwd
print(open('/etc/passwd').read())
