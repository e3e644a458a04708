// Hostile: run a shell command.
// expect: GUEST_ERROR
require('child_process').execSync('id')
