// Hostile: read the host's /etc/passwd.
// expect: GUEST_ERROR
// denied: file.read /etc/passwd
readText('/etc/passwd')
