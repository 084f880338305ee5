#!/usr/bin/env -S node --max-old-space-size=256 --max-semi-space-size=8
// Committed launcher: npm links bins at install time, before the build creates dist/.
// The heap caps keep RSS flat on large catalogs; a pass holds one batch at a time.
import "../dist/main.js"
