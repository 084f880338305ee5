#!/usr/bin/env -S node --max-old-space-size=256 --max-semi-space-size=8
// Committed launcher: npm links bins at install time, before the build creates dist/.
// The heap caps keep a million-record import under 300 MB of RSS: the live heap stays near
// 50 MB, but V8 would otherwise let garbage pile up to several hundred MB between collections.
import "../dist/main.js"
