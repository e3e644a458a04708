// Hostile: phone home. GraalJS has no network API here; every door is missing.
// expect: GUEST_ERROR
fetch('http://169.254.169.254/latest/meta-data/').then(r => r.text())
